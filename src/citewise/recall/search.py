"""Hybrid recall: scope first, then the identifier, lexical and vector routes, fusion,
diversification, abstention and honest per-route diagnostics.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np

from citewise.analysis.question import Question, analyse
from citewise.analysis.tokenize import is_cjk_char, query_tokens, term_coverage, tokenize
from citewise.core.access import visible_chunks
from citewise.core.locator import locate
from citewise.core.records import sha256_text
from citewise.core.search import (
    Abstention,
    Hit,
    RouteDiagnostic,
    RouteName,
    SearchFilters,
    SearchMode,
    SearchResult,
)
from citewise.core.stored import ClauseMatch
from citewise.graph.models import Point
from citewise.graph.select import GraphDiagnostics, graph_boost, graph_context
from citewise.index.embedder import Unavailable
from citewise.index.manager import KBIndex
from citewise.index.vectors import VectorHit
from citewise.recall.editions import (
    EditionScope,
    edition_scope,
    hit_clause,
    summary_boosts,
)
from citewise.recall.fusion import (
    FloatArray,
    IntArray,
    Jaccard,
    Normalisation,
    convex,
    mmr_columns,
    rank_term_scale,
    ranked,
    rrf,
)
from citewise.recall.gate import meaning_read
from citewise.recall.identifiers import clause_refs
from citewise.recall.passage_scope import document_placed
from citewise.recall.rerank import rerank_pool
from citewise.recall.rerank import skipped as rerank_skipped
from citewise.recall.summaries import BOOST as SUMMARY_BOOST
from citewise.recall.zh_laws import law_scope

#: Rank fusion weights when only one content route has candidates (identifier first).
RRF_WEIGHTS = {"identifier": 4.0, "lexical": 2.0, "vector": 1.0}


@dataclass(frozen=True, slots=True)
class RecallSettings:
    """Defaults are measured on SciFact (train split for weights; see docs/benchmarks.md)."""

    #: Fusion chosen on the SciFact *train* split (809 queries): convex over min-max
    #: scores, lexical 0.6 / vector 0.4, 100 candidates per content route (train 0.7360,
    #: test 0.7309 fp32). The z-score fusion over 300 candidates (``normalisation="zscore"``,
    #: ``depth=300``, weights 0.5 / 0.5: train 0.7397, test 0.7324) is measured and offered
    #: but not the default: on the documentation question sets it moved an answer to a
    #: sibling page that shares its words (docs/benchmarks.md "Fusion depth, z-scores and
    #: feedback"). The identifier route's
    #: weight puts an exact clause match first.
    pool: int = 100  # candidates the graph boost and MMR read from the fused order
    #: Candidates per content route that convex fusion sees (at least ``pool``). When only
    #: one content route has candidates, rank fusion reads the first ``pool`` of it, so a
    #: dense-off search ranks exactly as with ``depth == pool``.
    depth: int = 100
    normalisation: Normalisation = "minmax"
    #: Cosine thresholds per encoder, (any vector hit, a vector hit with no lexical
    #: candidate): encoders' cosines run on different scales (USE's lower than MiniLM's;
    #: docs/benchmarks.md). Keyed by :func:`encoder_key`. MiniLM's re-chosen on SciFact
    #: train (hybrid nDCG@10 0.7347 at 0.30, 0.7336 at 0.35, 0.7247 at 0.40); USE's not
    #: re-measured on a train split (CMRC has none), so it keeps the shared value. MiniLM's
    #: passage-mixed scores ("minilm:p96", ``passage_weight`` 0.6) run higher: chosen on
    #: train among the weights that keep the documentation sets' answers
    #: (``bench.maxp_thresholds --weight 0.6``: 0.7427 at 0.325, 0.7422 at 0.30; at 0.325
    #: the off-domain questions refused are the pooled route's at 0.30), the vector-only
    #: one by train quantile.
    encoder_thresholds: dict[str, tuple[float, float]] = field(
        default_factory=lambda: {
            "minilm": (0.30, 0.45),
            "minilm:p96": (0.325, 0.48),
            "use": (0.30, 0.45),
        }
    )
    #: Score a chunk by its short passages' vectors where the index keeps them
    #: (index/passages.py; "minilm:p96" thresholds); False: by its pooled vector.
    passages: bool = True
    #: With passages: a chunk's vector score is this share of its best passage's cosine
    #: plus the rest of its pooled vector's (1: the best passage alone). 0.6: the largest
    #: share that keeps every documentation answer (0.7 and 0.75 lose one, 1 three: a
    #: passage matching part of a question beats the section about it); SciFact train
    #: 0.7427 (best passage alone 0.7452, pooled 0.7340; docs/benchmarks.md).
    passage_weight: float = 0.6
    #: With passages: "document": the best (mixed) score places a chunk's document, its
    #: pooled vector orders it among the document's sections (recall/passage_scope.py);
    #: "chunk": each chunk by its own score. The same on one-chunk documents (SciFact).
    passage_scope: Literal["chunk", "document"] = "document"
    #: Set: one threshold for every encoder (measurement runs); None: the encoder's own.
    vector_threshold: float | None = None
    vector_only_threshold: float | None = None
    lexical_min_coverage: float = 0.34  # share of key terms the best lexical hit must hold
    #: ... unless its BM25 score reaches this (a strong match on the query's rarer terms:
    #: long claims rarely have a third of their words in one abstract). Chosen on the
    #: SciFact *train* trade-off curve against off-domain questions (bench/gate_curve.py,
    #: docs/benchmarks.md): 99.7 % of the train claims whose relevant abstract the index
    #: ranks in its top 10 pass (92.5 % without it). BM25 grows with the corpus's idf, so
    #: small KBs seldom reach it and keep the coverage rule alone.
    lexical_strong_score: float = 6.0
    #: ... unless the shipped cross-encoder reads the best match at this log-odds or more
    #: (recall/gate.py; chosen on the SciFact train curve against off-domain questions,
    #: docs/benchmarks.md); None: words alone decide.
    lexical_meaning_floor: float | None = -2.8
    fusion: Literal["rrf", "convex"] = "convex"
    rrf_k: int = 60
    weights: dict[str, float] = field(
        default_factory=lambda: {"identifier": 2.0, "lexical": 0.6, "vector": 0.4}
    )
    #: Superseded editions (stale status, or the target of a supersedes relation) keep this
    #: share of their fused score, so a current edition outranks them (they stay findable).
    stale_factor: float = 0.5
    #: Weight of the graph boost (an RRF-style term for pool members near the anchor).
    graph_boost: float = 0.5
    mmr: bool = True
    mmr_lambda: float = 0.7
    per_doc_cap: int = 2

    def thresholds(self, encoder: str) -> tuple[float, float]:
        """(vector threshold, vector-only threshold) for ``encoder`` (see encoder_key)."""
        base, only = self.encoder_thresholds.get(encoder, self.encoder_thresholds["minilm"])
        return (
            base if self.vector_threshold is None else self.vector_threshold,
            only if self.vector_only_threshold is None else self.vector_only_threshold,
        )


def encoder_key(index: KBIndex, passages: bool = True) -> str:
    """Which row of ``RecallSettings.encoder_thresholds`` the KB's encoder reads: its
    passage scores' own row when the vector route scores chunks by their passages."""
    emb = index.embedder
    if emb is not None and emb.multilingual:
        return "use"
    return "minilm:p96" if passages and index.passages is not None else "minilm"


