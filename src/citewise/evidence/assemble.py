"""Assemble a context pack: recall -> RSE segments -> direct spans -> augmentation -> budget.

>>> pack = assemble(kb, "what is a sync cursor")          # doctest: +SKIP
>>> [f.citation_id for f in pack.direct]                  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from citewise.analysis.question import Question, analyse
from citewise.core.access import visible_chunks
from citewise.core.locator import locate
from citewise.core.records import Node
from citewise.core.search import Hit, SearchFilters, SearchResult, filters_json
from citewise.core.stored import StoredChunk
from citewise.errors import CitewiseError
from citewise.evidence.augment import context_fragments, direct_fragments, hit_fragment
from citewise.evidence.budget import apply_budget, profile_for, truncate
from citewise.evidence.docview import DocView
from citewise.evidence.keep_top import (
    copies_of,
    guaranteed_segments,
    protected_fragments,
    text_digest,
    top_document_hits,
)
from citewise.evidence.models import (
    BUDGETS,
    Budget,
    Decision,
    EvidenceConfig,
    EvidencePack,
    Fragment,
    Limitation,
    Profile,
    Segment,
)
from citewise.evidence.neighbors import neighbor_fragments
from citewise.evidence.nodes import NodeReader, spans_by_version
from citewise.evidence.replay import normalize_query, replay_id
from citewise.evidence.rse import best_segments, chunk_values
from citewise.evidence.sentences import query_terms
from citewise.evidence.spans import SupportSpan, best_hit_span, select_spans
from citewise.index import ask_reads
from citewise.index.manager import KBIndex
from citewise.recall.search import RecallSettings, search

if TYPE_CHECKING:
    from citewise.context import StageContext

DocKey = tuple[str, int]  # (doc_id, version_id)


def _index(source: StageContext | KBIndex) -> KBIndex:
    return source if isinstance(source, KBIndex) else source.index


def assemble(
    source: StageContext | KBIndex,
    query: str,
    *,
    filters: SearchFilters | None = None,
    profile: Profile | None = None,
    rse: bool = True,
    budget: Budget | None = None,
    config: EvidenceConfig | None = None,
    search_result: SearchResult | None = None,
    question: Question | None = None,
) -> EvidencePack:
    """The context pack for ``query``: exact evidence fragments under a hard budget.

    ``search_result`` reuses an earlier recall (it must come from the same index);
    ``question`` is ``query`` already analysed (else it is analysed here).
    """
    index = _index(source)
    cfg = config or EvidenceConfig()
    if question is not None and question.text != query:
        raise ValueError("assemble: the analysed question is not the query")
    analysed = analyse(query) if question is None else question
    intent = analysed.intent
    prof: Profile = profile or profile_for(intent)
    bud = budget or BUDGETS[prof]
    if search_result is None:
        settings = RecallSettings(per_doc_cap=cfg.per_doc_cap) if rse else RecallSettings()
        search_result = search(
            index, query, filters=filters, top_k=cfg.top_k, settings=settings, question=analysed
        )
    result = search_result
    revision = result.revision
    limitations: list[Limitation] = []
    candidates: list[Fragment] = []
    segments: list[Segment] = []
    hits: Sequence[Hit] = result.hits
    copies: list[tuple[str, str]] = []
    dropped: list[Decision] = []
    if result.abstention is not None or not result.hits:
        reason = result.abstention.reason if result.abstention else "no hits"
        limitations.append(Limitation("insufficient_evidence", reason))
    else:
        views, failed = _load(index, result.hits)
        for key, why in failed.items():
            hit = next(h for h in result.hits if (h.doc_id, h.version_id) == key)
            limitations.append(Limitation("source_window_unavailable", why, hit.doc_id, hit.path))
            candidates.extend(_degraded(h) for h in result.hits if (h.doc_id, h.version_id) == key)
        hits, copies, dropped = copies_of(result.hits, _digests(views))
        segments = _segments(index, hits, views, cfg, rse)
        weights = term_weights(index, query_terms(query), filters)
        candidates.extend(_evidence(index, query, hits, segments, views, cfg, bud, weights))
        scope = filters or SearchFilters()
        allowed = set(
            index.scoped(scope, lambda: frozenset(visible_chunks(index.chunks.values(), scope)))
        )
        graph_frags, graph_limits = neighbor_fragments(
            index, result.graph, revision, allowed, candidates, query
        )
        candidates.extend(graph_frags)
        limitations.extend(graph_limits)
    top = {h.doc_id for h in top_document_hits(hits)}
    kept, decisions, use = apply_budget(candidates, bud, first=protected_fragments(candidates, top))
    kept = _with_locators(index, kept)
    kept = _with_editions(index, result, kept)
    decisions.extend(_segment_decisions(hits, segments, rse))
    decisions.extend(dropped)
    direct = tuple(f for f in kept if f.role == "direct_support")
    order = {f.doc_id: i for i, f in reversed(list(enumerate(kept)))}
    augmentation = tuple(
        sorted(
            (f for f in kept if f.role in ("parent_context", "adjacent_context", "background")),
            key=lambda f: (order[f.doc_id], f.char_start, f.char_end),
        )
    )
    conf = _config_json(prof, bud, cfg, rse, filters)
    return EvidencePack(
        query=query,
        normalized_query=normalize_query(query),
        intent=intent.kind,
        profile=prof,
        kb=index.kb,
        revision=revision,
        rse=rse,
        outcome="ok" if direct else "insufficient_evidence",
        direct=direct,
        augmentation=augmentation,
        graph_neighbors=tuple(f for f in kept if f.role == "graph_neighbor_support"),
        conflicts=(),
        limitations=tuple(limitations),
        segments=tuple(segments),
        decisions=tuple(decisions),
        budget=bud,
        budget_use=use,
        replay_id=replay_id(
            query,
            revision,
            conf,
            direct + augmentation + tuple(f for f in kept if f.role == "graph_neighbor_support"),
        ),
        config=conf,
        copies=tuple(copies),
        question=analysed,
    )


def _config_json(
    prof: str, bud: Budget, cfg: EvidenceConfig, rse: bool, filters: SearchFilters | None
) -> dict[str, Any]:
    return {
        "profile": prof,
        "budget": dataclasses.asdict(bud),
        "evidence": dataclasses.asdict(cfg),
        "rse": rse,
        "filters": filters_json(filters),
    }


def _load(index: KBIndex, hits: Sequence[Hit]) -> tuple[dict[DocKey, DocView], dict[DocKey, str]]:
    """Text and nodes of every hit's document version; failures name their reason."""
    views: dict[DocKey, DocView] = {}
    failed: dict[DocKey, str] = {}
    spans = spans_by_version((h.path, h.version_id, h.char_start, h.char_end) for h in hits)
    for h in hits:
        key = (h.doc_id, h.version_id)
        if key in views or key in failed:
            continue
        try:
            text = _checked_text(index, key)
            window = spans[(h.path, h.version_id)]
            nodes = index.nodes_near(h.path, h.version_id, window).nodes
        except CitewiseError as exc:
            failed[key] = f"{exc.code}: {exc}"
            continue
        if text[h.char_start : h.char_end] != h.excerpt:
            failed[key] = "the stored text no longer matches the hit's excerpt"
            continue
        views[key] = DocView(h.doc_id, h.path, h.version_id, h.revision, text, nodes)
    return views, failed


