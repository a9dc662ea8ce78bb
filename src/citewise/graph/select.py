"""Pure uses of the graph at query time: anchor, neighbor windows, diagnostics, a fusion term.

The graph never creates candidates: :func:`graph_boost` only adds a small RRF-style term to
chunks that are already in the recall pool and sit near the query's anchor.
"""

from __future__ import annotations

import math
import re
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from citewise.graph.build import KnowledgeGraph
from citewise.graph.models import (
    EDITION_KINDS,
    RELATION_KINDS,
    STRUCTURAL_KINDS,
    Edge,
    Point,
    RelationKind,
    SourceSpan,
)
from citewise.graph.text import norm_title, subject_title

if TYPE_CHECKING:
    from citewise.analysis.question import Question

Direction = Literal["in", "out"]
#: Called with a neighbor point: can the caller show readable evidence for it (a chunk this
#: principal may see, resolvable text)? The default is "it has at least one chunk".
EvidenceFn = Callable[[Point], bool]

#: Relation kinds that serve each query intent, best first. Intents without an entry
#: ("generic", "deep") take every kind and never fall back.
ALIGNED: dict[str, tuple[RelationKind, ...]] = {
    "compare": ("contrasts_with", "analogous_to"),
    "causal": ("causes", "degrades", "requires", "precedes"),
    "how_to": ("precedes", "requires", "part_of", "configures", "uses"),
    "definition": ("part_of", "analogous_to", "contrasts_with", "references"),
    "edition": ("supersedes", "replaces", "amends", "repeals"),
}


@dataclass(frozen=True, slots=True)
class Anchor:
    key: str
    kind: str
    title: str
    path: str
    reason: Literal["title_match", "top_hit"]
    chunk_id: str = ""


@dataclass(frozen=True, slots=True)
class Neighbor:
    """One neighbor of the anchor; ``edge`` is the edge it was ranked by (its best one)."""

    key: str
    title: str
    kind: str
    path: str
    relation: RelationKind
    direction: Direction  # "in": neighbor -> anchor (predecessor); "out": anchor -> neighbor
    confidence: float
    aligned: bool
    has_evidence: bool
    edge: Edge
    edges: tuple[Edge, ...]
    #: neighbor, then anchor (one hop)
    path_to_anchor: tuple[str, ...]
    chunk_ids: tuple[str, ...] = ()

    @property
    def span(self) -> SourceSpan:
        return self.edge.span


@dataclass(frozen=True, slots=True)
class GraphDiagnostics:
    status: Literal["ok", "unavailable"]
    reason: str = ""
    intent: str = "generic"
    anchor: Anchor | None = None
    in_degree: int = 0
    out_degree: int = 0
    in_kinds: dict[str, int] = field(default_factory=dict)
    out_kinds: dict[str, int] = field(default_factory=dict)
    predecessors: tuple[Neighbor, ...] = ()
    successors: tuple[Neighbor, ...] = ()
    aligned_candidates: int = 0
    misaligned_candidates: int = 0
    fallback_used: bool = False
    fallback: Literal["", "structural", "any"] = ""
    window_limit: int = 0
    filtered: dict[str, int] = field(default_factory=dict)


def unavailable(reason: str, intent: str = "generic") -> GraphDiagnostics:
    return GraphDiagnostics(status="unavailable", reason=reason, intent=intent)


def graph_problem(graph: KnowledgeGraph | None) -> str:
    """Why the graph cannot be used (``""`` when it can)."""
    if graph is None:
        return "no graph was built for this knowledge base"
    if graph.edge_count == 0:
        return "the graph has no edges (no headings, links, diagrams or relations found)"
    return ""


# -- anchor ------------------------------------------------------------------------------
_QUOTED = re.compile(r"\"([^\"]{2,})\"|“([^”]{2,})”|`([^`]{2,})`|「([^」]{2,})」")