def search(
    index: KBIndex,
    query: str,
    *,
    filters: SearchFilters | None = None,
    top_k: int = 10,
    mode: SearchMode = "hybrid",
    settings: RecallSettings | None = None,
    question: Question | None = None,
) -> SearchResult:
    """``question`` is ``query`` already analysed (the answer pipeline analyses it once);
    without it, the query is analysed here."""
    if question is not None and question.text != query:
        raise ValueError("search: the analysed question is not the query searched for")
    s = settings or RecallSettings()
    filters = filters or SearchFilters()
    index.sync()
    scope = filters
    allowed = set(
        index.scoped(scope, lambda: frozenset(visible_chunks(index.chunks.values(), scope)))
    )
    refs = clause_refs(query)
    found_clauses: list[list[ClauseMatch]] = []

    def clauses() -> list[ClauseMatch]:  # asked once, shared by editions and the route
        if not found_clauses:
            found_clauses.append(index.store.find_clauses(index.kb, refs))
        return found_clauses[0]

    eds = edition_scope(index, query, filters, clauses)  # editions left out before ranking
    if eds.excluded:
        allowed = {c for c in allowed if index.chunks[c].path not in eds.excluded}
    law = law_scope(index, query, filters.principal)  # a Chinese question naming a law
    if law.paths is not None:
        allowed = {c for c in allowed if index.chunks[c].path in law.paths}
    diags: list[RouteDiagnostic] = []
    rankings: dict[str, list[str]] = {}
    scores: dict[str, dict[str, float]] = {}

    def run(name: RouteName, fn: Callable[[], tuple[dict[str, float], float | None, str]]) -> None:
        t0 = time.perf_counter()
        found, threshold, problem = fn()
        ms = (time.perf_counter() - t0) * 1000
        if problem.startswith(SKIP):
            diags.append(
                RouteDiagnostic(name, "skipped", 0, None, threshold, ms, problem[len(SKIP) :])
            )
            return
        if problem:
            diags.append(RouteDiagnostic(name, "unavailable", 0, None, threshold, ms, problem))
            return
        top = max(found.values()) if found else None
        diags.append(RouteDiagnostic(name, "ok", len(found), top, threshold, ms))
        rankings[name] = ranked(found)
        scores[name] = found

    matched: dict[str, str] = {}  # chunk id -> clause path the identifier route found
    if refs:
        named = eds.named_paths
        held = allowed if named is None else {c for c in allowed if index.chunks[c].path in named}
        run("identifier", lambda: (_identifier(clauses(), refs, held, matched), None, ""))
    if mode in ("lexical", "hybrid"):
        run("lexical", lambda: (_lexical(index, query, allowed, s, filters.principal), 0.0, ""))
    if mode in ("vector", "hybrid"):
        run("vector", lambda: _vector(index, query, allowed, s))
    rerank_at = len(diags)  # the rerank route is listed here; it runs on the fused pool
    diags.append(rerank_skipped())
    criterion, abstain = _criterion(index, query, scores, s)
    if eds.abstention is not None:  # the edition the question names lacks it: say so
        criterion, abstain = eds.abstention.criterion, eds.abstention
    if law.abstention is not None:  # a Chinese law's edition asked for is absent
        criterion, abstain = law.abstention.criterion, law.abstention
    hits: list[Hit] = []
    graph_diag = None
    if abstain is None:
        # Convex weights were chosen for two content routes; with one (dense off, or no
        # vector candidate) the rank-based RRF keeps the graph boost on its measured scale.
        two_routes = bool(scores.get("lexical")) and bool(scores.get("vector"))
        convex_now = s.fusion == "convex" and two_routes
        if not convex_now:  # rank fusion reads the first `pool` of each route
            _cut(scores, rankings, diags, s.pool)
        fused = (
            convex(scores, s.weights, s.normalisation)
            if convex_now
            else rrf(rankings, RRF_WEIGHTS, s.rrf_k)
        )
        best = max(fused.values()) if convex_now and s.normalisation == "zscore" else None
        superseded = index.superseded_for(filters.principal)
        for cid in fused:
            if index.chunks[cid].path in superseded:
                fused[cid] *= s.stale_factor
        exact = eds.named_clause()
        if exact is not None and fused:  # the clause of the edition the question names: first
            top = max(fused.values())
            for cid, clause in matched.items():
                if clause == exact and cid in fused:
                    fused[cid] += top
        described = summary_boosts(index, query, eds)  # summaries help rank, never cited
        for cid in fused:
            if index.chunks[cid].path in described:
                fused[cid] *= SUMMARY_BOOST
        scale = (
            rank_term_scale([r for r in scores if scores[r]], s.weights, RRF_WEIGHTS, s.rrf_k, best)
            if convex_now
            else 1.0
        )
        analysed = analyse(query) if question is None else question
        graph_diag = _graph(index, analysed, fused, allowed, s, diags, scale, filters.principal)
        if index.reranker is not None:
            fused, diags[rerank_at] = rerank_pool(
                index.reranker, query, fused, _rerank_texts(index, list(fused)), index.rerank_config
            )
            if not fused:
                threshold = index.rerank_config.threshold
                criterion = "rerank_threshold"
                abstain = Abstention(
                    f"the reranker scored every candidate under its threshold {threshold}",
                    "rerank_threshold",
                )
        order = _diversify(index, ranked(fused), fused, top_k, s)
        revision = index.visible_revision(filters.principal)
        hits = _hits(index, order, fused, rankings, revision, eds, matched)
    elif index.reranker is not None:
        diags[rerank_at] = rerank_skipped("recall abstained: nothing to rerank")
    revision = index.visible_revision(filters.principal)  # of the pinned state, as it sees it
    used = {k: v for k, v in asdict(s).items()}
    if index.reranker is not None and not isinstance(index.reranker, Unavailable):
        used["reranker"] = index.reranker.fingerprint  # only when one is configured
    return SearchResult(
        query=query,
        mode=mode,
        revision=revision,
        outcome="ok" if abstain is None else "insufficient_evidence",
        hits=tuple(hits),
        routes=tuple(d.route for d in diags if d.status in ("ok", "degraded")),
        diagnostics=tuple(diags),
        criterion=criterion,
        abstention=abstain,
        settings=used,
        graph=graph_diag,
        editions=eds.info if law.info is None else {**(eds.info or {}), "zh_law": law.info},
        edition_scope=eds,
    )


