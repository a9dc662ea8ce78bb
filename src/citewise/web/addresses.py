"""Which URLs and addresses the web fetcher may reach: pure checks, no network.

:func:`parse_target` reads a URL into a :class:`Target` (scheme, normalised host, port,
request target) or refuses it: only ``http``/``https``, no credentials, no control
characters or backslashes, no IPv6 zone ids. A host whose last label is numeric is an IPv4
address in any spelling browsers and ``inet_aton`` accept (``2130706433``, ``0x7f.1``,
``0177.0.0.1``, ``127.1``) and is normalised to dotted decimal, so every spelling meets the
same address check.

:func:`blocked_reason` says why an address must not be connected to (loopback, private,
link-local, multicast, reserved, unspecified, shared/CGNAT, cloud metadata, IPv4-mapped or
-compatible IPv6, and 6to4 / Teredo / NAT64 addresses that embed a blocked IPv4 address),
or returns None for a public address. ``permit`` lifts the block for exact networks; it is
a test setting (the acceptance tests serve pages on 127.0.0.1) and never covers the cloud
metadata addresses.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from citewise.errors import UrlRefused

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: Addresses of cloud instance-metadata services: never reachable, whatever is permitted.
METADATA = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
#: Named explicitly (besides ``ipaddress``'s flags) so an older Python's tables cannot
#: open any of them.
_BLOCKED_NETS: tuple[tuple[Network, str], ...] = tuple(
    (ipaddress.ip_network(net), why)
    for net, why in (
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared address space (CGNAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::ffff:0:0/96", "IPv4-mapped IPv6"),
        ("::/96", "IPv4-compatible IPv6"),
        ("64:ff9b:1::/48", "local NAT64"),
        ("100::/64", "discard-only"),
        ("2001:db8::/32", "documentation"),
        ("fc00::/7", "unique local (private)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_PORTS = {"http": 80, "https": 443}
_HOST_CHARS = re.compile(r"[a-z0-9.-]+")
_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)")


@dataclass(frozen=True, slots=True)
class Target:
    """A URL the fetcher may try: ``host`` is a lower-case name or a normalised IP."""

    scheme: str
    host: str
    port: int
    target: str  # path and query, as sent on the request line
    ip: IPAddress | None  # the host when it is an address literal

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = _PORTS[self.scheme] == self.port
        return f"{self.scheme}://{host}{'' if default else f':{self.port}'}{self.target}"


def parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """``host`` as IPv4 in any ``inet_aton`` spelling (1-4 parts, each decimal, octal with a
    leading 0, or hex with 0x), or None when its last label is not numeric. A numeric last
    label that does not make an address is refused (as browsers do)."""
    labels = host.split(".")
    if labels and labels[-1] == "" and len(labels) > 1:
        labels.pop()  # one trailing dot
    if not labels or _NUMERIC_LABEL.fullmatch(labels[-1]) is None:
        return None
    if len(labels) > 4 or any(_NUMERIC_LABEL.fullmatch(x) is None for x in labels):
        raise UrlRefused(f"The host {host!r} looks like an IP address but is not a valid one.")
    values = []
    for label in labels:
        if label.startswith("0x"):
            values.append(int(label[2:] or "0", 16))
        elif len(label) > 1 and label.startswith("0"):
            if any(c in "89" for c in label):
                raise UrlRefused(f"The host {host!r} has an invalid octal part {label!r}.")
            values.append(int(label, 8))
        else:
            values.append(int(label))
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        raise UrlRefused(f"The host {host!r} is out of the IPv4 range.")
    number = last
    for i, v in enumerate(head):
        number += v << (8 * (3 - i))
    return ipaddress.IPv4Address(number)


def parse_target(url: str) -> Target:
    """Read ``url`` into a :class:`Target`, or raise :class:`UrlRefused` saying why."""
    if not isinstance(url, str) or not url or len(url) > 4096:
        raise UrlRefused("The URL is empty or longer than 4096 characters.")
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in url) or "\\" in url:
        raise UrlRefused(f"The URL {url[:200]!r} contains spaces, control characters or '\\'.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UrlRefused(f"The URL {url[:200]!r} is malformed: {exc}.") from None
    scheme = parts.scheme.lower()
    if scheme not in _PORTS:
        raise UrlRefused(
            f"The URL scheme {scheme or '(none)'!r} is not allowed; use http or https."
        )
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise UrlRefused("The URL carries credentials (user:password@); remove them.")
    raw = parts.netloc.rsplit(":", 1)[0] if port is not None else parts.netloc
    host, ip = _host(raw)
    if port == 0:
        raise UrlRefused("Port 0 is not a port; name a real one.")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme, host, port or _PORTS[scheme], target, ip)


def _host(raw: str) -> tuple[str, IPAddress | None]:
    if raw.startswith("["):
        if not raw.endswith("]") or "%" in raw:
            raise UrlRefused(f"The IPv6 host {raw!r} is malformed or has a zone id.")
        try:
            v6 = ipaddress.IPv6Address(raw[1:-1])
        except ValueError:
            raise UrlRefused(f"The host {raw!r} is not a valid IPv6 address.") from None
        return v6.compressed, v6
    try:
        host = raw.encode("idna").decode("ascii").lower() if raw else ""
    except UnicodeError:
        raise UrlRefused(f"The host {raw!r} is not a valid domain name.") from None
    if host.endswith("."):
        host = host[:-1]
    if not host or _HOST_CHARS.fullmatch(host) is None or ".." in host:
        raise UrlRefused(f"The host {raw!r} is not a valid domain name.")
    v4 = parse_ipv4(host)
    if v4 is not None:
        return str(v4), v4
    return host, None


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a 6to4, Teredo (client) or NAT64 address carries, if any."""
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def blocked_reason(ip: IPAddress, permit: Iterable[Network] = ()) -> str | None:
    """Why ``ip`` must not be connected to, or None. ``permit`` (tests) lifts the block
    for the networks named, except for cloud metadata addresses."""
    if ip in METADATA:
        return "cloud metadata service"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped in METADATA:
        return "cloud metadata service"
    if any(ip.version == net.version and ip in net for net in permit):
        return None
    for net, why in _BLOCKED_NETS:
        if ip.version == net.version and ip in net:
            return why
    if isinstance(ip, ipaddress.IPv6Address):
        inner = embedded_ipv4(ip)
        inner_why = blocked_reason(inner) if inner is not None else None
        if inner_why is not None:
            return f"IPv6 embedding a {inner_why} IPv4 address"
    if ip.is_multicast:
        return "multicast"
    if ip.is_loopback or ip.is_link_local or ip.is_unspecified:
        return "loopback, link-local or unspecified"
    if ip.is_private or ip.is_reserved or not ip.is_global:
        return "private or reserved"
    return None


def host_allowed(host: str, allowlist: Iterable[str]) -> bool:
    """Whether ``host`` is one of ``allowlist`` or a subdomain of one."""
    host = host.lower().rstrip(".")
    for entry in allowlist:
        e = entry.lower().strip().rstrip(".")
        if e and (host == e or host.endswith("." + e)):
            return True
    return False
