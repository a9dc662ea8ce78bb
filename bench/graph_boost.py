"""Graph boost on vs off (``RecallSettings.graph_boost``), lexical recall only.

1. BEIR SciFact, 300 test queries: abstracts carry no links, so the graph holds little
   beyond containment; the point is that the boost does no harm. nDCG@10, Recall@100
   and MRR@10 over a top-100 run (chunk hits mapped to documents by path stem, max score
   per document), via :func:`bench._beir.evaluate`. The KB is the one
   :mod:`bench.evidence_scifact` builds (dense off, ``~/.cache/citewise/evidence-scifact``).
   Skips cleanly when the dataset is absent (``$CITEWISE_DATA`` overrides the root).
2. ``tests/fixtures/graph_bench``: a small runbook corpus with front-matter relations,
   Markdown and ``[[wiki]]`` links and Mermaid flowcharts, and queries whose answer is a
   document linked to the plainly matching one. nDCG@10, Recall@10 and MRR@10 (trec_eval
   semantics via pytrec_eval), overall and per query kind (``linked`` / ``direct``).
   Then answer-level results on the same fixture (:func:`answers`): the answer cites a
   relevant document; a relation question's answer names the relation to a relevant
   document and cites both the edge's source span and the neighbour's text.

    .venv/bin/python -m bench.graph_boost [--limit N] [--skip-scifact] [--hybrid] [--json out.json]

``--hybrid`` also scores SciFact in the shipped hybrid mode (dense on, as ``citewise eval
retrieval --mode hybrid`` does, on its cached KB).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "graph_bench"
WEIGHTS = (0.0, 0.5)  # graph boost off, on (the default)

Run = dict[str, dict[str, float]]


def _doc_run(hits: Any, key: Any) -> dict[str, float]:
    """Chunk hits -> documents, max score per document; scores are made strictly
    decreasing by rank so trec_eval's tie-breaking (by doc id) cannot reorder them."""
    best: dict[str, float] = {}
    for h in hits:
        d = key(h)
        if d not in best or h.score > best[d]:
            best[d] = h.score
    order = sorted(best, key=lambda d: -best[d])
    return {d: float(len(order) - i) for i, d in enumerate(order)}


FUSION: Any = ""  # "" keeps RecallSettings' default fusion; "rrf" or "convex" overrides it
SETTINGS: dict[str, Any] = {}  # the settings of the last search, as the result reports them


def _search(kb: Any, text: str, weight: float, top_k: int, mode: str = "lexical") -> Any:
    from dataclasses import replace

    from citewise.recall.search import RecallSettings

    s = replace(RecallSettings(), graph_boost=weight)
    if FUSION:
        s = replace(s, fusion=FUSION)
    res = kb.search(text, top_k=top_k, mode=mode, settings=s)
    SETTINGS.clear()
    SETTINGS.update(res.settings)
    return res


# -- SciFact -----------------------------------------------------------------------------
def scifact(limit: int) -> dict[str, dict[str, float]] | None:
    from bench._beir import data_root, evaluate, load_qrels, load_queries
    from bench.evidence_scifact import _cache, build

    root = data_root() / "beir-scifact"
    if not (root / "queries.jsonl").exists():
        print(f"SciFact not found under {root}; skipping.")
        return None
    from citewise.kb import Home

    home = build(root, _cache())
    queries = load_queries(root)
    qrels = load_qrels(root, "test")
    qids = [q for q in sorted(qrels) if q in queries]
    if limit:
        qids = qids[:limit]
    qrels = {q: qrels[q] for q in qids}
    out: dict[str, dict[str, float]] = {}
    with Home.open(home) as h:
        kb = h.kb()
        for w in WEIGHTS:
            run: Run = {}
            t0 = time.perf_counter()
            for qid in qids:
                res = _search(kb, queries[qid], w, 100)
                run[qid] = _doc_run(res.hits, lambda hit: unquote(Path(hit.path).stem))
            secs = time.perf_counter() - t0
            m = {k: round(v, 4) for k, v in evaluate(qrels, run).items()}
            m["queries"] = len(qids)
            m["ms_per_query"] = round(1000 * secs / max(1, len(qids)), 1)
            out[f"boost_{w}"] = m
            print("scifact", f"graph_boost={w}", m, flush=True)
    return out


