"""What one caller may see of a KB's published index state: its readable chunks, BM25
statistics, superseded editions, graph and revision number (issue 13: nothing a caller
gets may depend on documents it may not read; see docs/security.md).

Values are cached with the index state they were derived from (so a change of the store
drops them). Principals that may read the same *access classes* (the distinct ``access:``
values of current documents) share one readable set, population, superseded set and
graph view, so many principals cost no more than the classes they differ in.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from citewise.core.access import may_read, revision_view
from citewise.core.records import Node
from citewise.core.rights import WITHHOLDING_KEYS
from citewise.core.stored import NodeWindow, StoredChunk
from citewise.graph.build import KBGraph, KnowledgeGraph
from citewise.index import ask_reads
from citewise.index.lexical import LexicalIndex, Population
from citewise.ingest.editions import superseded_paths
from citewise.store.protocol import Store

T = TypeVar("T")
Span = tuple[int, int]
#: The access keys of a document's metadata, normalised and hashable; () = public.
AccessClass = tuple[tuple[str, Any], ...]


def access_class(metadata: Mapping[str, Any]) -> AccessClass:
    """Metadata keys named ``access`` in any case, and the withholding keys (takedown,
    expiry: core/rights.py), with their values (lists as sorted tuples):
    :func:`~citewise.core.access.may_read` gives the same answer for
    ``dict(access_class(m))`` as for ``m``."""
    return tuple(
        sorted(
            (k, _frozen(v) if k not in WITHHOLDING_KEYS else _frozen_mark(v))
            for k, v in metadata.items()
            if isinstance(k, str) and (k.strip().lower() == "access" or k in WITHHOLDING_KEYS)
        )
    )


def _frozen_mark(value: Any) -> Any:
    """A withholding value made hashable; a mark mapping stays a (non-empty) mark."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), str(v)) for k, v in value.items())) or ("mark",)
    return _frozen(value)


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple | set | dict):
        return tuple(sorted({str(a) for a in value}))
    return value


