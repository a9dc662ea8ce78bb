"""Assemble per-document extracts into one graph, and keep it in step with the store.

The store is the source of truth. :class:`KBGraph` compares the store's ``generation`` with
the one its graph reflects; on a change it lists the current documents, re-extracts only
those whose ``(doc_id, content_sha256)`` it has not seen, drops the rest of its cache, and
re-assembles (resolving links, wiki names and Mermaid labels against the current documents).
A deleted document therefore leaves no points and no edges, from it or to it, as soon as the
store has committed the delete. Nothing is persisted: re-extraction is cheap (see
``docs``/the report for figures) and assembly is linear in the number of edges.
"""

from __future__ import annotations

import posixpath
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx

from citewise.core.records import Node
from citewise.core.stored import DocumentInfo, StoredChunk
from citewise.graph.extract import EdgeExtractor, extract_document
from citewise.graph.models import DocExtract, DocInput, Edge, Endpoint, Point, Ref
from citewise.graph.text import norm_title, slugify, subject_title
from citewise.store.protocol import Store

#: Children of one point a graph walk steps down into (see ``walk_in_edges``).
WALK_CHILDREN = 256


@dataclass(frozen=True, slots=True)
class BuildStats:
    documents: int = 0
    points: int = 0
    edges: int = 0
    unresolved: int = 0
    self_loops_dropped: int = 0
    extracted: int = 0
    reused: int = 0
    extract_seconds: float = 0.0
    assemble_seconds: float = 0.0
    seconds: float = 0.0


