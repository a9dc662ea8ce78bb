"""What one caller may see of a KB's published index state: its readable chunks, BM25
statistics, superseded editions, graph and revision number (issue 13: nothing a caller
gets may depend on documents it may not read; see docs/security.md).

Values are cached with the index state they were derived from (so a change of the store
drops them). Principals that may read the same *access classes* (the distinct ``access:``
values of current documents) share one readable set, population, superseded set and
graph view, so many principals cost no more than the classes they differ in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from citewise.graph.build import KBGraph, KnowledgeGraph
from citewise.index.lexical import LexicalIndex, Population
from citewise.ingest.editions import superseded_paths
from citewise.recall.scope import may_read, revision_view
from citewise.store.models import StoredChunk
from citewise.store.protocol import Store

T = TypeVar("T")
#: The access keys of a document's metadata, normalised and hashable; () = public.
AccessClass = tuple[tuple[str, Any], ...]


def access_class(metadata: Mapping[str, Any]) -> AccessClass:
    """Metadata keys named ``access`` in any case with their values (lists as sorted
    tuples): :func:`~citewise.recall.scope.may_read` gives the same answer for
    ``dict(access_class(m))`` as for ``m``."""
    return tuple(
        sorted(
            (k, _frozen(v))
            for k, v in metadata.items()
            if isinstance(k, str) and k.strip().lower() == "access"
        )
    )


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple | set | dict):
        return tuple(sorted({str(a) for a in value}))
    return value


class CallerViews:
    """Mixin for :class:`~citewise.index.manager.KBIndex` (which provides the members
    declared here)."""

    store: Store
    kb: str
    graph: KBGraph

    @property
    def chunks(self) -> dict[str, StoredChunk]:
        raise NotImplementedError

    @property
    def lexical(self) -> LexicalIndex:
        raise NotImplementedError

    @property
    def revision(self) -> int:
        raise NotImplementedError

    @property
    def superseded(self) -> frozenset[str]:
        raise NotImplementedError

    def _memo_table(self) -> dict[object, Any]:
        raise NotImplementedError

    def memo(self, key: object, compute: Callable[[], T]) -> T:
        """A value derived from this thread's index state only, cached with that state
        (bounded; past 256 entries values are computed per request)."""
        table = self._memo_table()
        got = table.get(key)
        if got is None:
            got = compute()
            if len(table) < 256:
                table[key] = got
        return cast(T, got)

    def scoped(self, key: object, compute: Callable[[], frozenset[str]]) -> frozenset[str]:
        """The chunk ids a scope (filters + principal) may see, cached with the state
        (scope depends only on current documents' metadata)."""
        return self.memo(key, compute)

    def classes(self, principal: str | None) -> frozenset[AccessClass]:
        """The access classes of current documents that ``principal`` may read."""
        chunks = self.chunks
        every = self.memo(
            "access-classes", lambda: frozenset(access_class(c.metadata) for c in chunks.values())
        )
        return self.memo(
            ("classes", principal),
            lambda: frozenset(a for a in every if may_read(dict(a), principal)),
        )

    def readable(self, principal: str | None) -> frozenset[str]:
        """Chunk ids of the current documents ``principal`` may read (access lists only)."""
        mine, chunks = self.classes(principal), self.chunks
        return self.memo(
            ("readable", mine),
            lambda: frozenset(c for c, ch in chunks.items() if access_class(ch.metadata) in mine),
        )

    def everything(self, principal: str | None) -> bool:
        return len(self.readable(principal)) == len(self.chunks)

    def population(self, principal: str | None) -> Population | None:
        """BM25 statistics of what ``principal`` may read; None when that is everything
        (the global statistics are then the same)."""
        if self.everything(principal):
            return None
        readable, lexical = self.readable(principal), self.lexical
        key = ("population", self.classes(principal))
        return self.memo(key, lambda: lexical.population(readable))

    def superseded_for(self, principal: str | None) -> frozenset[str]:
        """Superseded editions as seen from what ``principal`` may read: a relation or a
        current edition in a document it may not read changes nothing."""
        if self.everything(principal):
            return self.superseded
        readable, chunks = self.readable(principal), self.chunks
        return self.memo(
            ("superseded", self.classes(principal)),
            lambda: superseded_paths((chunks[c].path, chunks[c].metadata) for c in readable),
        )

    def visible_revision(self, principal: str | None) -> int:
        """This state's revision numbered as ``principal`` sees the KB: how many revisions
        changed a document version it may read (see ``recall.scope.revision_view``). Per
        principal: past versions' access lists are not among the current classes."""
        revision, store, kb = self.revision, self.store, self.kb
        return self.memo(
            ("revision", principal),
            lambda: revision_view(store.version_access(kb), principal).number(revision),
        )

    def graph_for(self, principal: str | None) -> KnowledgeGraph:
        """The graph assembled from the documents ``principal`` may read only (views are
        cached with the graph, per set of readable access classes)."""
        mine = self.classes(principal)
        return self.graph.sync().restricted(mine, lambda meta: access_class(meta) in mine)
