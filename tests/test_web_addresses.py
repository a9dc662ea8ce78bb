"""Property tests of the URL / address checker (no network)."""

from __future__ import annotations

import ipaddress
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.errors import UrlRefused
from citewise.web.addresses import blocked_reason, host_allowed, parse_ipv4, parse_target

pytestmark = pytest.mark.fuzz
EXAMPLES = int(os.environ.get("CITEWISE_FUZZ_EXAMPLES", "300"))
BLOCKED_V4 = [
    ipaddress.ip_network(n)
    for n in ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
              "172.16.0.0/12", "192.168.0.0/16", "224.0.0.0/4", "240.0.0.0/4")
]  # fmt: skip


def spellings(n: int) -> list[str]:
    """The ways ``inet_aton`` (and browsers) accept to write the IPv4 address ``n``."""
    b = n.to_bytes(4, "big")
    return [
        str(n),
        hex(n),
        "0" + oct(n)[2:],
        ".".join(str(x) for x in b),
        ".".join(hex(x) for x in b),
        ".".join("0" + oct(x)[2:] for x in b),
        f"{b[0]}.{b[1]}.{int.from_bytes(b[2:], 'big')}",
        f"{b[0]}.{int.from_bytes(b[1:], 'big')}",
        f"{hex(b[0])}.{int.from_bytes(b[1:], 'big'):#x}",
    ]


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_spelling_is_the_same_address(n: int) -> None:
    want = ipaddress.IPv4Address(n)
    for s in spellings(n):
        assert parse_ipv4(s) == want, s
        assert parse_target(f"http://{s}/x").host == str(want)


@st.composite
def blocked_ints(draw: st.DrawFn) -> int:
    net = draw(st.sampled_from(BLOCKED_V4))
    return int(net.network_address) + draw(st.integers(0, net.num_addresses - 1))


@settings(max_examples=EXAMPLES, deadline=None)
@given(blocked_ints(), st.data())
def test_blocked_v4_is_blocked_in_every_spelling_and_v6_form(n: int, data: st.DataObject) -> None:
    v4 = ipaddress.IPv4Address(n)
    spelled = data.draw(st.sampled_from(spellings(n)))
    target = parse_target(f"https://{spelled}:8443/p")
    assert target.ip is not None and blocked_reason(target.ip) is not None
    for v6 in (
        ipaddress.IPv6Address(f"::ffff:{v4}"),
        ipaddress.IPv6Address(int(v4)),  # IPv4-compatible
        ipaddress.IPv6Address((0x2002 << 112) | (n << 80)),  # 6to4
        ipaddress.IPv6Address((0x20010000 << 96) | (n ^ 0xFFFFFFFF)),  # Teredo client
        ipaddress.IPv6Address(f"64:ff9b::{v4}"),  # NAT64
    ):
        assert blocked_reason(v6) is not None, v6
        assert blocked_reason(parse_target(f"http://[{v6}]/").ip) is not None  # type: ignore[arg-type]


URLISH = st.lists(
    st.sampled_from([*"abcxyz019:/@.[]%?#-_ \\\t\x00é", "0x", "::", "http://", "https://"]),
    max_size=25,
).map("".join)


@settings(max_examples=EXAMPLES * 3, deadline=None)
@given(st.one_of(URLISH, st.builds(lambda a, b: f"http://{a}/{b}", URLISH, URLISH), st.text()))
def test_parse_target_refuses_or_returns_a_clean_target(url: str) -> None:
    try:
        t = parse_target(url)
    except UrlRefused:
        return
    assert t.scheme in ("http", "https")
    assert "@" not in t.host and "%" not in t.host and 0 < t.port < 65536
    assert re.fullmatch(r"[a-z0-9.\-]+|[0-9a-f:.]+", t.host), t.host
    if t.ip is None:
        assert parse_ipv4(t.host) is None  # a name, never an address in disguise
    assert parse_target(t.url) == t  # stable: what is checked is what is requested


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.ip_addresses())
def test_blocked_reason_agrees_with_the_standard_flags(ip: ipaddress.IPv4Address) -> None:
    why = blocked_reason(ip)
    if ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast:
        assert why is not None
    if why is None:
        assert ip.is_global


def test_allowlist_matches_hosts_and_subdomains_only() -> None:
    allow = ["ecfr.gov", "www.consumerfinance.gov"]
    assert host_allowed("ecfr.gov", allow) and host_allowed("www.ecfr.gov", allow)
    assert not host_allowed("ecfr.gov.evil.test", allow)
    assert not host_allowed("notecfr.gov", allow)
    assert not host_allowed("consumerfinance.gov", allow)