@dataclass(slots=True)
class KnowledgeGraph:
    """An assembled graph: ``g`` is a networkx ``MultiDiGraph`` whose nodes carry
    ``point`` (:class:`Point`) and whose edges carry ``edge`` (a resolved :class:`Edge`)."""

    g: nx.MultiDiGraph
    points: dict[str, Point]
    #: chunk -> the innermost point holding it
    chunk_point: dict[str, str] = field(default_factory=dict)
    #: point -> every chunk inside it (subsections included; a concept: its diagram's chunk)
    point_chunks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    doc_keys: dict[str, str] = field(default_factory=dict)  # path -> document point key
    generation: str = ""
    stats: BuildStats = field(default_factory=BuildStats)
    #: what it was assembled from, so a view over fewer documents can be re-assembled
    sources: tuple[DocExtract, ...] = ()
    chunk_rows: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    doc_meta: dict[str, Mapping[str, Any]] = field(default_factory=dict)  # doc id -> metadata
    views: dict[object, KnowledgeGraph] = field(default_factory=dict)

    _titles: dict[str, list[str]] = field(default_factory=dict)
    _by_path: dict[str, list[str]] = field(default_factory=dict)
    #: (path, normalised title) -> points of that document with that title
    _same_title: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: path -> points of that document with an edge that is not containment
    _linked: dict[str, list[str]] = field(default_factory=dict)
    #: point -> its in-edges, containment ones (from its children) capped at WALK_CHILDREN
    _walk_in: dict[str, list[Edge]] = field(default_factory=dict)
    #: lookups other stages derive from this graph once (e.g. document titles by words)
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def edge_count(self) -> int:
        return self.stats.edges

    def _index(self) -> None:
        # Built aside and published titles first: a thread that sees ``_by_path`` filled
        # also sees ``_titles``, and two threads building at once only repeat the work.
        if self._by_path or not self.points:
            return
        by_path: dict[str, list[str]] = {}
        titles: dict[str, list[str]] = {}
        same: dict[tuple[str, str], list[str]] = {}
        for p in self.points.values():
            by_path.setdefault(p.path, []).append(p.key)
            if p.kind != "concept":
                same.setdefault((p.path, p.norm_title), []).append(p.key)
                for t in {p.norm_title, subject_title(p.title)} - {""}:
                    titles.setdefault(t, []).append(p.key)
        linked: set[str] = set()
        walk: dict[str, list[Edge]] = {}
        children: dict[str, int] = {}
        for u, v, d in self.g.edges(data=True):
            edge: Edge = d["edge"]
            if edge.origin != "containment":
                linked.update((u, v))
            else:
                children[v] = children.get(v, 0) + 1
                if children[v] > WALK_CHILDREN:
                    continue
            walk.setdefault(v, []).append(edge)
        self._same_title = same
        self._linked = {}
        for key in sorted(linked):
            if key in self.points:
                self._linked.setdefault(self.points[key].path, []).append(key)
        self._walk_in = walk
        self._titles = titles
        self._by_path = by_path

    def titled(self, titles: Iterable[str]) -> list[Point]:
        """Documents and sections whose normalised title or subject is one of ``titles``."""
        self._index()
        keys = {k for t in titles for k in self._titles.get(t, ())}
        return [self.points[k] for k in sorted(keys)]

    def of_path(self, path: str) -> list[Point]:
        self._index()
        return [self.points[k] for k in self._by_path.get(path, ())]

    def same_title(self, path: str, title: str) -> list[Point]:
        """Documents and sections of ``path`` whose normalised title is ``title``."""
        self._index()
        return [self.points[k] for k in self._same_title.get((path, title), ())]

    def linked_of_path(self, path: str) -> list[Point]:
        """Points of ``path`` with at least one edge other than containment (the ones a
        walk can leave the document through), without visiting the others."""
        self._index()
        return [self.points[k] for k in self._linked.get(path, ())]

    def walk_in_edges(self, key: str) -> list[Edge]:
        """In-edges for walks from a point: every link, but containment edges only from
        its first :data:`WALK_CHILDREN` children (in document order). A hostile document
        may give one heading a million subsections; a walk (and so every search anchored
        there) then costs the same as for an ordinary document."""
        self._index()
        return self._walk_in.get(key, [])

    def out_edges(self, key: str) -> list[Edge]:
        if key not in self.g:
            return []
        return [d["edge"] for _, _, d in self.g.out_edges(key, data=True)]

    def in_edges(self, key: str) -> list[Edge]:
        if key not in self.g:
            return []
        return [d["edge"] for _, _, d in self.g.in_edges(key, data=True)]

    def find(self, text: str) -> list[Point]:
        """Points named by a key, a document path, a ``path#anchor`` or a title."""
        if text in self.points:
            return [self.points[text]]
        path, _, anchor = text.partition("#")
        if path in self.doc_keys:
            doc = self.doc_keys[path]
            if not anchor:
                return [self.points[doc]]
            slug = anchor.lower()
            hits = [p for p in self.of_path(path) if p.slug == slug]
            if hits:
                return hits
        named = self.by_file_name(path)
        if len(named) == 1:  # a unique file name works as well as the full path
            return self.find(named[0] + (f"#{anchor}" if anchor else ""))
        exact = self.titled([norm_title(text)]) or self.titled([subject_title(text)])
        order = {"document": 0, "section": 1, "concept": 2}
        return sorted(exact, key=lambda p: (order[p.kind], p.path, p.line_start))

    def by_file_name(self, name: str) -> list[str]:
        """Document paths whose file name (with its suffix) is ``name``."""
        if not name or "/" in name or "." not in name:
            return []
        return sorted(p for p in self.doc_keys if posixpath.basename(p) == name)

    def chunks_of(self, key: str) -> tuple[str, ...]:
        return self.point_chunks.get(key, ())

    def restricted(self, key: object, keep: Callable[[Mapping[str, Any]], bool]) -> KnowledgeGraph:
        """The graph of only the documents whose metadata ``keep`` accepts (``key`` names
        that choice, e.g. a principal; views are cached with this graph).

        Re-assembled from those documents' extracts, not filtered: links, wiki names and
        diagram labels resolve as if the other documents did not exist, so every point,
        edge, degree and anchor equals the graph of a corpus without them."""
        view = self.views.get(key)
        if view is not None:
            return view
        hidden = {d for d, meta in self.doc_meta.items() if not keep(meta)}
        if not hidden:
            view = self
        else:
            view = join_graph(
                [x for x in self.sources if x.doc_id not in hidden],
                [row for row in self.chunk_rows if row[1] not in hidden],
                generation=self.generation,
            )
            view.doc_meta = {d: m for d, m in self.doc_meta.items() if d not in hidden}
            view._index()
        if len(self.views) < 256:
            self.views[key] = view
        return view