def select_anchor(
    graph: KnowledgeGraph, query: str, ranked_chunk_ids: Sequence[str] = ()
) -> Anchor | None:
    """An exact title match (the whole query, or a quoted title in it) wins; otherwise the
    point holding the top-ranked hit. Among several points with the title, the one holding
    the best-ranked hit, then documents before sections."""
    rank = {c: i for i, c in enumerate(ranked_chunk_ids)}
    wanted = {norm_title(query), subject_title(query)}
    for m in _QUOTED.finditer(query):
        phrase = next(g for g in m.groups() if g)
        wanted |= {norm_title(phrase), subject_title(phrase)}
    wanted.discard("")
    matches = graph.titled(wanted)
    if matches:
        order = {"document": 0, "section": 1, "concept": 2}

        def best_rank(p: Point) -> int:
            return min((rank[c] for c in graph.chunks_of(p.key) if c in rank), default=10**9)

        p = _canonical(graph, min(matches, key=lambda p: (best_rank(p), order[p.kind], p.path)))
        return Anchor(p.key, p.kind, p.title, p.path, "title_match")
    for cid in ranked_chunk_ids:
        key = graph.chunk_point.get(cid)
        if key is not None and key in graph.points and not graph.points[key].bibliographic:
            p = _canonical(graph, graph.points[key])
            return Anchor(p.key, p.kind, p.title, p.path, "top_hit", cid)
    return None


def _canonical(graph: KnowledgeGraph, p: Point) -> Point:
    """A section titled like its document (the usual ``# Title``) stands for the document."""
    doc = graph.points.get(graph.doc_keys.get(p.path, ""))
    if p.kind == "section" and doc is not None and doc.norm_title == p.norm_title:
        return doc
    return p


def equivalents(graph: KnowledgeGraph, key: str) -> set[str]:
    """The point and the points of the same document with the same normalised title."""
    me = graph.points[key]
    return {key} | {p.key for p in graph.same_title(me.path, me.norm_title)}


# -- neighbors ---------------------------------------------------------------------------
def _has_chunks(graph: KnowledgeGraph) -> EvidenceFn:
    return lambda p: bool(graph.chunks_of(p.key))