def _checked_text(index: KBIndex, key: DocKey) -> str:
    """The version's text read (and checked against its sha256) from the store, not from
    the state's copy: the evidence stage reports a source it cannot read (CorruptContent).
    A read made and checked earlier in the same ask is not repeated (index/ask_reads.py)."""
    text = ask_reads.checked(key)
    if text is None:
        text = index.store.get_document_text(index.kb, *key)
        ask_reads.note(key, text)
    return text


def _with_locators(index: KBIndex, frags: list[Fragment]) -> list[Fragment]:
    """Each fragment with the locator of its exact characters (documents whose nodes
    carry locators only; see core/locator.py), from the nodes around it."""
    located = index.memo("located-versions", lambda: _located(index))
    if not located:
        return frags
    reader = NodeReader(index.store, index.kb)
    out = []
    for f in frags:
        if (f.doc_id, f.version_id) not in located:
            out.append(f)
            continue
        near = reader.near(f.path, f.version_id, [(f.char_start, f.char_end)])
        out.append(dataclasses.replace(f, locator=locate(near, f.char_start, f.char_end)))
    return out


def _located(index: KBIndex) -> frozenset[tuple[str, int]]:
    """The versions whose nodes carry locators: a walk over every chunk, so kept with the
    index state (it depends on the chunks' metadata alone), not repeated per question."""
    return frozenset(
        (c.doc_id, c.version_id) for c in index.chunks.values() if c.metadata.get("locators")
    )