class _Resolver:
    def __init__(self, extracts: Sequence[DocExtract], points: dict[str, Point]) -> None:
        self.by_path: dict[str, DocExtract] = {x.path: x for x in extracts}
        self.by_lower: dict[str, DocExtract] = {x.path.lower(): x for x in extracts}
        self.names: dict[str, list[DocExtract]] = defaultdict(list)
        for x in extracts:
            stem = posixpath.splitext(posixpath.basename(x.path))[0]
            for key in {norm_title(stem), norm_title(x.title)}:
                if key:
                    self.names[key].append(x)
            noext = posixpath.splitext(x.path)[0].lower()
            self.names[noext].append(x)
        self.titles: dict[str, list[str]] = defaultdict(list)
        doc_titles = {x.path: points[x.document_key].norm_title for x in extracts}
        for p in points.values():
            if p.kind == "concept":
                continue
            if p.kind == "section" and p.norm_title == doc_titles.get(p.path):
                continue  # "# Title" of its own document: the document stands for it
            for t in {p.norm_title, subject_title(p.title)}:
                if t:
                    self.titles[t].append(p.key)

    def _doc(self, path: str) -> DocExtract | None:
        for cand in (path, path + ".md", posixpath.join(path, "README.md"), path + "/index.md"):
            hit = self.by_path.get(cand) or self.by_lower.get(cand.lower())
            if hit is not None:
                return hit
        return None

    @staticmethod
    def _anchor(x: DocExtract, anchor: str, points: dict[str, Point]) -> str | None:
        """The section ``anchor`` names in ``x``; None (an unresolved link) when there is
        no such section: a link to a missing anchor is not a link to the page's top."""
        if not anchor:
            return x.document_key
        a = anchor.lower()
        key = x.anchors.get(a) or x.anchors.get(slugify(anchor))
        if key:
            return key
        want = norm_title(anchor.replace("-", " "))
        for k in x.anchors.values():
            if points[k].norm_title == want:
                return k
        return None

    def resolve(self, ref: Ref, points: dict[str, Point]) -> str | None:
        if ref.path:
            x = self._doc(ref.path)
            if x is not None:
                return self._anchor(x, ref.anchor, points)
        if ref.name:
            name = ref.name.strip()
            cands = self.names.get(posixpath.splitext(name)[0].lower(), []) or self.names.get(
                norm_title(posixpath.splitext(posixpath.basename(name))[0]), []
            )
            if not cands:
                cands = self.names.get(norm_title(name), [])
            if cands:
                best = min(cands, key=lambda x: (len(x.path), x.path))
                return self._anchor(best, ref.anchor, points)
        if ref.title:
            keys = self.titles.get(norm_title(ref.title)) or self.titles.get(
                subject_title(ref.title), []
            )
            if len(set(keys)) == 1:
                return keys[0]
            return ref.fallback or None
        return None