def select_neighbors(
    graph: KnowledgeGraph | None,
    anchor: Anchor | str | None,
    *,
    intent: str = "generic",
    has_evidence: EvidenceFn | None = None,
    visible: EvidenceFn | None = None,
    deep: bool = False,
    min_confidence: float = 0.5,
    window: int = 3,
    max_window: int = 5,
    high_confidence: float = 0.9,
) -> GraphDiagnostics:
    """The anchor's degree profile and its predecessor and successor windows.

    Windows hold ``window`` neighbors (``max_window`` for deep requests; otherwise extra
    neighbors up to ``max_window`` only when their edge has ``confidence >= high_confidence``).
    Neighbors whose relation suits ``intent`` come first; if none does, structural
    neighbors (containment, links) are used and ``fallback_used`` is set. Self-neighbors,
    anchor-equivalent titles, bibliography-like sections and edges under ``min_confidence``
    are filtered out (counted in ``filtered``). ``visible`` hides points the caller may not
    see (e.g. documents outside the principal's access list; counted as ``not_visible``):
    the graph is built from every document, so scoped callers must pass it.
    """
    problem = graph_problem(graph)
    if problem or graph is None:
        return unavailable(problem, intent)
    if anchor is None:
        return unavailable("no anchor: no hit or title maps to a graph point", intent)
    if isinstance(anchor, str):
        if anchor not in graph.points:
            return unavailable(f"anchor {anchor!r} is not in the graph", intent)
        p = graph.points[anchor]
        anchor = Anchor(p.key, p.kind, p.title, p.path, "title_match")
    if anchor.key not in graph.points:
        return unavailable(f"anchor {anchor.key!r} is not in the graph", intent)
    evidence = has_evidence or _has_chunks(graph)
    deep = deep or intent == "deep"
    aligned_kinds = ALIGNED.get(intent)
    kind_rank = (
        {k: i for i, k in enumerate(aligned_kinds)}
        if aligned_kinds
        else {k: 0 for k in RELATION_KINDS}
    )
    me = graph.points[anchor.key]
    my_titles = {me.norm_title, subject_title(me.title)} - {""}
    group = equivalents(graph, me.key)
    ins = [e for k in sorted(group) for e in graph.walk_in_edges(k) if e.source not in group]
    outs = [e for k in sorted(group) for e in graph.out_edges(k) if e.target not in group]
    filtered: Counter[str] = Counter()
    grouped: dict[tuple[str, Direction], list[Edge]] = {}
    for direction, edges in (("in", ins), ("out", outs)):
        for e in edges:
            other = e.source if direction == "in" else e.target
            assert isinstance(other, str)
            p = graph.points[other]
            if other in group:
                filtered["self"] += 1
            elif visible is not None and not visible(p):
                filtered["not_visible"] += 1
            elif p.norm_title in my_titles or subject_title(p.title) in my_titles:
                filtered["equivalent_title"] += 1
            elif p.bibliographic:
                filtered["bibliographic"] += 1
            elif e.confidence < min_confidence:
                filtered["low_confidence"] += 1
            else:
                grouped.setdefault((other, direction), []).append(e)  # type: ignore[arg-type]

    cands: list[Neighbor] = []
    for (other, direction), edges in grouped.items():
        best = min(
            edges,
            key=lambda e: (kind_rank.get(e.kind, len(kind_rank)), -e.confidence, e.origin),
        )
        p = graph.points[other]
        cands.append(
            Neighbor(
                key=other,
                title=p.title,
                kind=p.kind,
                path=p.path,
                relation=best.kind,
                direction=direction,
                confidence=best.confidence,
                aligned=aligned_kinds is None or best.kind in kind_rank,
                has_evidence=evidence(p),
                edge=best,
                edges=tuple(edges),
                path_to_anchor=(other, me.key),
                chunk_ids=graph.chunks_of(other),
            )
        )
    aligned = [c for c in cands if c.aligned]
    misaligned = len(cands) - len(aligned)
    fallback: Literal["", "structural", "any"] = ""
    pool = aligned
    if not aligned and cands:
        structural = [c for c in cands if c.relation in STRUCTURAL_KINDS]
        pool, fallback = (structural, "structural") if structural else (cands, "any")

    def order(c: Neighbor) -> tuple[int, float, bool, str, str]:
        rank = kind_rank.get(c.relation, len(kind_rank)) if not fallback else 0
        return (rank, -c.confidence, not c.has_evidence, c.title, c.key)

    limit = max_window if deep else window

    def take(direction: Direction) -> tuple[Neighbor, ...]:
        ranked = sorted((c for c in pool if c.direction == direction), key=order)
        out = ranked[:limit]
        for c in ranked[limit:]:
            if len(out) >= max_window or c.confidence < high_confidence:
                break
            out.append(c)
        return tuple(out)

    in_kinds = Counter(e.kind for e in ins)
    out_kinds = Counter(e.kind for e in outs)
    return GraphDiagnostics(
        status="ok",
        intent=intent,
        anchor=anchor,
        in_degree=sum(in_kinds.values()),
        out_degree=sum(out_kinds.values()),
        in_kinds=dict(sorted(in_kinds.items())),
        out_kinds=dict(sorted(out_kinds.items())),
        predecessors=take("in"),
        successors=take("out"),
        aligned_candidates=len(aligned),
        misaligned_candidates=misaligned,
        fallback_used=bool(fallback),
        fallback=fallback,
        window_limit=limit,
        filtered=dict(sorted(filtered.items())),
    )


def graph_context(
    graph: KnowledgeGraph | None,
    question: Question,
    ranked_chunk_ids: Sequence[str] = (),
    *,
    has_evidence: EvidenceFn | None = None,
    visible: EvidenceFn | None = None,
) -> GraphDiagnostics:
    """Anchor selection plus :func:`select_neighbors`, with the analysed question's graph
    intent and depth (:mod:`citewise.analysis.graph_intent`)."""
    chosen = question.graph_intent
    problem = graph_problem(graph)
    if problem or graph is None:
        return unavailable(problem, chosen)
    anchor = select_anchor(graph, question.text, ranked_chunk_ids)
    return select_neighbors(
        graph,
        anchor,
        intent=chosen,
        has_evidence=has_evidence,
        visible=visible,
        deep=question.graph_deep,
    )


