"""Scoring for ``bench.int8_eval``: exact cosine over cached vectors, emulated hybrid.

Vector mode as the product runs it (``recall.search._vector``): the ``pool`` best chunks by
cosine, those at or above the MiniLM threshold kept; a document takes its best chunk.
Hybrid: the product's lexical candidates for each query (``recall.search._lexical`` over the
same KB, ``depth`` per route, cached in ``lexical-<depth>.json``) fused with the vector ones
by ``fusion.convex`` with the shipped weights and normalisation (one route alone: its first
``pool``, as the product's rank fusion reads it). The graph and summary boosts and MMR are
not emulated (MMR is off in ``citewise eval retrieval``, which gives the product's own
figures).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


def lexical_candidates(cache: Path, data: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Query id -> chunk id -> BM25, from the product's lexical route (cached)."""
    from citewise.recall.search import RecallSettings

    s = RecallSettings(mmr=False)
    path = cache / f"lexical-{max(s.pool, s.depth)}.json"
    if path.exists():
        got: dict[str, dict[str, float]] = json.loads(path.read_text("utf-8"))
        return got
    from bench.int8_eval import _root
    from citewise.eval.retrieval import KB_NAME, _home, load_beir
    from citewise.recall.search import _lexical

    beir = load_beir(_root(), "test")
    homes = [p for p in (cache / "kb").iterdir() if p.is_dir()]
    home = _home(homes[0], "minilm", dense=False)
    try:
        index = home.index(KB_NAME)
        index.sync()
        allowed = set(index.chunks)
        out = {q: _lexical(index, text, allowed, s, None) for q, text in data["queries"].items()}
    finally:
        home.close()
    assert set(beir.qrels) == set(out)
    path.write_text(json.dumps(out), "utf-8")
    return out


def _vector_scores(
    q: np.ndarray[Any, Any], p: np.ndarray[Any, Any], ids: list[str], pool: int, threshold: float
) -> list[dict[str, float]]:
    sims = q @ p.T
    out = []
    for row in sims:
        top = np.argpartition(-row, pool)[:pool]
        out.append({ids[j]: float(row[j]) for j in top if row[j] >= threshold})
    return out


def _first(scores: dict[str, float], n: int) -> dict[str, float]:
    """The ``n`` best of ``scores`` (ties by id, as ``fusion.ranked`` orders them)."""
    return {c: scores[c] for c in sorted(scores, key=lambda c: (-scores[c], c))[:n]}


def _doc_run(chunk_scores: dict[str, float], doc_of: dict[str, str]) -> dict[str, float]:
    run: dict[str, float] = {}
    for c, s in chunk_scores.items():
        d = doc_of[c]
        run[d] = max(run.get(d, float("-inf")), s)
    return run


def score_all(
    cache: Path, data: dict[str, Any], variants: list[str], hybrid: bool
) -> dict[str, Any]:
    from citewise.eval.retrieval import evaluate_run
    from citewise.recall.fusion import convex
    from citewise.recall.search import RecallSettings

    s = RecallSettings(mmr=False)
    threshold = s.thresholds("minilm")[0]
    ids = [r["chunk"] for r in data["chunks"]]
    doc_of = {r["chunk"]: r["doc"] for r in data["chunks"]}
    qids = list(data["queries"])
    qrels = data["qrels"]
    lex = lexical_candidates(cache, data) if hybrid else {}
    results: dict[str, Any] = {}
    for v in variants:
        pv, _, qv = v.partition("/")
        p = np.load(cache / f"{pv}.passages.npy")
        q = np.load(cache / f"{qv or pv}.queries.npy")
        deep = _vector_scores(q, p, ids, max(s.pool, s.depth), threshold)
        vec = [_first(vs, s.pool) for vs in deep]
        run = {qid: _doc_run(vs, doc_of) for qid, vs in zip(qids, vec, strict=True)}
        row: dict[str, Any] = {"vector": evaluate_run(qrels, run)}
        if hybrid:
            fused_run = {}
            for qid, vs in zip(qids, deep, strict=True):
                routes = {"lexical": lex[qid], "vector": vs}
                routes = {k: r for k, r in routes.items() if r}
                if len(routes) == 2:
                    fused = convex(routes, s.weights, s.normalisation)
                else:
                    fused = _first(routes.get("lexical", vs), s.pool)
                fused_run[qid] = _doc_run(fused, doc_of)
            row["hybrid"] = evaluate_run(qrels, fused_run)
        results[v] = {m: {k: round(x, 4) for k, x in r.items()} for m, r in row.items()}
    return results