def _with_editions(index: KBIndex, result: SearchResult, frags: list[Fragment]) -> list[Fragment]:
    """Each fragment of a regulation edition with its regulation, edition, clause path and
    effective date (recall/editions.py); the clause is that of the fragment's first node."""
    eds = result.edition_scope
    if eds is None or not eds.editions:
        return frags
    reader = NodeReader(index.store, index.kb)
    out = []
    for f in frags:
        if f.path not in eds.editions:
            out.append(f)
            continue
        near = reader.near(f.path, f.version_id, [(f.char_start, f.char_end)])
        clause = next((n.clause_path for n in near if n.id in f.node_ids and n.clause_path), None)
        out.append(dataclasses.replace(f, regulation=eds.reference(f.path, clause)))
    return out


def _degraded(h: Hit) -> Fragment:
    """The direct snippet from the hit itself, when the source window cannot be read."""
    why = "source_window_unavailable"
    return hit_fragment(h, role="direct_support", reason=why, rank=h.rank * 100.0)


def _doc_chunks(index: KBIndex, key: DocKey) -> list[StoredChunk]:
    return list(index.version_chunks(*key))  # in ordinal order, kept with the index state


def _segments(
    index: KBIndex,
    hits: Sequence[Hit],
    views: dict[DocKey, DocView],
    cfg: EvidenceConfig,
    rse: bool,
) -> list[Segment]:
    by_chunk = {h.chunk_id: h for h in hits}
    if not rse:
        return [
            Segment(
                h.doc_id,
                h.version_id,
                index.chunks[h.chunk_id].ordinal,
                index.chunks[h.chunk_id].ordinal + 1,
                h.score,
            )
            for h in hits
            if (h.doc_id, h.version_id) in views and h.chunk_id in index.chunks
        ]
    top = max(h.score for h in hits) or 1.0
    values: dict[DocKey, list[float]] = {}
    for h in hits:  # in rank order, so documents are scanned best first
        key = (h.doc_id, h.version_id)
        if key in values or key not in views:
            continue
        chunks = _doc_chunks(index, key)
        retrieved = {
            c.ordinal: (by_chunk[c.chunk_id].rank, by_chunk[c.chunk_id].score / top)
            for c in chunks
            if c.chunk_id in by_chunk
        }
        values[key] = chunk_values([c.char_end - c.char_start for c in chunks], retrieved, cfg.rse)
    chosen = [Segment(k[0], k[1], s, e, v) for k, s, e, v in best_segments(values, cfg.rse)]
    best = []  # the best hit of each top document stays, as a one-chunk segment if need be
    for h in top_document_hits(hits):
        key = (h.doc_id, h.version_id)
        if key in values and h.chunk_id in index.chunks:
            o = index.chunks[h.chunk_id].ordinal
            best.append((key, o, values[key][o]))
    return guaranteed_segments(chosen, best)


