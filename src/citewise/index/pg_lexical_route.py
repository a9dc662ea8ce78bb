"""The lexical route of a PostgreSQL-mode index, answered by the database (issue 37).

In PostgreSQL mode (``CITEWISE_PG_LEXICAL=db``, the default) a :class:`KBIndex` builds no
in-process BM25 index: its state's ``lexical`` is a :class:`StoredLexical`, which answers
the part of :class:`~citewise.index.lexical.LexicalIndex` that search, evidence and
sufficiency read (top-k search with a caller's population, document frequency, the number
of live chunks) through :class:`~citewise.index.db_lexical.DbLexical`: the postings stored
at ingest are read through the term index and scored here, equal to the in-process index.
Nothing is tokenized at sync, held per chunk, or saved to the index directory.
``CITEWISE_PG_LEXICAL=memory`` keeps the in-process index (today's path); SQLite mode and
the indexes of pinned revisions (a revision view, not a PostgreSQL store) always do.

Consistency: the database ranks its live chunks, which can be newer than the index state
a request holds (another server wrote since this one synced): hits are kept to the
state's chunks (``known``), so a pinned request never sees a chunk its state lacks; the
next sync publishes a state that knows them.

Populations: :meth:`StoredLexical.population` returns a :class:`StoredPopulation`, a
:class:`~citewise.index.lexical.Population` whose ``ids`` are the caller's readable chunk
ids and whose ``mask`` is empty (there are no slots); given back as ``population`` (and its
``mask`` as ``allowed``), the database restricts postings and statistics to those ids.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from citewise.analysis.tokenize import tokenize
from citewise.errors import UsageError
from citewise.index.db_lexical import DbLexical, LexicalReads
from citewise.index.lexical import Allowed, LexicalHit, LexicalIndex, Population

ENV = "CITEWISE_PG_LEXICAL"
Mode = Literal["db", "memory"]
#: ``db``: every existing PostgreSQL test passes with the database route (docs/scaling.md).
DEFAULT_MODE: Mode = "db"


def pg_lexical_mode(env: Mapping[str, str] | None = None) -> Mode:
    """``$CITEWISE_PG_LEXICAL`` (``db`` | ``memory``), :data:`DEFAULT_MODE` when unset."""
    raw = (os.environ if env is None else env).get(ENV, "").strip().lower()
    if not raw:
        return DEFAULT_MODE
    if raw == "db":
        return "db"
    if raw == "memory":
        return "memory"
    raise UsageError(
        f"{ENV}={raw!r} is neither db nor memory.",
        hint=f"Set {ENV}=db (BM25 over the database's postings) or memory (an in-process "
        "index built from the chunk table), or unset it for db.",
    )


def database_lexical(store: object, kb: str) -> DbLexical | None:
    """A :class:`DbLexical` over ``store`` when it is a PostgreSQL store and the setting is
    ``db``; None otherwise (the caller builds the in-process index)."""
    # a PostgreSQL store's module is imported before any of its stores exists
    module = sys.modules.get("citewise.store.postgres.store")
    if module is None or not isinstance(store, module.PostgresStore):
        return None
    if pg_lexical_mode() != "db":
        return None
    reads: LexicalReads = store
    return DbLexical(reads, kb)


class StoredPopulation(Population):
    """A caller's scoring population in the database route: its chunk ids (``ids``)."""

    ids: frozenset[str]


def _population(ids: frozenset[str], n: int) -> StoredPopulation:
    empty = np.zeros(0, dtype=np.float32)
    got = StoredPopulation(np.zeros(0, dtype=bool), n, (empty, empty), -1)
    got.ids = ids
    return got


class StoredLexical(LexicalIndex):
    """The lexical index of one state of a PostgreSQL-mode KB: reads, never writes.

    Subclasses :class:`LexicalIndex` for its read API only; every method a reader calls is
    overridden to go to the database (no segment is ever built)."""

    def __init__(self, db: DbLexical, known: Collection[str]) -> None:
        super().__init__(k1=db.k1, b=db.b)
        self.db = db
        self.known = frozenset(known)

    def _ids(self, population: Population | None) -> frozenset[str] | None:
        if population is None:
            return None
        if not isinstance(population, StoredPopulation):
            raise ValueError("a population of the in-process index, not of the database's")
        return population.ids

    def search(self, query: str, k: int = 10, allowed: Allowed = None) -> list[LexicalHit]:
        return self.search_tokens(tokenize(query), k, allowed)

    def search_tokens(
        self,
        tokens: Sequence[str],
        k: int = 10,
        allowed: Allowed = None,
        population: Population | None = None,
    ) -> list[LexicalHit]:
        """The database's top ``k`` among ``allowed`` and the state's chunks, scored with
        ``population``'s statistics (a population's empty mask as ``allowed``: its ids)."""
        ids = self._ids(population)
        if isinstance(allowed, np.ndarray):
            if allowed.size or ids is None:
                raise ValueError("the database route takes chunk ids, not a slot mask")
            allowed = ids
        if isinstance(allowed, str):
            raise TypeError("allowed must be a collection of chunk ids, not one string")
        keep = self.known if allowed is None else self.known.intersection(allowed)
        if len(keep) == len(self.known) and ids is None:
            # every chunk of the state: over-fetch by the chunks the state lacks (rare)
            hits = self.db.search_tokens(tokens, k + 16, None, None)
            return [h for h in hits if h.chunk_id in keep][:k]
        return self.db.search_tokens(tokens, k, keep, ids)

    def document_frequency(self, term: str, population: Population | None = None) -> int:
        return self.db.document_frequency(term, self._ids(population))

    def population(self, chunk_ids: Iterable[str]) -> Population:
        ids = frozenset(chunk_ids) & self.known
        n, _ = self.db.stats(ids)
        return _population(ids, n)

    def __len__(self) -> int:
        return len(self.known)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self.known

    def ids(self) -> list[str]:
        return list(self.known)

    # -- what an in-process index keeps per chunk: nothing here (readers fall back) --------
    def text_terms(self, chunk_id: str, title: str) -> list[str] | None:
        return None

    def main_term_ids(self) -> Mapping[str, int]:
        return {}

    def text_term_ids(self, chunk_id: str, title: str) -> npt.NDArray[np.int64] | None:
        return None

    def copy(self) -> StoredLexical:
        return self  # read only: a state never changes it

    def add(self, chunks: Iterable[tuple[str, str, str]]) -> None:
        raise TypeError("the database route indexes chunks at ingest, not in the server")

    def remove(self, chunk_ids: Iterable[str]) -> int:
        return 0  # a removed chunk leaves the database's live set with its write

    def prepare(self) -> None:
        """Nothing to prepare: the database holds the postings."""

    def save(self, directory: str | os.PathLike[str]) -> None:
        """Nothing to save: the postings are the database's (no lexical files are written)."""


__all__ = ["DEFAULT_MODE", "ENV", "StoredLexical", "database_lexical", "pg_lexical_mode"]