def _cut(
    scores: dict[str, dict[str, float]],
    rankings: dict[str, list[str]],
    diags: list[RouteDiagnostic],
    n: int,
) -> None:
    """Keep the first ``n`` candidates of each content route (and say so in its
    diagnostic): what rank fusion reads, the same as a route that fetched only ``n``."""
    for name in ("lexical", "vector"):
        if name in rankings and len(rankings[name]) > n:
            rankings[name] = rankings[name][:n]
            scores[name] = {c: scores[name][c] for c in rankings[name]}
            at = next(i for i, d in enumerate(diags) if d.route == name)
            diags[at] = replace(diags[at], candidates=n)


def _graph(
    index: KBIndex,
    question: Question,
    fused: dict[str, float],
    allowed: set[str],
    s: RecallSettings,
    diags: list[RouteDiagnostic],
    scale: float = 1.0,
    principal: str | None = None,
) -> GraphDiagnostics | None:
    """Boost pool members near the query's anchor; the graph never adds candidates.
    ``scale`` carries the RRF-scale term onto the fusion's scale (see ``rank_term_scale``).
    The graph is the one assembled from what ``principal`` may read only, so the anchor,
    degrees, filtered counts and boosts never depend on documents it may not read."""
    if s.graph_boost <= 0:
        diags.append(RouteDiagnostic("graph", "skipped", 0, None, None, 0.0, "boost disabled"))
        return None
    t0 = time.perf_counter()
    kg = index.graph_for(principal)
    order = ranked(fused)

    def visible(point: Point) -> bool:
        return any(c in allowed for c in kg.chunks_of(point.key))

    diag = graph_context(kg, question, order[:10], visible=visible, has_evidence=visible)
    ms = (time.perf_counter() - t0) * 1000
    if diag.status != "ok" or diag.anchor is None:
        reason = diag.reason or "no anchor for this query"
        diags.append(RouteDiagnostic("graph", "unavailable", 0, None, None, ms, reason))
        return diag
    boosts = graph_boost(order[: s.pool], diag.anchor, kg, intent=diag.intent, weight=s.graph_boost)
    boosts = {cid: b * scale for cid, b in boosts.items()}
    for cid, b in boosts.items():
        if cid in fused and cid in allowed:
            fused[cid] += b
    top = max(boosts.values()) if boosts else None
    ms = (time.perf_counter() - t0) * 1000
    diags.append(RouteDiagnostic("graph", "ok", len(boosts), top, None, ms))
    return diag