def _digests(views: dict[DocKey, DocView]) -> Callable[[DocKey], str | None]:
    """The text digest of each loaded version, computed once (None when not loaded)."""
    memo: dict[DocKey, str] = {}

    def digest(key: DocKey) -> str | None:
        if key not in views:
            return None
        if key not in memo:
            memo[key] = text_digest(views[key].text)
        return memo[key]

    return digest


def _span_rank(
    sp: SupportSpan, chunks: Sequence[StoredChunk], hit_rank: dict[str, int], si: int
) -> float:
    """Direct spans are ordered by the rank of the hit that holds them (chunks a segment
    only bridges rank after every hit), then by key-term coverage."""
    rank = 1000 + si
    for c in chunks:
        if c.char_start <= sp.start < c.char_end and sp.unit.id in c.node_ids:
            rank = hit_rank.get(c.chunk_id, rank)
            break
    return rank * 100.0 + 50 - min(sp.coverage, 49)


def _evidence(
    index: KBIndex,
    query: str,
    hits: Sequence[Hit],
    segments: Sequence[Segment],
    views: dict[DocKey, DocView],
    cfg: EvidenceConfig,
    bud: Budget,
    weights: dict[str, float] | None = None,
) -> list[Fragment]:
    terms = query_terms(query)
    hit_rank = {h.chunk_id: h.rank for h in hits}
    by_meaning = {h.chunk_id for h in hits if "vector" in h.route_ranks}
    spans: dict[DocKey, list[tuple[SupportSpan, float]]] = {}
    chunk_cache: dict[DocKey, list[StoredChunk]] = {}
    for si, seg in enumerate(segments):
        key = (seg.doc_id, seg.version_id)
        view = views[key]
        chunks = chunk_cache.setdefault(key, _doc_chunks(index, key))
        units: list[Node] = []
        for c in chunks[seg.start : seg.end]:
            for nid in c.node_ids:
                u = view.unit_of(nid)
                if u is not None and u not in units:
                    units.append(u)
        found = select_spans(
            view,
            units,
            terms,
            max_spans=cfg.max_spans_per_segment,
            min_coverage=cfg.min_span_coverage,
            weights=weights,
        )
        found += best_hit_span(
            view,
            chunks[seg.start : seg.end],
            hit_rank,
            found,
            terms,
            by_meaning=by_meaning,
            min_coverage=cfg.min_span_coverage,
            weights=weights,
        )
        spans.setdefault(key, []).extend((sp, _span_rank(sp, chunks, hit_rank, si)) for sp in found)
    out: list[Fragment] = []
    for key, doc_spans in spans.items():
        view = views[key]
        out.extend(direct_fragments(view, doc_spans))
        out.extend(context_fragments(view, doc_spans, bud, cfg.adjacent_window))
    return out


def term_weights(
    index: KBIndex, terms: Sequence[str], filters: SearchFilters | None
) -> dict[str, float]:
    """Each key term's rarity in what the caller may read: ``1 + ln(N / (1 + df))``, at
    least 1 (a term every chunk holds weighs as one plain term; a rare one up to ~10)."""
    lexical = index.lexical
    population = index.population(filters.principal if filters else None)
    n = len(lexical) if population is None else population.n
    out = {}
    for t in dict.fromkeys(terms):
        df = lexical.document_frequency(t, population)
        out[t] = max(1.0, 1.0 + math.log(max(n, 1) / (1 + df)))
    return out


def _segment_decisions(
    hits: Sequence[Hit], segments: Sequence[Segment], rse: bool
) -> list[Decision]:
    if not rse:
        return []
    covered = {(s.doc_id, s.version_id) for s in segments}
    return [
        Decision(
            "drop",
            "direct_support",
            h.citation_id,
            h.path,
            0,
            "rse: no segment of this document reached the minimum segment value",
        )
        for h in hits
        if (h.doc_id, h.version_id) not in covered
    ]


__all__ = ["assemble", "truncate"]