def scifact_hybrid() -> dict[str, dict[str, float]] | None:
    """The shipped hybrid mode (dense on, MMR off) as ``citewise eval retrieval`` runs it,
    on the KB it caches under ``~/.cache/citewise/eval``; only ``graph_boost`` varies."""
    from dataclasses import replace

    from bench._beir import data_root
    from citewise.eval.retrieval import evaluate_beir
    from citewise.recall.search import RecallSettings

    root = data_root() / "beir-scifact"
    if not (root / "queries.jsonl").exists():
        print(f"SciFact not found under {root}; skipping.")
        return None
    out: dict[str, dict[str, float]] = {}
    for w in WEIGHTS:
        s = replace(RecallSettings(mmr=False), graph_boost=w)
        rep = evaluate_beir(root, mode="hybrid", settings=s).to_dict()
        m = {k: v for k, v in rep.items() if isinstance(v, float) and "@" in k}
        m.update({f"{k}_ms": v for k, v in rep["latency_ms"].items()})
        m.update(queries=rep["n_queries"], abstained=rep["abstained"])
        out[f"boost_{w}"] = m
        print("scifact hybrid", f"graph_boost={w}", m, flush=True)
    return out


# -- fixture -----------------------------------------------------------------------------
def _fixture_metrics(qrels: dict[str, dict[str, int]], run: Run) -> dict[str, float]:
    import pytrec_eval

    top10 = {q: dict(sorted(run.get(q, {}).items(), key=lambda kv: -kv[1])[:10]) for q in qrels}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.10", "recip_rank"})
    per_q = ev.evaluate(top10)
    n = len(qrels)

    def mean(name: str) -> float:
        return round(sum(per_q.get(q, {}).get(name, 0.0) for q in qrels) / n, 4)

    return {
        "ndcg@10": mean("ndcg_cut_10"),
        "recall@10": mean("recall_10"),
        "mrr@10": mean("recip_rank"),
    }


def fixture(verbose: bool, mode: str = "lexical") -> dict[str, Any]:
    """The fixture in ``mode``: ``lexical`` (dense off) or ``hybrid`` (the shipped default,
    dense on with the packaged MiniLM encoder)."""
    import yaml

    from citewise.kb import Home

    spec = yaml.safe_load((FIXTURE / "queries.yaml").read_text("utf-8"))["queries"]
    corpus = FIXTURE / "corpus"
    qrels = {q["id"]: {p: 1 for p in q["relevant"]} for q in spec}
    kinds = {q["id"]: q["kind"] for q in spec}
    out: dict[str, Any] = {
        "queries": len(spec),
        "docs": len(list(corpus.glob("*.md"))),
        "mode": mode,
    }
    os.environ["CITEWISE_DENSE"] = "on" if mode == "hybrid" else "off"
    ranks: dict[str, dict[float, list[str]]] = {q["id"]: {} for q in spec}
    chunk_scores: dict[str, dict[float, dict[str, tuple[str, float]]]] = {q["id"]: {} for q in spec}
    with (
        tempfile.TemporaryDirectory(prefix="citewise-graph-bench-") as tmp,
        Home.open(Path(tmp) / "home") as h,
    ):
        kb = h.kb()
        kb.add([corpus])
        for w in WEIGHTS:
            run: Run = {}
            for q in spec:
                res = _search(kb, q["text"], w, 50, mode)
                run[q["id"]] = _doc_run(res.hits, lambda hit: Path(hit.path).name)
                ranks[q["id"]][w] = sorted(run[q["id"]], key=lambda d: -run[q["id"]][d])
                chunk_scores[q["id"]][w] = {
                    x.chunk_id: (Path(x.path).name, x.score) for x in res.hits
                }
            row: dict[str, Any] = {"all": _fixture_metrics(qrels, run)}
            for kind in sorted(set(kinds.values())):
                sub = {q: r for q, r in qrels.items() if kinds[q] == kind}
                row[kind] = _fixture_metrics(sub, run)
            out[f"boost_{w}"] = row
            print("fixture", mode, f"graph_boost={w}", row, flush=True)
    per_query = {}
    off_w, on_w = WEIGHTS
    for q in spec:
        qid, rel = q["id"], set(q["relevant"])
        off, on = chunk_scores[qid][off_w], chunk_scores[qid][on_w]
        # A document counts as boosted when one of its chunks scores higher with the boost
        # (fusion is otherwise identical); "in pool" when it was retrieved at all.
        boosted = sorted({on[c][0] for c in on if c in off and on[c][1] > off[c][1] + 1e-12})
        per_query[qid] = {
            "kind": q["kind"],
            "ranks_off": [i + 1 for i, d in enumerate(ranks[qid][off_w]) if d in rel],
            "ranks_on": [i + 1 for i, d in enumerate(ranks[qid][on_w]) if d in rel],
            "relevant_in_pool": sorted(rel & set(ranks[qid][off_w])),
            "relevant_boosted": sorted(rel & set(boosted)),
            "boosted": boosted,
        }
        if verbose:
            r = per_query[qid]
            print(
                f"  {qid} {q['kind']:6} relevant ranks off {r['ranks_off']} on {r['ranks_on']}"
                f"  in pool {r['relevant_in_pool']}  boosted {r['boosted']}"
            )
    linked = [r for r in per_query.values() if r["kind"] == "linked"]
    out["linked_diagnosis"] = {
        "queries": len(linked),
        "abstained": sum(1 for q in spec if q["kind"] == "linked" and not ranks[q["id"]][off_w]),
        "relevant_docs": sum(len(qrels[q]) for q in qrels if kinds[q] == "linked"),
        "relevant_in_pool": sum(len(r["relevant_in_pool"]) for r in linked),
        "relevant_boosted": sum(len(r["relevant_boosted"]) for r in linked),
    }
    print(f"fixture {mode} linked queries:", out["linked_diagnosis"], flush=True)
    out["per_query"] = per_query
    return out