# -- fusion term -------------------------------------------------------------------------
def proximity(
    graph: KnowledgeGraph,
    anchor_key: str,
    *,
    intent: str = "generic",
    max_hops: int = 2,
    min_confidence: float = 0.5,
) -> dict[str, tuple[int, float]]:
    """Points within ``max_hops`` of the anchor (edges either way): ``(hops, path score)``.

    The path score multiplies edge confidences; an edge whose kind does not suit the intent
    counts three quarters. Bibliography-like sections are neither reached nor crossed.
    """
    aligned = set(ALIGNED.get(intent, RELATION_KINDS))
    best: dict[str, tuple[int, float]] = {anchor_key: (0, 1.0)}
    queue: deque[str] = deque([anchor_key])
    while queue:
        u = queue.popleft()
        hops, score = best[u]
        if hops >= max_hops:
            continue
        for e in graph.out_edges(u) + graph.in_edges(u):
            if e.confidence < min_confidence:
                continue
            v = e.target if e.source == u else e.source
            assert isinstance(v, str)
            p = graph.points.get(v)
            if p is None or p.bibliographic:
                continue
            s = score * e.confidence * (1.0 if e.kind in aligned else 0.75)
            old = best.get(v)
            if old is None:
                best[v] = (hops + 1, s)
                queue.append(v)
            elif old[0] == hops + 1 and s > old[1]:
                best[v] = (hops + 1, s)
    return best


def _unit_members(graph: KnowledgeGraph, key: str) -> set[str]:
    """A document and its ``# Title`` section(s) count as one point; anything else alone."""
    p = graph.points[key]
    if p.kind != "document":
        return {key}
    return {key} | {q.key for q in graph.same_title(p.path, p.norm_title) if q.kind == "section"}


def graph_boost(
    pool_chunk_ids: Sequence[str],
    anchor: Anchor | str | None,
    graph: KnowledgeGraph | None,
    *,
    intent: str = "generic",
    weight: float = 0.5,
    k: int = 60,
    max_hops: int = 2,
    min_confidence: float = 0.5,
    include_anchor: bool = True,
) -> dict[str, float]:
    """A term of at most ``weight / (k + 1)`` for pool chunks of documents linked to the
    anchor, scaled by how directly and how specifically they are linked.

    Hops are counted between *units*: a document and its ``# Title`` section (which carries
    the document's body links, wiki links and diagrams) are one unit, so a document linked
    from the anchor's body is one hop away. When the anchor is a document, every point of
    it (subsections, diagram concepts) is the origin. A chunk counts at the distance of its
    own point or of its document, whichever is nearer. The term multiplies, along the path,
    each edge's confidence (three quarters for an edge whose kind does not suit the intent)
    divided by ``max(1, ln(1 + d))`` of each unit reached, where ``d`` is its number of
    outgoing non-containment edges (hub pages linking everything are damped, as are paths
    through them), and halves per hop beyond the first. The anchor's own document gets the
    full term with ``include_anchor`` (the default) and nothing without it: measured on
    ``tests/fixtures/graph_bench``, leaving it out let linked documents overtake a
    top-ranked anchor that was itself the answer (see docs/benchmarks.md). Only ids in
    ``pool_chunk_ids`` are returned: the graph never adds candidates.
    """
    if graph is None or anchor is None or graph.edge_count == 0:
        return {}
    key = anchor if isinstance(anchor, str) else anchor.key
    if key not in graph.points:
        return {}
    aligned = set(ALIGNED.get(intent, RELATION_KINDS))
    start = _canonical(graph, graph.points[key])
    unit_of: dict[str, str] = {}
    members: dict[str, set[str]] = {}

    def unit(x: str) -> str:
        if x not in unit_of:
            u = _canonical(graph, graph.points[x]).key
            unit_of[x] = u
            members.setdefault(u, _unit_members(graph, u))
        return unit_of[x]

    damp_cache: dict[str, float] = {}

    def damp(u: str) -> float:
        if u not in damp_cache:
            d = sum(
                1
                for m in members[u]
                for e in graph.out_edges(m)
                if e.origin != "containment" and e.target not in members[u]
            )
            damp_cache[u] = max(1.0, math.log1p(d))
        return damp_cache[u]

    # A document anchor: every point of it is an origin. Only its linked points can lead
    # out of it, so only they are visited (a document may hold a million sections); the
    # walk treats any other point of the document as origin (skipped) below.
    whole_doc = start.kind == "document"
    origin_points = (
        [p.key for p in graph.linked_of_path(start.path) if not p.bibliographic]
        if whole_doc
        else sorted(equivalents(graph, start.key))
    )
    origin = {unit(x) for x in origin_points} | {unit(start.key)}
    best: dict[str, tuple[int, float]] = {u: (0, 1.0) for u in origin}
    queue: deque[str] = deque(sorted(origin))
    while queue:
        u = queue.popleft()
        hops, score = best[u]
        if hops >= max_hops:
            continue
        for m in sorted(members[u]):
            for e in graph.out_edges(m) + graph.walk_in_edges(m):
                if e.confidence < min_confidence:
                    continue
                other = e.target if e.source == m else e.source
                assert isinstance(other, str)
                p = graph.points.get(other)
                if p is None or p.bibliographic or (whole_doc and p.path == start.path):
                    continue
                v = unit(other)
                if v in origin or v == u:
                    continue
                s = score * e.confidence * (1.0 if e.kind in aligned else 0.75) / damp(v)
                if hops >= 1:
                    s *= 0.5
                old = best.get(v)
                if old is None:
                    best[v] = (hops + 1, s)
                    queue.append(v)
                elif old[0] == hops + 1 and s > old[1]:
                    best[v] = (hops + 1, s)
    top = weight / (k + 1)
    out: dict[str, float] = {}
    for cid in pool_chunk_ids:
        point = graph.chunk_point.get(cid)
        holder = graph.points.get(point) if point is not None else None
        if point is None or holder is None or cid in out:
            continue
        if holder.path == start.path and not include_anchor:
            continue
        keys = [unit(point)]
        doc_key = graph.doc_keys.get(holder.path)
        if doc_key is not None and doc_key in graph.points:
            keys.append(unit(doc_key))
        reached = [best[u] for u in keys if u in best]
        if not reached:
            continue
        hops, score = min(reached, key=lambda o: (o[0], -o[1]))
        if hops > max_hops:
            continue
        out[cid] = top * score
    return {c: b for c, b in out.items() if b > 0}


