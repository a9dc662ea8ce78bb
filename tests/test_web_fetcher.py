"""The SSRF-safe fetcher against real HTTP on 127.0.0.1, with a socket-layer capture.

Loopback is reachable only through ``FetchPolicy(permit=...)``, the explicit test setting;
the default policy refuses it (``test_default_policy_refuses_loopback``). The ``sockets``
fixture records every TCP connect the process makes while a test runs, so each refusal is
also shown to have sent nothing.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.errors import (
    AddressBlocked,
    ContentTypeRefused,
    FetchFailed,
    FetchTimeout,
    FetchTooLarge,
    TooManyRedirects,
    UrlRefused,
)
from citewise.web.addresses import blocked_reason
from citewise.web.fetcher import FetchPolicy, SafeFetcher
from tests._web_hosts import ENDLESS, Raw, Route, html_page, self_signed, slow_body, web_host

LOOPBACK = (ipaddress.ip_network("127.0.0.1/32"),)
TEST = FetchPolicy(permit=LOOPBACK, timeout=5.0)


@pytest.fixture
def sockets(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """Every address a socket connects to (``connect``, ``connect_ex``, ``create_connection``)."""
    seen: list[tuple[str, int]] = []
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_create = socket.create_connection

    def connect(self: socket.socket, address: object) -> None:
        seen.append(_addr(address))
        real_connect(self, address)  # type: ignore[arg-type]

    def connect_ex(self: socket.socket, address: object) -> int:
        seen.append(_addr(address))
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    def create_connection(address: tuple[str, int], *a: object, **k: object) -> socket.socket:
        seen.append(_addr(address))
        return real_create(address, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    yield seen


def _addr(address: object) -> tuple[str, int]:
    if isinstance(address, tuple):
        return str(address[0]), int(address[1])
    return str(address), 0


def _only_loopback(seen: list[tuple[str, int]], port: int | None = None) -> None:
    assert seen, "the capture saw no connection at all"  # the capture works
    for host, p in seen:
        assert ipaddress.ip_address(host) == ipaddress.ip_address("127.0.0.1"), seen
        assert port is None or p == port


def _resolver(table: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    calls: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return list(table[host])

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


BLOCKED_URLS = [
    "http://127.0.0.1/",
    "http://2130706433/",  # decimal
    "http://0x7f000001/",  # hex
    "http://0177.0.0.1/",  # octal
    "http://0x7f.1/",  # two-part hex
    "http://127.1/",  # short form
    "http://017700000001/",  # octal whole
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",  # CGNAT
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata
    "http://0xa9fea9fe/",  # metadata in hex
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:a9fe:a9fe]/",  # mapped metadata
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[fe80::1]/",
    "http://[ff02::1]/",
    "http://[fd00:ec2::254]/",  # AWS IPv6 metadata
    "http://[fc00::5]/",
    "http://[2002:c0a8:101::1]/",  # 6to4 of 192.168.1.1
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",  # Teredo, client 10.0.0.1
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
]


@pytest.mark.parametrize("url", BLOCKED_URLS)
def test_blocked_addresses_are_never_connected(url: str, sockets: list[tuple[str, int]]) -> None:
    fetcher = SafeFetcher(FetchPolicy(), resolver=_resolver({}))
    with pytest.raises(AddressBlocked):
        fetcher.fetch(url)
    assert sockets == []


def test_spellings_normalise_to_one_address() -> None:
    from citewise.web.addresses import parse_target

    hosts = {
        parse_target(u).host
        for u in ("http://2130706433/", "http://0x7f000001/", "http://0177.0.0.1/",
                  "http://127.1/", "http://0x7f.0.0.1/", "http://127.0.0.1./")
    }  # fmt: skip
    assert hosts == {"127.0.0.1"}


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/",
        "file:///etc/passwd",
        "gopher://example.org/",
        "http://user:pw@example.org/",
        "http://user@example.org/",
        "http://exa mple.org/",
        "http://example.org\\@evil.test/",
        "http://[fe80::1%25eth0]/",
        "http://256.1.1.1/",
        "http://1.2.3.4.5/",
        "http://08.0.0.1/",
        "http:///nohost",
        "http://evil.example.127.0.0.1/",  # numeric last label: an address or nothing
    ],
)
def test_refused_urls(url: str, sockets: list[tuple[str, int]]) -> None:
    with pytest.raises(UrlRefused):
        SafeFetcher(TEST, resolver=_resolver({})).fetch(url)
    assert sockets == []


def test_default_policy_refuses_loopback(sockets: list[tuple[str, int]]) -> None:
    with web_host({"/p": Route(html_page("t", "hello"))}) as host:
        with pytest.raises(AddressBlocked, match="loopback"):
            SafeFetcher().fetch(host.url("/p"))
        assert host.seen == []
    assert sockets == []


@pytest.mark.parametrize(
    "answers", [["10.0.0.5"], ["93.184.216.34", "127.0.0.2"], ["fd12::1"], ["::ffff:10.0.0.1"]]
)
def test_name_resolving_to_a_private_address(
    answers: list[str], sockets: list[tuple[str, int]]
) -> None:
    resolve = _resolver({"regs.example": answers})
    with pytest.raises(AddressBlocked, match=r"regs\.example"):
        SafeFetcher(FetchPolicy(), resolver=resolve).fetch("https://regs.example/cfr")
    assert sockets == []


def test_redirect_to_a_private_address_is_refused(sockets: list[tuple[str, int]]) -> None:
    with web_host() as host:
        host.routes["/a"] = Route(status=302, headers={"Location": "http://internal.test/admin"})
        host.routes["/b"] = Route(status=301, headers={"Location": "http://169.254.169.254/"})
        host.routes["/c"] = Route(status=307, headers={"Location": "http://[::ffff:10.0.0.1]/"})
        host.routes["/d"] = Route(status=302, headers={"Location": "http://0xa9fea9fe/"})
        host.routes["/e"] = Route(status=302, headers={"Location": "file:///etc/passwd"})
        host.routes["/f"] = Route(status=302, headers={"Location": "http://u:p@regs.test/"})
        resolve = _resolver({"internal.test": ["192.168.7.7"]})
        fetcher = SafeFetcher(TEST, resolver=resolve)
        for path in ("/a", "/b", "/c", "/d"):
            with pytest.raises(AddressBlocked):
                fetcher.fetch(host.url(path))
        for path in ("/e", "/f"):
            with pytest.raises(UrlRefused, match=r"scheme|credentials"):
                fetcher.fetch(host.url(path))
        assert [p for p, _ in host.seen] == ["/a", "/b", "/c", "/d", "/e", "/f"]
    _only_loopback(sockets, host.port)


def test_redirects_are_followed_and_capped(sockets: list[tuple[str, int]]) -> None:
    with web_host() as host:
        host.routes["/start"] = Route(status=302, headers={"Location": "/final"})
        host.routes["/final"] = Route(html_page("Final", "the text"))
        host.routes["/loop"] = Route(status=302, headers={"Location": "/loop"})
        fetcher = SafeFetcher(FetchPolicy(permit=LOOPBACK, max_redirects=3))
        page = fetcher.fetch(host.url("/start"))
        assert page.final_url == host.url("/final") and page.status == 200
        assert page.redirects == (host.url("/final"),)
        with pytest.raises(TooManyRedirects):
            fetcher.fetch(host.url("/loop"))
        assert [p for p, _ in host.seen].count("/loop") == 4
    _only_loopback(sockets, host.port)


def test_rebinding_cannot_switch_the_address(
    sockets: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The resolver answers loopback (permitted here) first and a private address on every
    later lookup: the fetcher looks up once and connects to the checked address, with the
    name in the Host header; the system resolver is never asked."""
    answers = iter([["127.0.0.1"]] + [["10.9.9.9"]] * 10)
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return next(answers)

    def no_system_lookup(host: object, *args: object, **kw: object) -> object:
        raise AssertionError(f"second lookup of {host!r}")

    with web_host({"/page": Route(html_page("t", "pinned"))}) as host:
        fetcher = SafeFetcher(TEST, resolver=rebinding)
        monkeypatch.setattr(socket, "getaddrinfo", _numeric_only(socket.getaddrinfo))
        page = fetcher.fetch(f"http://rebind.test:{host.port}/page")
        assert b"pinned" in page.body and page.address == "127.0.0.1"
        assert host.seen == [("/page", f"rebind.test:{host.port}")]
    assert calls == ["rebind.test"]
    _only_loopback(sockets, host.port)
    del no_system_lookup