@dataclass(frozen=True, slots=True)
class CurrentDocuments:
    """The current documents as one index state sees them."""

    docs: tuple[tuple[str, Mapping[str, Any], AccessClass], ...]  # path, metadata, class
    classes: frozenset[AccessClass]


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

    @property
    def generation(self) -> str:
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

    def _table(self, table: str) -> dict[Hashable, Any]:
        tables = self._memo_table()
        values: dict[Hashable, Any] = tables.setdefault(("table", table), {})
        return values

    def lookup(self, table: str, key: Hashable) -> Any:
        """A value kept in ``table`` of this state by :meth:`keep` (None when absent)."""
        return self._table(table).get(key)

    def keep(self, table: str, key: Hashable, value: object, limit: int) -> None:
        """Keep ``value`` with this state, in a table of its own holding up to ``limit``
        values (per-chunk and per-version values must not crowd the per-caller ones out of
        :meth:`memo`). Only for values that depend on the keyed content alone, never on
        the caller."""
        values = self._table(table)
        if len(values) < limit:
            values[key] = value

    def cached(self, table: str, key: Hashable, compute: Callable[[], T], limit: int) -> T:
        """:meth:`lookup`, else compute and :meth:`keep`."""
        got = self.lookup(table, key)
        if got is None:
            got = compute()
            self.keep(table, key, got, limit)
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

    def version_chunks(self, doc_id: str, version_id: int) -> tuple[StoredChunk, ...]:
        """The chunks of one current document version in ordinal order (grouped once per
        state: a lookup, not a walk over every chunk)."""
        chunks = self.chunks

        def group() -> dict[tuple[str, int], tuple[StoredChunk, ...]]:
            by: dict[tuple[str, int], list[StoredChunk]] = {}
            for c in chunks.values():
                by.setdefault((c.doc_id, c.version_id), []).append(c)
            return {k: tuple(sorted(v, key=lambda c: c.ordinal)) for k, v in by.items()}

        return self.cached("version-chunks", "", group, 1).get((doc_id, version_id), ())

    def documents(self) -> CurrentDocuments:
        """The current documents' paths, metadata and access classes, read once per state
        (kept only when the store has not moved on since the state was read)."""
        table = self._memo_table()
        got: CurrentDocuments | None = table.get("documents")
        if got is None:
            docs = tuple(
                (d.path, d.metadata, access_class(d.metadata))
                for d in self.store.list_documents(self.kb)
            )
            got = CurrentDocuments(docs, frozenset(d[2] for d in docs))
            if self.store.generation(self.kb) == self.generation:
                table["documents"] = got
        return got

    def stale_documents(self, principal: str | None) -> frozenset[str]:
        """Superseded editions among the current *documents* ``principal`` may read (one
        without chunks counts too; a hidden edition or relation counts as absent), cached
        per set of readable document access classes."""
        current = self.documents()
        mine = frozenset(a for a in current.classes if may_read(dict(a), principal))

        def compute() -> frozenset[str]:
            return superseded_paths((p, m) for p, m, a in current.docs if a in mine)

        if current is not self._memo_table().get("documents"):
            return compute()  # read past this state: not kept with it
        return self.cached("doc-superseded", mine, compute, 256)

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

    # -- version contents: immutable, so kept with the state by (document, version) ----
    def version_text(self, doc_id: str, version_id: int) -> str:
        """``Store.get_document_text`` of one version, kept with this state (recall,
        evidence and conflict detection read the same versions within one ask)."""
        key = (doc_id, version_id)
        got = self.lookup("version-text", key)
        if isinstance(got, str):
            return got
        text = self.store.get_document_text(self.kb, doc_id, version_id)
        ask_reads.note(key, text)  # read and checked now: the evidence stage need not again
        if len(text) <= TEXT_CACHE_CHARS:
            self.keep("version-text", key, text, TEXT_CACHE)
        else:  # a long text: kept while the long ones kept add up to LONG_TEXT_CHARS
            total: list[int] = self.cached("long-text-chars", "", lambda: [0], 1)
            if total[0] + len(text) <= LONG_TEXT_CHARS:
                total[0] += len(text)
                self.keep("version-text", key, text, TEXT_CACHE)
        return text

    def kept_nodes(self, path: str, version_id: int) -> list[Node] | None:
        """The version's nodes when this state keeps them whole (a fresh list), else None."""
        got = self.lookup("version-nodes", (path, version_id))
        return list(got) if isinstance(got, tuple) else None

    def nodes_near(self, path: str, version_id: int, spans: Sequence[Span]) -> NodeWindow:
        """``Store.nodes_near``; a version read whole (small enough) is kept with this
        state and then serves any spans, as a fresh list."""
        key = (path, version_id)
        got = self.lookup("version-nodes", key)
        if isinstance(got, tuple):
            return NodeWindow(list(got), True)
        window = self.store.nodes_near(self.kb, path, version_id, spans)
        if window.complete and len(window.nodes) <= NODE_CACHE_NODES:
            self.keep("version-nodes", key, tuple(window.nodes), NODE_CACHE)
        return window


#: Version texts one state keeps, each up to this many characters. (A state keeps the
#: first ones read; 4,096 rather than 2,048 versions: over the 300 SciFact test claims
#: the second half of the asks cost 8 % less CPU, for 17 MB more peak memory; see
#: docs/benchmarks.md, sixth round.)
TEXT_CACHE = 4096
TEXT_CACHE_CHARS = 1 << 16
#: Longer version texts one state keeps, up to this many characters in all (issue 35:
#: otherwise every ask read and checked a long cited document's whole text again).
LONG_TEXT_CHARS = 1 << 25
#: Whole versions' nodes one state keeps, each up to this many nodes.
NODE_CACHE = 4096
NODE_CACHE_NODES = 256
