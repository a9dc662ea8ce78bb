"""The SSRF-safe page fetcher behind the narrow :class:`Fetcher` protocol.

Each hop (the first URL and every redirect target) goes through the same steps:

1. :func:`~citewise.web.addresses.parse_target` refuses what is not plain http/https
   (credentials, odd host spellings; numeric hosts are normalised to one address);
2. the host is resolved *once* with the injected resolver and every A/AAAA answer is
   checked with :func:`~citewise.web.addresses.blocked_reason`; one blocked answer refuses
   the hop (an attacker's name cannot mix a public address with a private one);
3. the request goes through httpcore with a network backend pinned to the checked address:
   the TCP connection is made to that IP literal (no second lookup, so DNS rebinding cannot
   switch it) while the URL keeps the host name, so the ``Host`` header, TLS SNI and the
   certificate check all use the name. The backend re-checks the address and refuses any
   other host.

Caps: redirects, body bytes (``Content-Length`` and the bytes actually read), one deadline
for the whole fetch, held by every socket operation (:mod:`.deadline`: a server trickling
its headers or body a byte at a time is cut at it), content types; no proxies from the
environment, no compression (``Accept-Encoding: identity``).

httpcore (the transport under httpx, by the same maintainers) is used directly because it
takes a network backend; see docs/architecture.md, "The second source".
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urljoin

import httpcore

from citewise.errors import (
    AddressBlocked,
    ContentTypeRefused,
    FetchFailed,
    FetchTimeout,
    FetchTooLarge,
    TooManyRedirects,
    UrlRefused,
)
from citewise.web.addresses import (
    IPAddress,
    Network,
    Target,
    blocked_reason,
    host_allowed,
    parse_target,
)
from citewise.web.deadline import DeadlineBackend

Resolver = Callable[[str, int], Sequence[str]]
REDIRECTS = frozenset({301, 302, 303, 307, 308})
TEXT_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "text/plain", "text/xml", "application/xml"}
)


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (A and AAAA), in resolver order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """Caps of one fetch. ``permit`` lifts the address block for exact networks: a test
    setting (local pages on 127.0.0.1), empty by default and never read from config."""

    max_redirects: int = 5
    max_bytes: int = 2_000_000
    timeout: float = 15.0  # the whole fetch, every hop and the body included
    connect_timeout: float = 5.0
    content_types: frozenset[str] = TEXT_TYPES
    permit: tuple[Network, ...] = ()
    #: When set, every hop (first URL and each redirect) must be on one of these hosts (or
    #: a subdomain): a redirect off the allowlist is refused before it is requested.
    allowed_hosts: tuple[str, ...] = ()
    user_agent: str = "citewise-verify/1 (+regulation second source)"


@dataclass(frozen=True, slots=True)
class FetchedPage:
    url: str
    final_url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    fetched_at: str
    address: str  # the checked IP the final hop connected to
    redirects: tuple[str, ...] = field(default=())


class Fetcher(Protocol):
    def fetch(self, url: str) -> FetchedPage:
        """The page at ``url``, or a :class:`~citewise.errors.WebError` saying why not."""


class PinnedBackend(DeadlineBackend):
    """Connects only to ``host:port``, and then only to the pre-checked ``ip``; every
    socket operation waits at most until ``deadline`` (``time.monotonic`` seconds)."""

    def __init__(
        self,
        host: str,
        port: int,
        ip: IPAddress,
        permit: Iterable[Network],
        deadline: float = float("inf"),
    ) -> None:
        super().__init__(deadline)
        self._host, self._port, self._ip, self._permit = host, port, ip, tuple(permit)

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        if host.lower() != self._host or port != self._port:
            raise httpcore.ConnectError(f"refused: {host}:{port} is not the checked target")
        if blocked_reason(self._ip, self._permit) is not None:  # never reached: checked before
            raise httpcore.ConnectError(f"refused: {self._ip} is blocked")
        return super().connect_tcp(str(self._ip), port, timeout, local_address, socket_options)


class SafeFetcher:
    """The real :class:`Fetcher`. ``resolver`` and ``clock`` are injectable for tests."""

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver = system_resolver,
        clock: Callable[[], float] = time.monotonic,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.policy = policy or FetchPolicy()
        self._resolve = resolver
        self._clock = clock
        self._ssl = ssl_context or ssl.create_default_context()

    def fetch(self, url: str) -> FetchedPage:
        deadline = self._clock() + self.policy.timeout
        # The hard cut: every connect, handshake, read and write of every hop waits at most
        # until here, so a server trickling its status line or headers is cut too.
        cut = time.monotonic() + self.policy.timeout
        hops: list[str] = []
        current = url
        for _ in range(self.policy.max_redirects + 1):
            target = parse_target(current)
            allowed = self.policy.allowed_hosts
            if allowed and not host_allowed(target.host, allowed):
                raise UrlRefused(
                    f"{target.url} is not on the allowlist of hosts ({', '.join(allowed)}).",
                    hint=f"Add {target.host} to CITEWISE_WEB_ALLOWED_HOSTS if it is authoritative.",
                )
            ip = self.pin(target)
            page, location = self._hop(url, target, ip, (deadline, cut), tuple(hops))
            if page is not None:
                return page
            current = urljoin(target.url, location)
            hops.append(current)
        raise TooManyRedirects(
            f"{url} redirected more than {self.policy.max_redirects} times.",
            hint="Use the final address of the page, or raise FetchPolicy.max_redirects.",
        )

    def pin(self, target: Target) -> IPAddress:
        """The one address to connect to: every resolved address must pass the check."""
        if target.ip is not None:
            addresses: list[IPAddress] = [target.ip]
        else:
            try:
                answers = self._resolve(target.host, target.port)
            except (OSError, UnicodeError) as exc:
                raise FetchFailed(f"{target.host} did not resolve ({exc}).") from None
            addresses = []
            for raw in answers:
                try:
                    addresses.append(ipaddress.ip_address(str(raw).split("%", 1)[0]))
                except ValueError:
                    raise FetchFailed(f"{target.host} resolved to a non-address {raw!r}.") from None
        if not addresses:
            raise FetchFailed(f"{target.host} has no A or AAAA record.")
        for ip in addresses:
            why = blocked_reason(ip, self.policy.permit)
            if why is not None:
                raise AddressBlocked(
                    f"{target.host} is or resolves to {ip} ({why}); citewise never fetches "
                    "from such addresses.",
                    hint="Allow only public hosts of authoritative publishers.",
                )
        return addresses[0]

    def _hop(
        self,
        url: str,
        target: Target,
        ip: IPAddress,
        deadlines: tuple[float, float],
        hops: tuple[str, ...],
    ) -> tuple[FetchedPage | None, str]:
        """One request. ``deadlines``: the fetch's end on the injectable clock (checked
        between steps) and on ``time.monotonic`` (held by every socket operation)."""
        p = self.policy
        deadline, cut = deadlines
        left = deadline - self._clock()
        if left <= 0:
            raise FetchTimeout(f"Fetching {url} took longer than {p.timeout:g} s.")
        backend = PinnedBackend(target.host, target.port, ip, p.permit, cut)
        pool = httpcore.ConnectionPool(
            ssl_context=self._ssl, network_backend=backend, max_connections=1, retries=0
        )
        hurl = httpcore.URL(
            scheme=target.scheme.encode(),
            host=target.host.encode(),
            port=target.port,
            target=target.target.encode(),
        )
        headers = [
            (b"User-Agent", p.user_agent.encode()),
            (b"Accept", ", ".join(sorted(p.content_types)).encode()),
            (b"Accept-Encoding", b"identity"),
        ]
        timeouts = {"connect": min(p.connect_timeout, left), "read": left, "write": left}
        try:
            with (
                pool,
                pool.stream("GET", hurl, headers=headers, extensions={"timeout": timeouts}) as r,
            ):
                head = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in r.headers}
                if r.status in REDIRECTS:
                    if not head.get("location"):
                        raise FetchFailed(f"{target.url} redirected without a Location.")
                    return None, head["location"]
                ctype, charset = _content_type(head.get("content-type", ""))
                self._check_head(target, r.status, ctype, head)
                body = self._read(r, target, deadline)
        except httpcore.TimeoutException:
            raise FetchTimeout(
                f"Fetching {url} took longer than {p.timeout:g} s.",
                hint="The site is slow or unreachable; the citation stays unverified by it.",
            ) from None
        except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as e:
            raise FetchFailed(f"Fetching {target.url} failed: {e}.") from None
        now = datetime.now(UTC).isoformat(timespec="seconds")
        return FetchedPage(url, target.url, r.status, ctype, charset, body, now, str(ip), hops), ""

    def _check_head(self, target: Target, status: int, ctype: str, head: dict[str, str]) -> None:
        p = self.policy
        if not 200 <= status < 300:
            raise FetchFailed(f"{target.url} answered HTTP {status}.")
        if ctype not in p.content_types:
            raise ContentTypeRefused(
                f"{target.url} is {ctype or 'of no content type'}; only "
                f"{', '.join(sorted(p.content_types))} are read."
            )
        if head.get("content-encoding", "identity").lower() not in ("identity", ""):
            raise FetchFailed(f"{target.url} sent a compressed body although none was asked.")
        length = head.get("content-length", "")
        if length.isdigit() and int(length) > p.max_bytes:
            raise FetchTooLarge(
                f"{target.url} is {int(length)} bytes, over the {p.max_bytes}-byte cap."
            )

    def _read(self, r: httpcore.Response, target: Target, deadline: float) -> bytes:
        chunks: list[bytes] = []
        total = 0
        for chunk in r.iter_stream():
            total += len(chunk)
            if total > self.policy.max_bytes:
                raise FetchTooLarge(
                    f"{target.url} sent more than the {self.policy.max_bytes}-byte cap."
                )
            if self._clock() > deadline:
                raise FetchTimeout(
                    f"{target.url} sent its body too slowly (over {self.policy.timeout:g} s)."
                )
            chunks.append(chunk)
        return b"".join(chunks)


def _content_type(value: str) -> tuple[str, str | None]:
    main, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.strip().partition("=")
        if key.lower() == "charset" and val:
            charset = val.strip('"').lower()
    return main.strip().lower(), charset


__all__ = [
    "FetchPolicy",
    "FetchedPage",
    "Fetcher",
    "PinnedBackend",
    "SafeFetcher",
    "UrlRefused",
    "system_resolver",
]