def _numeric_only(real):  # type: ignore[no-untyped-def]
    def lookup(host: object, *args: object, **kw: object) -> object:
        try:
            ipaddress.ip_address(str(host))
        except ValueError:
            raise AssertionError(f"a name lookup of {host!r} while connecting") from None
        return real(host, *args, **kw)

    return lookup


def test_oversize_bodies(sockets: list[tuple[str, int]]) -> None:
    small = FetchPolicy(permit=LOOPBACK, max_bytes=10_000)
    with web_host(
        {"/big": Route(b"x" * 20_000, content_type="text/plain"), "/endless": ENDLESS}
    ) as h:
        with pytest.raises(FetchTooLarge, match="20000 bytes"):
            SafeFetcher(small).fetch(h.url("/big"))
        with pytest.raises(FetchTooLarge, match="more than"):
            SafeFetcher(small).fetch(h.url("/endless"))
    _only_loopback(sockets, h.port)


def test_slow_bodies_hit_the_deadline() -> None:
    """A trickling body: each chunk arrives in time, the whole does not (a fake clock
    that advances one second per reading makes this deterministic)."""
    ticks = iter(range(10_000))
    with web_host({"/slow": slow_body(chunks=50, delay=0.01)}) as h:
        fetcher = SafeFetcher(
            FetchPolicy(permit=LOOPBACK, timeout=5.0), clock=lambda: float(next(ticks))
        )
        with pytest.raises(FetchTimeout, match="too slowly"):
            fetcher.fetch(h.url("/slow"))


