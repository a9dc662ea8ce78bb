"""A reranker behind the ``/rerank`` endpoint of a self-hosted inference server.

Request: ``{"query": ..., "documents": [...], "top_n": N}`` (Cohere, Jina, vLLM, Infinity)
or, with ``field="texts"``, ``{"query": ..., "texts": [...]}`` (Hugging Face's
text-embeddings-inference); ``"model"`` is added when configured. Reply: either
``{"results": [{"index": i, "relevance_score": s}, ...]}`` or a bare list of
``{"index": i, "score": s}``; either score key is read in either shape. Every
document must come back exactly once. Failures raise :class:`RerankFailed` (or
:class:`RerankTimedOut`) with the status and a short reason, never the key.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from citewise.core.secrets import public_url, redact, url_secrets
from citewise.errors import RerankFailed, RerankTimedOut
from citewise.index.embedder import fingerprint_of

#: Keys under which servers put the list of results.
_RESULT_KEYS = ("results", "data", "rerank")
_SCORE_KEYS = ("relevance_score", "score")


def rerank_url(location: str) -> str:
    """``location`` itself, or ``<location>/rerank`` when it names only the server."""
    path = urlsplit(location).path
    return location if path.rstrip("/") else location.rstrip("/") + "/rerank"


class HttpReranker:
    """POSTs the pool to a ``/rerank`` endpoint (one request per search)."""

    def __init__(
        self,
        location: str,
        *,
        model: str = "",
        field: str = "documents",
        key_env: str = "CITEWISE_RERANK_API_KEY",
    ) -> None:
        if field not in ("documents", "texts"):
            raise ValueError("field must be 'documents' or 'texts'")
        self.url = rerank_url(location)
        self.model = model
        self.field = field
        self._key = os.environ.get(key_env, "") if key_env else ""
        self._secrets = [s for s in (self._key,) if s] + url_secrets(self.url)
        shown = redact(public_url(self.url), self._secrets)
        self._shown = shown
        self._fingerprint = fingerprint_of(
            {"model": model or "http-reranker", "package": "http", "url": shown, "field": field}
        )

    @property
    def name(self) -> str:
        return f"http reranker {self.model or ''} at {self._shown}".replace("  ", " ")

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def score(self, query: str, documents: Sequence[str], *, timeout: float) -> list[float]:
        body: dict[str, Any] = {"query": query, self.field: list(documents)}
        if self.field == "documents":
            body["top_n"] = len(documents)
        if self.model:
            body["model"] = self.model
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        try:
            resp = httpx.post(self.url, json=body, headers=headers, timeout=timeout)
        except httpx.TimeoutException:
            raise RerankTimedOut(f"{self._shown} gave no answer within {timeout:g}s") from None
        except httpx.HTTPError as exc:
            why = redact(f"{type(exc).__name__}: {exc}", self._secrets)
            raise RerankFailed(f"{self._shown} is unreachable ({why})") from None
        if resp.status_code >= 400:
            detail = redact(resp.text[:160].strip(), self._secrets)
            raise RerankFailed(f"HTTP {resp.status_code} from {self._shown}: {detail!r}")
        try:
            payload = json.loads(resp.content)
        except (ValueError, UnicodeDecodeError):
            raise RerankFailed(f"{self._shown} replied with a body that is not JSON") from None
        return parse_scores(payload, len(documents), self._shown)


def parse_scores(payload: Any, count: int, source: str = "the reranker") -> list[float]:
    """Scores in request order from a rerank reply (either common shape)."""
    items = payload
    if isinstance(payload, dict):
        items = next((payload[k] for k in _RESULT_KEYS if k in payload), None)
    if not isinstance(items, list):
        raise RerankFailed(f"{source} replied without a results list")
    scores: dict[int, float] = {}
    for item in items:
        if not isinstance(item, dict):
            raise RerankFailed(f"{source} replied with a result that is not an object")
        index = item.get("index")
        value = next((item[k] for k in _SCORE_KEYS if k in item), None)
        if (
            not isinstance(index, int)
            or isinstance(index, bool)
            or not 0 <= index < count
            or index in scores
        ):
            raise RerankFailed(f"{source} replied with a bad or repeated index {index!r}")
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise RerankFailed(f"{source} replied without a numeric score for index {index}")
        scores[index] = float(value)
    if len(scores) != count:
        raise RerankFailed(f"{source} scored {len(scores)} of {count} documents")
    return [scores[i] for i in range(count)]