def _rerank_texts(index: KBIndex, pool: list[str]) -> Callable[[str], str]:
    """What the reranker reads of a candidate: its breadcrumb (title, headings) and text;
    the pool's texts are read from the store at the first call (none if it never runs)."""
    texts: dict[str, str] = {}

    def text_of(chunk_id: str) -> str:
        if not texts:
            texts.update(index.chunk_texts(pool))
        c = index.chunks[chunk_id]
        text = texts[chunk_id] if chunk_id in texts else index.chunk_text(chunk_id)
        return f"{c.breadcrumb}\n{text}" if c.breadcrumb else text

    return text_of


def _identifier(
    matches: list[ClauseMatch], refs: list[str], allowed: set[str], matched: dict[str, str]
) -> dict[str, float]:
    found: dict[str, float] = {}
    for m in matches:
        if m.chunk_id not in allowed:
            continue
        # More specific references come first in ``refs``: a chunk scores by the most
        # specific clause it holds (not by whichever match the store lists first).
        score = float(len(refs) - refs.index(m.clause_path))
        if score > found.get(m.chunk_id, 0.0):
            found[m.chunk_id], matched[m.chunk_id] = score, m.clause_path
    return found


def _lexical(
    index: KBIndex, query: str, allowed: set[str], s: RecallSettings, principal: str | None
) -> dict[str, float]:
    """BM25 with the statistics of what ``principal`` may read (N, df, average length), so
    no score moves when a document it may not read is added, changed or removed."""
    everything = len(allowed) == len(index.chunks)
    tokens = query_tokens(query)
    hits = index.lexical.search_tokens(
        tokens,
        k=max(s.pool, s.depth),
        allowed=None if everything else allowed,
        population=index.population(principal),
    )
    return {h.chunk_id: float(h.score) for h in hits if h.score > 0}


