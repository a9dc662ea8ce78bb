"""Web search for a clause: the provider protocol, the SearXNG JSON implementation, and
the outbound query.

The query is built from a :class:`~citewise.web.refs.ClauseRef` and at most three key terms
of the *regulation's* text (the cited clause), never from the user's question: the
question may be confidential, the regulation's words are public. It is recorded exactly as
sent. Results are kept only when their URL is a plain http(s) URL on an allowlisted host
(the host or a subdomain of it); a result's snippet is kept for the record but is never
evidence (see :mod:`citewise.web.snapshot`).

The search engine's own URL is operator configuration (a self-hosted SearXNG is usually on a
private address), so it is reached with a plain httpcore connection (no environment proxies,
no redirects, capped size, one deadline for the whole answer: :mod:`.deadline`); the pages
it points to go through the SSRF-safe fetcher.
"""

from __future__ import annotations

import base64
import json
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

import httpcore
import httpx
from wordfreq import zipf_frequency

from citewise.errors import SearchUnavailable, UrlRefused
from citewise.web.addresses import host_allowed, parse_target
from citewise.web.compare import tokens
from citewise.web.deadline import DeadlineBackend
from citewise.web.refs import ClauseRef

MAX_TERMS = 3


@dataclass(frozen=True, slots=True)
class SearchHit:
    url: str
    title: str
    snippet: str


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    engine: str
    query: str  # exactly as sent
    hits: tuple[SearchHit, ...]  # allowlisted only, in engine order
    dropped: tuple[str, ...] = field(default=())  # result URLs not on the allowlist

    def to_json(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "query": self.query,
            "hits": [{"url": h.url, "title": h.title, "snippet": h.snippet} for h in self.hits],
            "dropped": list(self.dropped),
        }


class SearchProvider(Protocol):
    def search(self, query: str) -> SearchOutcome:
        """Allowlisted results for ``query``, or :class:`SearchUnavailable`."""


def key_terms(clause_text: str, limit: int = MAX_TERMS) -> list[str]:
    """The rarest English words (by word frequency) of the clause text, at most ``limit``,
    in text order: enough to tell the clause's page from its neighbours."""
    words = [w for w in dict.fromkeys(tokens(clause_text)) if w.isalpha() and len(w) >= 4]
    rare = sorted(words, key=lambda w: (zipf_frequency(w, "en"), w))[:limit]
    return [w for w in words if w in rare]


def clause_query(ref: ClauseRef, terms: Sequence[str] = ()) -> str:
    """``"12 CFR 1002" "1002.4(b)" 2017 discourage applicant``: the minimal terms."""
    parts = [f'"{ref.regulation}"', f'"{ref.clause_path}"']
    if ref.edition:
        parts.append(ref.edition)
    parts.extend(terms[:MAX_TERMS])
    return " ".join(parts)


class SearxngSearch:
    """A SearXNG instance's ``/search?format=json`` (the engine needs ``json`` among its
    ``search.formats``)."""

    def __init__(
        self,
        url: str,
        allowed_hosts: Sequence[str],
        *,
        timeout: float = 10.0,
        max_bytes: int = 1_000_000,
        max_results: int = 5,
    ) -> None:
        base = url.rstrip("/")
        self.endpoint = base if base.endswith("/search") else base + "/search"
        #: What the record names: the endpoint without any user:password@ part.
        self.engine = _without_credentials(self.endpoint)
        self.allowed = tuple(allowed_hosts)
        self._timeout, self._max_bytes, self._max_results = timeout, max_bytes, max_results

    def search(self, query: str) -> SearchOutcome:
        """One request with one overall deadline (``timeout`` seconds for the connect,
        the headers and the whole body together: :mod:`.deadline`)."""
        try:
            url = httpx.URL(self.endpoint, params={"q": query, "format": "json", "safesearch": "0"})
        except httpx.InvalidURL as exc:
            raise SearchUnavailable(
                f"The search engine URL {self.engine} is not usable ({exc}).",
                hint="Fix CITEWISE_WEB_SEARCH_URL.",
            ) from None
        pool = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(),
            network_backend=DeadlineBackend(time.monotonic() + self._timeout),
            max_connections=1,
            retries=0,
        )
        target = httpcore.URL(
            scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
        )
        wait = {"timeout": {"connect": self._timeout, "read": self._timeout}}
        try:
            with pool, pool.stream("GET", target, headers=_headers(url), extensions=wait) as r:
                if r.status != 200:
                    raise SearchUnavailable(
                        f"The search engine at {self.engine} answered HTTP {r.status}.",
                        hint="Check CITEWISE_WEB_SEARCH_URL and that JSON output is enabled.",
                    )
                body = b""
                for chunk in r.iter_stream():
                    body += chunk
                    if len(body) > self._max_bytes:
                        raise SearchUnavailable(
                            f"The search answer is over {self._max_bytes} bytes."
                        )
        except httpcore.TimeoutException:
            raise SearchUnavailable(
                f"The search engine at {self.engine} did not answer within {self._timeout:g} s.",
                hint="Start it or make it faster, raise CITEWISE_WEB_TIMEOUT, "
                "or run without --verify-web.",
            ) from None
        except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as e:
            raise SearchUnavailable(
                f"The search engine at {self.engine} did not answer ({type(e).__name__}).",
                hint="Start it, or run without --verify-web.",
            ) from None
        return self._parse(query, body)

    def _parse(self, query: str, body: bytes) -> SearchOutcome:
        try:
            doc = json.loads(body)
            results = doc["results"]
            if not isinstance(results, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise SearchUnavailable(
                f"The search engine at {self.engine} did not return SearXNG JSON.",
                hint="Enable 'json' in the instance's search.formats setting.",
            ) from None
        hits: list[SearchHit] = []
        dropped: list[str] = []
        for item in results:
            if not isinstance(item, dict):
                continue
            url = str(item.get("url", ""))
            if self._allowed(url) and len(hits) < self._max_results:
                hits.append(
                    SearchHit(url, str(item.get("title", "")), str(item.get("content", "")))
                )
            elif url:
                dropped.append(url)
        return SearchOutcome(self.engine, query, tuple(hits), tuple(dropped))

    def _allowed(self, url: str) -> bool:
        try:
            target = parse_target(url)
        except UrlRefused:
            return False
        return host_allowed(target.host, self.allowed)


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, ""))


def _headers(url: httpx.URL) -> list[tuple[bytes, bytes]]:
    """The request's headers; an engine URL's ``user:password@`` becomes Basic auth."""
    headers = [(b"Accept", b"application/json"), (b"Accept-Encoding", b"identity")]
    if url.username or url.password:
        pair = f"{url.username}:{url.password}".encode()
        headers.append((b"Authorization", b"Basic " + base64.b64encode(pair)))
    return headers
