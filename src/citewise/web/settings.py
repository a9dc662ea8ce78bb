"""Configuration of the web second source: off unless asked for, and then from the environment.

``CITEWISE_WEB_SEARCH_URL``: the SearXNG instance (``http://searx.internal:8888``);
``CITEWISE_WEB_ALLOWED_HOSTS``: comma-separated authoritative hosts (``ecfr.gov,
federalregister.gov``); a page on any other host is never fetched. Optional:
``CITEWISE_WEB_MAX_PAGES`` (pages fetched per clause, default 3), ``CITEWISE_WEB_TIMEOUT``
(seconds per page, default 15), ``CITEWISE_WEB_MAX_BYTES`` (default 2000000).

There is deliberately no setting that lifts the private-address block of the fetcher:
only code (the tests) can pass ``FetchPolicy(permit=...)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from citewise.errors import UsageError, WebNotConfigured
from citewise.web.fetcher import FetchPolicy, SafeFetcher
from citewise.web.search import SearxngSearch
from citewise.web.snapshot import SnapshotStore
from citewise.web.verify import WebVerifier

URL_ENV = "CITEWISE_WEB_SEARCH_URL"
HOSTS_ENV = "CITEWISE_WEB_ALLOWED_HOSTS"
T = TypeVar("T", int, float)


@dataclass(frozen=True, slots=True)
class WebSettings:
    search_url: str
    allowed_hosts: tuple[str, ...]
    max_pages: int = 3
    timeout: float = 15.0
    max_bytes: int = 2_000_000

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> WebSettings:
        url = env.get(URL_ENV, "").strip()
        hosts = tuple(h.strip().lower() for h in env.get(HOSTS_ENV, "").split(",") if h.strip())
        if not url or not hosts:
            raise WebNotConfigured(
                "Web verification needs a search engine and an allowlist of hosts.",
                hint=f"Set {URL_ENV} (a SearXNG URL) and {HOSTS_ENV} (e.g. ecfr.gov), "
                "or run without --verify-web. See docs/regulations.md.",
            )
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"{URL_ENV}={url!r} is not an http(s) URL.", hint="Fix the URL.")
        return cls(
            url,
            hosts,
            max_pages=_number(env, "CITEWISE_WEB_MAX_PAGES", 3, int),
            timeout=_number(env, "CITEWISE_WEB_TIMEOUT", 15.0, float),
            max_bytes=_number(env, "CITEWISE_WEB_MAX_BYTES", 2_000_000, int),
        )


def _number(env: Mapping[str, str], var: str, default: T, kind: type[T]) -> T:
    raw = env.get(var, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = kind(0)
    if value <= 0:
        raise UsageError(f"{var}={raw!r} is not a positive number.", hint=f"Unset {var}.")
    return value


def open_verifier(settings: WebSettings, home: Path) -> WebVerifier:
    """The real verifier: SearXNG search, the SSRF-safe fetcher, snapshots under the home."""
    policy = FetchPolicy(
        timeout=settings.timeout,
        max_bytes=settings.max_bytes,
        allowed_hosts=settings.allowed_hosts,
    )
    return WebVerifier(
        SearxngSearch(settings.search_url, settings.allowed_hosts, timeout=settings.timeout),
        SafeFetcher(policy),
        SnapshotStore(home / "web" / "snapshots"),
        max_pages=settings.max_pages,
    )