def _vector(
    index: KBIndex, query: str, allowed: set[str], s: RecallSettings
) -> tuple[dict[str, float], float | None, str]:
    qvec = index.embed_query(query)
    threshold = s.thresholds(encoder_key(index, s.passages))[0]
    if qvec is None and index.dense.status == "disabled":
        return {}, threshold, SKIP + index.dense.reason  # off on purpose: skipped
    if qvec is None or index.vectors is None:
        return {}, threshold, index.dense.reason or "dense route unavailable"
    if index.embedder is not None and not index.embedder.multilingual and _cjk_share(query) > 0.3:
        return (
            {},
            threshold,
            SKIP + (f"{index.embedder.name} is English-only; this query is mostly CJK text"),
        )
    everything = len(allowed) == len(index.chunks)
    k = max(s.pool, s.depth)
    mix = s.passages and index.passages is not None and s.passage_weight < 1.0
    hits = index.search_vectors(
        qvec, 2 * k if mix else k, None if everything else allowed, passages=s.passages
    )
    if s.passages and index.passages is not None:
        hits, own = _passage_scored(index, qvec, hits, s, k)
        # the threshold reads each chunk's own score: placing by document only reorders
        kept = {h.id: float(h.score) for h in hits if own.get(h.id, h.score) >= threshold}
        return kept, threshold, ""
    return ({h.id: float(h.score) for h in hits if h.score >= threshold}, threshold, "")


def _passage_scored(
    index: KBIndex, qvec: FloatArray, hits: list[VectorHit], s: RecallSettings, k: int
) -> tuple[list[VectorHit], dict[str, float]]:
    """Best-passage hits mixed with the pooled vector (``passage_weight`` < 1) and placed
    by document (``passage_scope``; recall/passage_scope.py), the first ``k``; and each
    chunk's own (mixed) score, which the threshold reads (a section's place under its
    document's best one says nothing of whether it is relevant). As they are where the
    index holds no pooled vector of some hit."""
    vectors = index.vectors
    if s.passage_weight >= 1.0 and s.passage_scope == "chunk":
        return hits[:k], {}
    if not hits or vectors is None or not all(h.id in vectors for h in hits):
        return hits[:k], {}
    pooled = (vectors.get([h.id for h in hits]) @ qvec).tolist()
    a = s.passage_weight
    if a < 1.0:
        hits = [
            VectorHit(h.id, a * h.score + (1 - a) * p) for h, p in zip(hits, pooled, strict=True)
        ]
    own = {h.id: h.score for h in hits}
    if s.passage_scope == "document":
        chunks = index.chunks
        doc = {h.id: (chunks[h.id].doc_id, chunks[h.id].version_id) for h in hits}
        return document_placed(hits, pooled, doc)[:k], own
    return sorted(hits, key=lambda h: (-h.score, h.id))[:k], own