# -- evidence fragments ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NeighborSupport:
    """A ``graph_neighbor_support`` fragment for the evidence stage."""

    anchor_key: str
    neighbor_key: str
    neighbor_title: str
    relation: RelationKind
    direction: Direction
    confidence: float
    path_to_anchor: tuple[str, ...]
    span_id: str
    span: SourceSpan
    chunk_ids: tuple[str, ...]
    aligned: bool


def neighbor_support(diag: GraphDiagnostics) -> list[NeighborSupport]:
    """The windows as evidence fragments: predecessors first, then successors."""
    if diag.status != "ok" or diag.anchor is None:
        return []
    return [
        NeighborSupport(
            anchor_key=diag.anchor.key,
            neighbor_key=n.key,
            neighbor_title=n.title,
            relation=n.relation,
            direction=n.direction,
            confidence=n.confidence,
            path_to_anchor=n.path_to_anchor,
            span_id=n.edge.span.span_id,
            span=n.edge.span,
            chunk_ids=n.chunk_ids,
            aligned=n.aligned,
        )
        for n in diag.predecessors + diag.successors
    ]


def edition_neighbors(graph: KnowledgeGraph, key: str) -> Mapping[str, list[str]]:
    """Edition relations of one point: which points supersede/amend/replace/repeal it and
    which it supersedes/amends/replaces/repeals (keys ``"<kind>_by"`` and ``"<kind>"``)."""
    out: dict[str, list[str]] = {}
    for e in graph.in_edges(key):
        if e.kind in EDITION_KINDS:
            assert isinstance(e.source, str)
            out.setdefault(f"{e.kind}_by", []).append(e.source)
    for e in graph.out_edges(key):
        if e.kind in EDITION_KINDS:
            assert isinstance(e.target, str)
            out.setdefault(e.kind, []).append(e.target)
    return out
