"""BM25 over postings read from the database (issue 37): a server that holds no corpus.

:class:`DbLexical` answers :meth:`~citewise.index.lexical.LexicalIndex.search_tokens` with
the same scores as the in-process index, from the store's ``term_posting`` rows
(:mod:`citewise.store.postgres.lexical`): the candidates are the live chunks holding a query
term, read through the database's term index, and BM25 is evaluated here on that set.
The candidate set is exactly the union of the query terms' postings, so each term's
document frequency is counted on it without a statistics table; N and the total length come
from one aggregate query, kept per store generation (a write anywhere bumps it, so a server
sees it on its next search).

Choice (measured, docs/scaling.md "Lexical retrieval in PostgreSQL"): scoring over the
candidate set in the server, rather than in SQL, keeps the arithmetic of
:func:`citewise.index.segment.bm25_scores` (float32 term weights, float64 sums in the same
order), so scores equal the in-process index's bit for bit, not only within a tolerance.

Access: with ``population`` (the chunk ids a caller may read) the postings are read only
for those chunks (authorization inside the SQL query, before ranking) and N, the average
length and document frequencies are that population's, as :class:`~.lexical.Population`
gives in process. ``allowed`` narrows the ranked chunks further without changing statistics.
Ties go to the smaller chunk id (the in-process index: the earlier slot).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Protocol

import numpy as np

from citewise.analysis.tokenize import tokenize
from citewise.index.lexical import DEFAULT_B, DEFAULT_K1, LexicalHit
from citewise.store.postgres.lexical import Posting


class LexicalReads(Protocol):
    """What :class:`DbLexical` reads from a store (``PostgresStore`` provides it)."""

    def lexical_postings(
        self, kb: str, terms: Collection[str], allowed: Collection[str] | None = None
    ) -> list[Posting]: ...

    def lexical_stats(
        self, kb: str, population: Collection[str] | None = None
    ) -> tuple[int, float]: ...

    def generation(self, kb: str) -> str: ...


def bm25_over_postings(
    postings: Sequence[Posting],
    tokens: Sequence[str],
    n_live: int,
    total_length: float,
    k1: float = DEFAULT_K1,
    b: float = DEFAULT_B,
) -> dict[str, float]:
    """Lucene-variant BM25 of every chunk in ``postings`` for query ``tokens``, with the
    arithmetic of :func:`citewise.index.segment.bm25_scores` (``postings`` must hold every
    posting of the query's terms in the scored population: df is counted on them)."""
    slot: dict[str, int] = {}
    lengths: list[float] = []
    by_term: dict[str, tuple[list[int], list[float]]] = {}
    for p in postings:
        i = slot.setdefault(p.chunk_id, len(slot))
        if i == len(lengths):
            lengths.append(p.length)
        docs, tfs = by_term.setdefault(p.term, ([], []))
        docs.append(i)
        tfs.append(p.tf)
    if not slot:
        return {}
    avgdl = (total_length / n_live if n_live else 0.0) or 1.0
    doc_len = np.asarray(lengths, dtype=np.float32)
    norm = (k1 * (1.0 - b + b * doc_len / avgdl)).astype(np.float32)
    all_docs: list[np.ndarray] = []
    contribs: list[np.ndarray] = []
    for term, qtf in Counter(tokens).items():
        found = by_term.get(term)
        if not found:
            continue
        d = np.asarray(found[0], dtype=np.int32)
        tf = np.asarray(found[1], dtype=np.float32)
        df = len(d)
        weight = qtf * math.log(1.0 + (n_live - df + 0.5) / (df + 0.5))
        contribs.append(weight * tf / (tf + norm[d]))
        all_docs.append(d)
    if not all_docs:
        return {}
    scores = np.bincount(np.concatenate(all_docs), weights=np.concatenate(contribs))
    ids = list(slot)
    return {ids[i]: float(s) for i, s in enumerate(scores.tolist())}


def top_hits(scores: dict[str, float], k: int, allowed: Collection[str] | None) -> list[LexicalHit]:
    """The ``k`` best positive scores among ``allowed`` (None: all), best first, ties by id."""
    ranked = sorted(
        ((c, s) for c, s in scores.items() if s > 0 and (allowed is None or c in allowed)),
        key=lambda cs: (-cs[1], cs[0]),
    )
    return [LexicalHit(c, s) for c, s in ranked[:k]]


class DbLexical:
    """Lexical retrieval of one KB done by the database; safe to share between threads."""

    def __init__(
        self, store: LexicalReads, kb: str, *, k1: float = DEFAULT_K1, b: float = DEFAULT_B
    ) -> None:
        self.store, self.kb, self.k1, self.b = store, kb, k1, b
        self._stats: tuple[str, tuple[int, float]] = ("", (0, 0.0))
        self._lock = threading.Lock()

    def stats(self, population: Collection[str] | None = None) -> tuple[int, float]:
        """(N, total length) of the live chunks (of ``population``); the whole KB's are
        kept until the store's generation changes (one cheap counter read per search)."""
        if population is not None:
            return self.store.lexical_stats(self.kb, population)
        generation = self.store.generation(self.kb)
        with self._lock:
            if self._stats[0] == generation:
                return self._stats[1]
        got = self.store.lexical_stats(self.kb)
        with self._lock:
            self._stats = (generation, got)
        return got

    def search(
        self, query: str, k: int = 10, allowed: Collection[str] | None = None
    ) -> list[LexicalHit]:
        return self.search_tokens(tokenize(query), k, allowed)

    def search_tokens(
        self,
        tokens: Sequence[str],
        k: int = 10,
        allowed: Collection[str] | None = None,
        population: Collection[str] | None = None,
    ) -> list[LexicalHit]:
        """Top ``k`` live chunks for query ``tokens`` among ``allowed``, scored with the
        statistics of ``population`` (None: every live chunk), as the in-process index."""
        if isinstance(allowed, str) or isinstance(population, str):
            raise TypeError("allowed and population are collections of chunk ids, not one id")
        if k <= 0 or not tokens:
            return []
        n, total = self.stats(population)
        postings = self.store.lexical_postings(self.kb, tokens, population)
        scores = bm25_over_postings(postings, tokens, n, total, self.k1, self.b)
        return top_hits(scores, k, allowed)

    def document_frequency(self, term: str, population: Collection[str] | None = None) -> int:
        """How many live chunks (of ``population``) hold index term ``term``."""
        return len({p.chunk_id for p in self.store.lexical_postings(self.kb, [term], population)})