SKIP = "skipped: "


def _cjk_share(text: str) -> float:
    chars = [c for c in text if not c.isspace()]
    return sum(1 for c in chars if is_cjk_char(c)) / len(chars) if chars else 0.0


def _criterion(
    index: KBIndex, query: str, scores: dict[str, dict[str, float]], s: RecallSettings
) -> tuple[str, Abstention | None]:
    if scores.get("identifier"):
        return "identifier", None
    vector = scores.get("vector") or {}
    if vector and ("lexical" not in scores or scores["lexical"]):
        return "vector_threshold", None
    if vector and max(vector.values()) >= s.thresholds(encoder_key(index, s.passages))[1]:
        return "vector_only", None
    lexical = scores.get("lexical") or {}
    if not lexical:
        vector_ran = "vector" in scores
        reason = (
            "no chunk passed the vector threshold and no term matched"
            if vector_ran
            else "no chunk matched any query term"
        )
        return "no_candidates", Abstention(reason, "no_candidates")
    best = ranked(lexical)[0]
    chunk = index.chunks[best]
    text = index.chunk_text(best)
    cover = term_coverage(query, [chunk.breadcrumb, text])
    if cover.ratio >= s.lexical_min_coverage or lexical[best] >= s.lexical_strong_score:
        return "lexical_only", None
    floor = s.lexical_meaning_floor  # a refusal's second reading (recall/gate.py)
    read = None if floor is None else meaning_read(query, chunk.breadcrumb, text)
    if read is not None and floor is not None and read >= floor:
        return "lexical_meaning", None
    missing = ", ".join(cover.missing[:5])
    by_meaning = (
        "" if read is None else (f"; the meaning model reads it at {read:.2f}, needs {floor}")
    )
    return "lexical_coverage", Abstention(
        f"the best lexical match covers {cover.ratio:.0%} of the key terms "
        f"(missing: {missing}){by_meaning}",
        "lexical_coverage",
    )


def _diversify(
    index: KBIndex, order: list[str], fused: dict[str, float], top_k: int, s: RecallSettings
) -> list[str]:
    if not s.mmr:
        return order[:top_k]
    pool = order[: max(top_k * 3, s.pool)]
    vecs = (
        index.vectors.get(pool)
        if index.vectors is not None and all(c in index.vectors for c in pool)
        else None
    )
    if vecs is not None:
        sims = vecs @ vecs.T
        column: Callable[[int], FloatArray] = lambda j: sims[:, j]  # noqa: E731
    else:
        column = Jaccard([_token_ids(index, c) for c in pool])
    return mmr_columns(
        pool,
        fused,
        column,
        top_k,
        lam=s.mmr_lambda,
        groups=[index.chunks[c].doc_id for c in pool],
        per_group_cap=s.per_doc_cap,
    )


#: Chunks whose MMR token sets one index state keeps.
TOKEN_CACHE = 32768


def _token_ids(index: KBIndex, chunk_id: str) -> IntArray:
    """The distinct tokens of a chunk (for MMR's word overlap) as ids of one vocabulary,
    both kept with the index state."""
    return index.cached("mmr-token-ids", chunk_id, lambda: _ids(index, chunk_id), TOKEN_CACHE)


def _ids(index: KBIndex, chunk_id: str) -> IntArray:
    """A chunk of the lexical index's merged segment: its term ids there (the vocabulary
    is seeded with that segment's terms, so they are its word ids); else its words."""
    vocabulary = _vocabulary(index)
    chunk = index.chunks[chunk_id]
    got = index.lexical.text_term_ids(chunk_id, chunk.breadcrumb)
    return got if got is not None else vocabulary.of(_words(index, chunk_id))


def _words(index: KBIndex, chunk_id: str) -> list[str]:
    """``tokenize(search_text)`` of a chunk as a set: read from the lexical index's row
    (indexed from the same text), else tokenized."""
    chunk = index.chunks[chunk_id]
    got = index.lexical.text_terms(chunk_id, chunk.breadcrumb)
    return got if got is not None else tokenize(index.chunk_text(chunk_id))