def test_a_silent_server_times_out() -> None:
    def silent(handler: object) -> None:
        import time

        time.sleep(1.5)

    with web_host({"/silent": Raw(silent)}) as h, pytest.raises(FetchTimeout):
        SafeFetcher(FetchPolicy(permit=LOOPBACK, timeout=0.5)).fetch(h.url("/silent"))


def test_content_types_and_statuses() -> None:
    with web_host() as h:
        h.routes["/bin"] = Route(b"\x00\x01", content_type="application/octet-stream")
        h.routes["/gone"] = Route(b"gone", status=410)
        h.routes["/ok"] = Route(b"plain text", content_type="text/plain; charset=ISO-8859-1")
        f = SafeFetcher(TEST)
        with pytest.raises(ContentTypeRefused, match="application/octet-stream"):
            f.fetch(h.url("/bin"))
        with pytest.raises(FetchFailed, match="410"):
            f.fetch(h.url("/gone"))
        page = f.fetch(h.url("/ok"))
        assert (page.content_type, page.charset, page.body) == (
            "text/plain",
            "iso-8859-1",
            b"plain text",
        )


def test_permit_never_opens_metadata() -> None:
    everything = (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))
    assert blocked_reason(ipaddress.ip_address("169.254.169.254"), everything) is not None
    assert blocked_reason(ipaddress.ip_address("fd00:ec2::254"), everything) is not None
    assert blocked_reason(ipaddress.ip_address("10.0.0.1"), everything) is None
    assert blocked_reason(ipaddress.ip_address("93.184.216.34")) is None
    assert blocked_reason(ipaddress.ip_address("2606:4700::6810:84e5")) is None


def test_https_uses_the_name_for_sni_and_the_certificate(
    tmp_path: Path, sockets: list[tuple[str, int]]
) -> None:
    """The connection goes to the checked IP, while TLS sends the host name as SNI and
    checks the certificate against the name: a name the certificate does not cover fails,
    although it resolves to the same address."""
    cert, key = self_signed("regs.test", tmp_path)
    ctx = ssl.create_default_context(cafile=str(cert))
    resolve = _resolver({"regs.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    with web_host({"/p": Route(html_page("t", "over tls"))}, tls=(cert, key)) as h:
        fetcher = SafeFetcher(TEST, resolver=resolve, ssl_context=ctx)
        page = fetcher.fetch(f"https://regs.test:{h.port}/p")
        assert b"over tls" in page.body and page.address == "127.0.0.1"
        assert h.sni == ["regs.test"] and h.seen == [("/p", f"regs.test:{h.port}")]
        with pytest.raises(FetchFailed):
            fetcher.fetch(f"https://other.test:{h.port}/p")
        assert h.sni[-1] == "other.test" and len(h.seen) == 1
    _only_loopback(sockets, h.port)


def test_an_allowlist_covers_every_hop(sockets: list[tuple[str, int]]) -> None:
    """With ``allowed_hosts`` a redirect off the allowlist is refused before any lookup."""
    resolve = _resolver({"regs.test": ["127.0.0.1"], "mirror.test": ["127.0.0.1"]})
    with web_host() as h:
        h.routes["/p"] = Route(status=302, headers={"Location": f"http://mirror.test:{h.port}/q"})
        h.routes["/q"] = Route(html_page("t", "mirror"))
        fetcher = SafeFetcher(
            FetchPolicy(permit=LOOPBACK, allowed_hosts=("regs.test",)), resolver=resolve
        )
        with pytest.raises(UrlRefused, match="allowlist"):
            fetcher.fetch(f"http://regs.test:{h.port}/p")
        assert [p for p, _ in h.seen] == ["/p"]
    assert resolve.calls == ["regs.test"]  # type: ignore[attr-defined]
    _only_loopback(sockets, h.port)
