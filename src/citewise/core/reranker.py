"""The ``Reranker`` protocol: what the rerank stage (:mod:`citewise.recall.rerank`) scores
with and what the index manager holds for it; its backends live in ``recall/``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, document) pairs; higher is more relevant. Scores are only compared
    with each other and with the configured threshold, on the backend's own scale."""

    @property
    def name(self) -> str: ...

    @property
    def fingerprint(self) -> str:
        """Stable id of the model and every setting that changes the scores."""
        ...

    def score(self, query: str, documents: Sequence[str], *, timeout: float) -> list[float]:
        """One score per document, in order. Raises :class:`RerankTimedOut` past ``timeout``
        seconds and :class:`RerankFailed` for any other failure."""
        ...