def join_graph(
    extracts: Iterable[DocExtract],
    chunks: Iterable[tuple[str, str, tuple[str, ...]]] = (),
    *,
    generation: str = "",
) -> KnowledgeGraph:
    """Resolve and join extracts; ``chunks`` are ``(chunk_id, doc_id, node_ids)``."""
    started = time.perf_counter()
    xs = sorted(extracts, key=lambda x: x.path)
    chunks = tuple(chunks)
    points: dict[str, Point] = {p.key: p for x in xs for p in x.points}
    resolver = _Resolver(xs, points)
    alias: dict[str, str] = {}  # concept -> the section/document it turned out to be

    def endpoint(e: Endpoint) -> str | None:
        if isinstance(e, str):
            return e if e in points else None
        got = resolver.resolve(e, points)
        if got is not None and e.fallback and got != e.fallback:
            alias[e.fallback] = got
        return got

    resolved: list[tuple[Edge, str, str]] = []
    unresolved = loops = 0
    for x in xs:
        for e in x.edges:
            s, t = endpoint(e.source), endpoint(e.target)
            if s is None or t is None:
                unresolved += 1
                continue
            resolved.append((e, s, t))
    g = nx.MultiDiGraph()
    live_points = {k: p for k, p in points.items() if k not in alias}
    g.add_nodes_from((k, {"point": p}) for k, p in live_points.items())
    for i, (e, s0, t0) in enumerate(resolved):
        if e.origin == "containment" and s0 in alias:
            continue  # "drawn in" edge of a concept that is really a section elsewhere
        s, t = alias.get(s0, s0), alias.get(t0, t0)
        if s == t:
            loops += 1
            continue
        same = s == e.source and t == e.target  # most edges: no copy
        g.add_edge(s, t, key=i, edge=e if same else replace(e, source=s, target=t))
    by_doc: dict[str, DocExtract] = {x.doc_id: x for x in xs}
    parent: dict[str, str] = {}
    for x in xs:
        for e in x.edges:
            if (
                e.origin == "containment"
                and isinstance(e.source, str)
                and isinstance(e.target, str)
                and points[e.source].kind == "section"
            ):
                parent[e.source] = e.target
    concept_nodes: dict[tuple[str, str], list[str]] = defaultdict(list)
    for k, p in live_points.items():
        if p.kind == "concept":
            concept_nodes[(p.doc_id, p.node_id)].append(k)
    chunk_point: dict[str, str] = {}
    point_chunks: dict[str, list[str]] = defaultdict(list)
    for chunk_id, doc_id, node_ids in chunks:
        owner = by_doc.get(doc_id)
        if owner is None or not node_ids:
            continue
        key = owner.node_point.get(node_ids[0], owner.document_key)
        chunk_point[chunk_id] = key
        up: str | None = key
        while up is not None:  # a section's evidence includes its subsections'
            point_chunks[up].append(chunk_id)
            up = parent.get(up)
        for nid in node_ids:
            for ck in concept_nodes.get((doc_id, nid), ()):
                point_chunks[ck].append(chunk_id)
    assembled = time.perf_counter() - started
    stats = BuildStats(
        documents=len(xs),
        points=len(live_points),
        edges=int(g.number_of_edges()),
        unresolved=unresolved,
        self_loops_dropped=loops,
        assemble_seconds=assembled,
        seconds=assembled,
    )
    return KnowledgeGraph(
        g=g,
        points=live_points,
        chunk_point=chunk_point,
        point_chunks={k: tuple(v) for k, v in point_chunks.items()},
        doc_keys={x.path: x.document_key for x in xs},
        generation=generation,
        stats=stats,
        sources=tuple(xs),
        chunk_rows=chunks,
    )


#: ``(chunk_id, doc_id, node_ids)`` of every current chunk: what the graph needs of chunks.
ChunkRow = tuple[str, str, tuple[str, ...]]
#: Given a store generation, the chunk rows of exactly that generation, or None (read them
#: from the store).
ChunkRowSource = Callable[[str], Iterable[ChunkRow] | None]


def chunk_rows_of(chunks: Iterable[StoredChunk]) -> Iterator[ChunkRow]:
    """The graph's rows of stored chunks (the objects are shared, not copied)."""
    return ((c.chunk_id, c.doc_id, c.node_ids) for c in chunks)