def answers(verbose: bool) -> dict[str, Any]:
    """Answer-level results on the fixture (dense off, default settings): does the answer
    cite a relevant document, and - for questions that ask about a relation (requires,
    precedes, replaced by, causes, part of; :mod:`citewise.answer.relation.graph`) - does it
    name a relation to a relevant document and cite both the edge's source span and the
    neighbour's own text?"""
    import yaml

    from citewise.answer.relation.graph import asked_relation
    from citewise.eval.probes import check_relation
    from citewise.kb import Home

    spec = yaml.safe_load((FIXTURE / "queries.yaml").read_text("utf-8"))["queries"]
    os.environ["CITEWISE_DENSE"] = "off"
    rows: dict[str, dict[str, Any]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="citewise-graph-answers-") as tmp,
        Home.open(Path(tmp) / "home") as h,
    ):
        kb = h.kb()
        kb.add([FIXTURE / "corpus"])
        for q in spec:
            rel = set(q["relevant"])
            a = kb.ask(q["text"])
            relation = a.trace.get("relation")
            statements = relation["statements"] if relation else []
            named = [s for s in statements if Path(s["neighbour_path"]).name in rel]
            cited_both = any(not check_relation(a, s["relation"]) for s in named)
            rows[q["id"]] = {
                "kind": q["kind"],
                "relation_asked": asked_relation(q["text"]) is not None,
                "outcome": a.outcome,
                "relevant_cited": bool(rel & {Path(c.path).name for c in a.citations}),
                "relation_named": bool(named),
                "relation_cited": cited_both,
                "statements": [s["text"] for s in statements],
            }
            if verbose:
                print(f"  {q['id']} {rows[q['id']]}")

    def share(sel: list[dict[str, Any]], key: str) -> float:
        return round(sum(bool(r[key]) for r in sel) / len(sel), 4) if sel else 0.0

    out: dict[str, Any] = {"per_query": rows}
    for name, sel in (
        ("all", list(rows.values())),
        ("linked", [r for r in rows.values() if r["kind"] == "linked"]),
        ("relation_asked", [r for r in rows.values() if r["relation_asked"]]),
    ):
        out[name] = {
            "queries": len(sel),
            "answered": share([{"x": r["outcome"] == "answered"} for r in sel], "x"),
            "relevant_cited": share(sel, "relevant_cited"),
            "relation_named": share(sel, "relation_named"),
            "relation_cited": share(sel, "relation_cited"),
        }
        print("fixture answers", name, out[name], flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=0, help="only the first N SciFact queries")
    ap.add_argument("--skip-scifact", action="store_true", help="run the fixture only")
    ap.add_argument(
        "--fusion", choices=("rrf", "convex"), help="override RecallSettings' default fusion"
    )
    ap.add_argument(
        "--hybrid", action="store_true", help="also SciFact in the shipped hybrid mode (dense on)"
    )
    ap.add_argument("-v", "--verbose", action="store_true", help="per-query fixture ranks")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    global FUSION
    FUSION = args.fusion or ""
    result: dict[str, Any] = {}
    if args.hybrid and not args.skip_scifact:
        result["scifact_hybrid"] = scifact_hybrid()
    result["fixture"] = fixture(args.verbose)
    result["fixture_answers"] = answers(args.verbose)
    if args.hybrid:
        result["fixture_hybrid"] = fixture(args.verbose, "hybrid")
    os.environ["CITEWISE_DENSE"] = "off"
    if not args.skip_scifact:
        result["scifact"] = scifact(args.limit)
    result["settings"] = {k: v for k, v in SETTINGS.items() if k != "graph_boost"}
    print("settings (graph_boost varied):", result["settings"], flush=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