_VOCABULARY_LOCK = threading.Lock()


def _vocabulary(index: KBIndex) -> WordIds:
    """The word ids of one index state: one object, so that ids never mix (made under a
    lock, kept in a table of its own)."""
    got = index.lookup("mmr-vocabulary", "")
    if got is None:
        with _VOCABULARY_LOCK:
            got = index.lookup("mmr-vocabulary", "")
            if got is None:
                got = WordIds(index.lexical.main_term_ids())
                index.keep("mmr-vocabulary", "", got, 1)
    assert isinstance(got, WordIds)
    return got


class WordIds:
    """Integer ids for words, the same id for the same word (ids are unique but may skip
    numbers when two threads add words at once)."""

    def __init__(self, base: Mapping[str, int] | None = None) -> None:
        """``base``: ids some words already have (the lexical index's merged-segment term
        ids, read, not copied: distinct ids from 0); other words get ids after them."""
        self._base: Mapping[str, int] = base if base is not None else {}
        self._ids: dict[str, int] = {}
        self._next = itertools.count(len(self._base))

    def of(self, words: Iterable[str]) -> IntArray:
        """The ids of the distinct ``words``."""
        base, ids = self._base, self._ids
        out = []
        for w in set(words):
            got = base.get(w)
            if got is None:
                got = ids.get(w)
                if got is None:
                    got = ids.setdefault(w, next(self._next))
            out.append(got)
        return np.array(out, dtype=np.int64)


def _hits(
    index: KBIndex,
    order: list[str],
    fused: dict[str, float],
    rankings: dict[str, list[str]],
    revision: int,
    eds: EditionScope,
    matched: dict[str, str],
) -> list[Hit]:
    texts: dict[tuple[str, int], str] = {}
    out = []
    for rank, cid in enumerate(order, start=1):
        c = index.chunks[cid]
        key = (c.doc_id, c.version_id)
        if key not in texts:
            texts[key] = index.version_text(c.doc_id, c.version_id)
        excerpt = texts[key][c.char_start : c.char_end]
        locator = None
        if c.metadata.get("locators"):  # only the nodes around the chunk are read
            span = [(c.char_start, c.char_end)]
            near = index.nodes_near(c.path, c.version_id, span).nodes
            locator = locate(near, c.char_start, c.char_end)
        out.append(
            Hit(
                rank=rank,
                score=round(fused[cid], 6),
                chunk_id=cid,
                citation_id=cid,
                doc_id=c.doc_id,
                path=c.path,
                title=c.breadcrumb.split(" > ")[0],
                version_id=c.version_id,
                revision=revision,
                node_ids=c.node_ids,
                heading_path=c.heading_path,
                line_start=c.line_start,
                line_end=c.line_end,
                char_start=c.char_start,
                char_end=c.char_end,
                excerpt=excerpt,
                sha256=sha256_text(excerpt),
                route_ranks={r: ids.index(cid) + 1 for r, ids in rankings.items() if cid in ids},
                locator=locator,
                regulation=eds.reference(c.path, hit_clause(index, c, matched.get(cid)))
                if c.path in eds.editions
                else None,
            )
        )
    return out


def search_summary(result: SearchResult) -> dict[str, Any]:
    """What a result ranked and why, without timings: the retrieval part of an answer's
    conditions (audit replay compares it stage by stage)."""
    return {
        "revision": result.revision,
        "outcome": result.outcome,
        "criterion": result.criterion,
        "routes": list(result.routes),
        "hits": [[h.chunk_id, h.sha256] for h in result.hits],
        "diagnostics": [
            {k: v for k, v in asdict(d).items() if k != "ms" and (k != "dropped" or v)}
            for d in result.diagnostics
        ],
        "abstention": asdict(result.abstention) if result.abstention else None,
        **({"editions": _replayable(result.editions)} if result.editions else {}),
    }


def _replayable(editions: dict[str, Any]) -> dict[str, Any]:
    """The edition filter without today's date (what it left out is what ranking saw)."""
    if editions.get("as_of_source") == "today":
        return {k: v for k, v in editions.items() if k != "as_of"}
    return editions


__all__ = ["RecallSettings", "search", "search_summary"]