def doc_input(info: DocumentInfo, text: str, nodes: Sequence[Node]) -> DocInput:
    """A document's extractor input from its listing, text and nodes."""
    return DocInput(
        doc_id=info.doc_id,
        path=info.path,
        version_id=info.version_id,
        content_sha256=info.content_sha256,
        title=info.title,
        format=info.format,
        metadata=info.metadata,
        text=text,
        nodes=tuple(nodes),
    )


class KBGraph:
    """The knowledge graph of one KB, rebuilt from the store whenever its generation moves.

    Thread-safe: a rebuild runs under a lock and builds the new graph aside; an assembled
    graph is never changed, so readers holding one keep a consistent view. Inside
    :meth:`pinned` a thread's :meth:`sync` returns the pinned graph.
    """

    def __init__(
        self,
        store: Store,
        kb: str,
        *,
        extractors: Sequence[EdgeExtractor] = (),
        rows: ChunkRowSource | None = None,
    ) -> None:
        self.store, self.kb = store, kb
        self.extractors = tuple(extractors)
        #: Chunk rows an owner already holds for a generation (the KB's index state), so a
        #: rebuild does not read every chunk from the store a second time.
        self.rows = rows
        self._cache: dict[tuple[str, str], DocExtract] = {}
        self._graph: KnowledgeGraph | None = None
        self._lock = threading.Lock()
        self._pin = threading.local()

    @contextmanager
    def pinned(self, graph: KnowledgeGraph) -> Iterator[KnowledgeGraph]:
        """Make :meth:`sync` return ``graph`` in this thread until the block ends."""
        held = getattr(self._pin, "graph", None)
        self._pin.graph = graph
        try:
            yield graph
        finally:
            self._pin.graph = held

    def sync(self) -> KnowledgeGraph:
        """The graph of the store's current revision (cached while nothing changes)."""
        pinned: KnowledgeGraph | None = getattr(self._pin, "graph", None)
        if pinned is not None:
            return pinned
        with self._lock:
            return self._sync()

    def _sync(self) -> KnowledgeGraph:
        generation = self.store.generation(self.kb)
        if self._graph is not None and self._graph.generation == generation:
            return self._graph
        for _ in range(3):  # the reads span several transactions: repeat if one landed
            graph = self._build(generation)
            after = self.store.generation(self.kb)
            if after == generation:
                break
            generation = after
        else:
            graph.generation = ""  # content of no one generation: rebuilt on the next sync
        graph._index()  # its lookup tables too, before anyone else can see it
        self._graph = graph
        return graph

    def _build(self, generation: str) -> KnowledgeGraph:
        started = time.perf_counter()
        docs = [d for d in self.store.list_documents(self.kb) if not d.deleted]
        cache: dict[tuple[str, str], DocExtract] = {}
        extracted = 0
        todo = [d for d in docs if (d.doc_id, d.content_sha256) not in self._cache]
        fresh = zip(todo, self.store.document_bodies(self.kb, todo), strict=True)
        for d, (text, nodes) in fresh:
            self._cache[(d.doc_id, d.content_sha256)] = extract_document(
                doc_input(d, text, nodes), self.extractors
            )
            extracted += 1
        for d in docs:
            key = (d.doc_id, d.content_sha256)
            cache[key] = self._cache[key]
        self._cache = cache
        t_extract = time.perf_counter() - started
        held = self.rows(generation) if self.rows is not None else None
        chunks = held if held is not None else chunk_rows_of(self.store.iter_chunks(self.kb))
        graph = join_graph(cache.values(), chunks, generation=generation)
        graph.doc_meta = {d.doc_id: d.metadata for d in docs}
        graph.stats = replace(
            graph.stats,
            extracted=extracted,
            reused=len(docs) - extracted,
            extract_seconds=t_extract,
            seconds=time.perf_counter() - started,
        )
        return graph
