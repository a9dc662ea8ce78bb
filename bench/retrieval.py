"""Hybrid recall through the product path (KnowledgeBase.search) on BEIR SciFact and CMRC 2018.

Run: ``.venv/bin/python -m bench.retrieval [--json] [--no-grid] [--no-lexical-peer]``

* SciFact: the corpus becomes a cached KB (``citewise.eval.retrieval.prepare_kb``: one
  Markdown file per abstract, ingested and encoded once); lexical, vector and hybrid
  nDCG@10 / Recall@100 / MRR@10 on the test split (300 queries), MMR off;
* fusion (RRF vs convex), route weights and pool size chosen on the **train** split
  (809 queries) by nDCG@10, then the test score of the train-chosen setting;
* abstention calibration: top-1 cosine and lexical key-term coverage of SciFact test
  queries (answerable) vs off-domain queries (CMRC Chinese questions, 14 CFR section
  subjects) against the SciFact KB, and the product's outcome under candidate thresholds;
* hybrid latency p50/p95 one query at a time, peak RSS, encoder passages/s and the share of
  ingest time spent outside the encoder (from the KB's full build);
* the lexical route's q/s and build time vs bm25s, measured in the same run by
  ``bench.lexical_scifact``;
* CMRC 2018 zh retrieval-dev: lexical, dense (MiniLM and multilingual USE) and hybrid.

``OPENBLAS_NUM_THREADS=1`` is set before numpy is imported (one query at a time; see
bench/README.md). Skips (exit 0) without the data. Output: bench/out/retrieval.json.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

import argparse
import dataclasses
import json
import re
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench._beir import data_root
from citewise.analysis.tokenize import term_coverage
from citewise.core.search import SearchMode
from citewise.eval.retrieval import (
    BeirSet,
    doc_id_of,
    evaluate_run,
    load_beir,
    prepare_kb,
    run_queries,
)
from citewise.index.manager import KBIndex
from citewise.kb import KnowledgeBase
from citewise.recall.search import RecallSettings

OUT = Path(__file__).resolve().parent / "out" / "retrieval.json"
CACHE: Path | None = None  # the default eval cache, shared with `citewise eval retrieval`
RRF_RATIOS = (0.5, 1.0, 1.5, 2.0)  # lexical weight : vector weight
CONVEX_LEX = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)  # lexical weight; vector = 1 - it
POOLS = (50, 100)
ID_WEIGHT = 4.0


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _r(m: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in m.items()}


def _pct(values: Sequence[float], ps: Sequence[int] = (5, 25, 50, 75, 95)) -> dict[str, float]:
    if not values:
        return {}
    arr = np.asarray(values, dtype=np.float64)
    return {f"p{p}": round(float(np.percentile(arr, p)), 3) for p in ps}


def _rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _memo(index: KBIndex) -> Callable[[], None]:
    """Encode each query text once while a grid re-runs the same queries; returns undo."""
    original = index.embed_query
    seen: dict[str, Any] = {}

    def embed(query: str) -> Any:
        if query not in seen:
            seen[query] = original(query)
        return seen[query]

    index.embed_query = embed  # type: ignore[method-assign]
    return lambda: setattr(index, "embed_query", original)


def _settings(fusion: str, lex: float, vec: float, pool: int, **kw: Any) -> RecallSettings:
    """The grid's rows as documented: min-max convex and ``pool`` candidates per route
    (the shipped z-score fusion over 300 per route is chosen by bench.fusion_scifact)."""
    weights = {"identifier": ID_WEIGHT, "lexical": lex, "vector": vec}
    return dataclasses.replace(
        RecallSettings(),
        fusion="convex" if fusion == "convex" else "rrf",
        weights=weights,
        pool=pool,
        depth=pool,
        normalisation="minmax",
        mmr=False,
        **kw,
    )


def _score(
    kb: KnowledgeBase,
    data: BeirSet,
    mode: SearchMode,
    s: RecallSettings,
    top_k: int = 100,
    chunks: int | None = None,
) -> dict[str, Any]:
    qids = sorted(data.qrels)
    got = run_queries(kb, data.queries, qids, mode=mode, settings=s, top_k=top_k, chunks=chunks)
    lat = got.latencies_ms
    return {
        **_r(evaluate_run(data.qrels, got.run)),
        "abstained": got.abstained,
        "qps": round(len(lat) / max(sum(lat) / 1000, 1e-9), 1),
        "latency_ms": {
            "p50": round(float(np.percentile(lat, 50)), 2),
            "p95": round(float(np.percentile(lat, 95)), 2),
        },
    }


# -- SciFact ---------------------------------------------------------------------------


def _grid(kb: KnowledgeBase, train: BeirSet) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for pool in POOLS:
        for ratio in RRF_RATIOS:
            rows.append({"fusion": "rrf", "lexical": ratio, "vector": 1.0, "pool": pool})
        for lex in CONVEX_LEX:
            rows.append(
                {"fusion": "convex", "lexical": lex, "vector": round(1 - lex, 2), "pool": pool}
            )
    for i, row in enumerate(rows, 1):
        s = _settings(row["fusion"], row["lexical"], row["vector"], row["pool"])
        # nDCG@10 / MRR@10 need only the first documents: 30 chunks is plenty here.
        m = _score(kb, train, "hybrid", s, top_k=100, chunks=30)
        row["train_ndcg@10"] = m["ndcg@10"]
        row["train_mrr@10"] = m["mrr@10"]
        _log(f"grid {i}/{len(rows)} {row}")
    return rows


def _off_domain_queries(root: Path, n: int) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    zh = root / "cmrc2018-zh" / "retrieval-dev" / "queries.jsonl"
    if zh.exists():
        with zh.open(encoding="utf-8") as fh:
            out["cmrc_zh_questions"] = [json.loads(line)["text"] for line in fh][:n]
    cfr = root / "regulatory-text" / "gpo-cfr-xml" / "CFR-2015-title14-vol5.xml"
    if cfr.exists():
        subjects: dict[str, None] = {}
        for m in re.finditer(r"<SUBJECT>([^<]+)</SUBJECT>", cfr.read_text("utf-8")):
            text = " ".join(m.group(1).split()).strip(" .")
            if len(text.split()) >= 3:
                subjects[text] = None
        out["cfr14_section_subjects"] = list(subjects)[:n]
    return out


def _signals(index: KBIndex, queries: Sequence[str]) -> dict[str, Any]:
    """Raw top-1 cosine and the best lexical hit's key-term coverage, per query."""
    cos: list[float] = []
    cover: list[float] = []
    no_lex = 0
    for q in queries:
        qv = index.embed_query(q)
        if qv is not None and index.vectors is not None:
            hits = index.vectors.search(qv, 1)
            cos.append(float(hits[0].score) if hits else 0.0)
        lex = index.lexical.search(q, k=1)
        if lex and lex[0].score > 0:
            cover.append(term_coverage(q, index.chunks[lex[0].chunk_id].search_text).ratio)
        else:
            no_lex += 1
            cover.append(0.0)
    return {
        "n": len(queries),
        "top1_cosine": _pct(cos),
        "coverage": _pct(cover),
        "no_lexical_match": no_lex,
        "_cos": cos,
        "_cover": cover,
    }


def _outcomes(kb: KnowledgeBase, queries: Sequence[str], s: RecallSettings) -> float:
    """Share of ``queries`` the hybrid search answers (does not abstain on)."""
    ok = sum(kb.search(q, top_k=10, mode="hybrid", settings=s).outcome == "ok" for q in queries)
    return round(ok / max(len(queries), 1), 4)


def _calibration(
    kb: KnowledgeBase, index: KBIndex, test: BeirSet, chosen: RecallSettings, n: int
) -> dict[str, Any]:
    answerable = [test.queries[q] for q in sorted(test.qrels)]
    groups = {"scifact_test (answerable)": answerable, **_off_domain_queries(data_root(), n)}
    out: dict[str, Any] = {"signals": {}, "answered_share": []}
    for name, qs in groups.items():
        sig = _signals(index, qs)
        out["signals"][name] = {k: v for k, v in sig.items() if not k.startswith("_")}
    base = RecallSettings()
    candidates = [
        (*base.thresholds("minilm"), base.lexical_min_coverage),
        (0.25, 0.45, 0.34),
        (0.35, 0.45, 0.34),
        (0.40, 0.50, 0.34),
        (0.30, 0.50, 0.50),
        (0.35, 0.50, 0.50),
    ]
    for vt, vot, cov in dict.fromkeys(candidates):
        s = dataclasses.replace(
            chosen, vector_threshold=vt, vector_only_threshold=vot, lexical_min_coverage=cov
        )
        row: dict[str, Any] = {
            "vector_threshold": vt,
            "vector_only_threshold": vot,
            "lexical_min_coverage": cov,
        }
        for name, qs in groups.items():
            row[name] = _outcomes(kb, qs, s)
        out["answered_share"].append(row)
        _log(f"calibration {row}")
    return out


def scifact(root: Path, grid: bool, n_off: int) -> dict[str, Any]:
    test, train = load_beir(root, "test"), load_beir(root, "train")
    _log("preparing the SciFact KB (first run ingests and encodes; later runs reuse it)")
    home, kb, prep = prepare_kb(test, cache=CACHE, encoder="minilm")
    out: dict[str, Any] = {"docs": prep.documents, "chunks": prep.chunks, "dense": prep.dense}
    build = prep.home_dir / "build-minilm.json"
    if build.exists():
        b = json.loads(build.read_text("utf-8"))
        total = b["ingest_seconds"] + b["sync_seconds"]
        out["build"] = {
            **{k: round(v, 2) if isinstance(v, float) else v for k, v in b.items()},
            "encoder_passages_per_s": round(b["encoded"] / b["encode_seconds"], 2),
            "share_outside_encoder": round((total - b["encode_seconds"]) / total, 4),
        }
    try:
        index = home.index("beir")
        undo = _memo(index)
        defaults = RecallSettings()
        if grid:
            rows = _grid(kb, train)
            best = max(rows, key=lambda r: (r["train_ndcg@10"], r["train_mrr@10"]))
            out["grid"] = rows
        else:
            best = {
                "fusion": defaults.fusion,
                "lexical": defaults.weights["lexical"],
                "vector": defaults.weights["vector"],
                "pool": defaults.pool,
            }
        out["train_chosen"] = best
        chosen = (
            _settings(best["fusion"], best["lexical"], best["vector"], best["pool"])
            if grid
            else dataclasses.replace(defaults, mmr=False)  # the shipped settings
        )
        undo()  # from here on every query is encoded as in production (latency counts it)
        single = dataclasses.replace(chosen, pool=max(chosen.pool, 100))
        test_rows: dict[str, Any] = {}
        modes: tuple[SearchMode, ...] = ("lexical", "vector")
        for mode in modes:
            _log(f"test {mode}")
            test_rows[mode] = _score(kb, test, mode, single)
        _log("test hybrid (train-chosen)")
        test_rows["hybrid"] = _score(kb, test, "hybrid", chosen)
        out["rss_mb_after_test_runs"] = _rss_mb()
        undo = _memo(index)
        old = dataclasses.replace(defaults, mmr=False)  # the shipped settings as they are
        # These two reuse the query vectors: their latencies exclude query encoding.
        test_rows["hybrid_current_defaults"] = _score(kb, test, "hybrid", old)
        test_rows["hybrid_chosen_with_mmr"] = _score(
            kb, test, "hybrid", dataclasses.replace(chosen, mmr=True)
        )
        out["test"] = test_rows
        out["chosen_settings"] = dataclasses.asdict(chosen)
        out["calibration"] = _calibration(kb, index, test, chosen, n_off)
        undo()
    finally:
        home.close()
    return out


# -- CMRC ------------------------------------------------------------------------------


def cmrc(root: Path, settings: RecallSettings, limit: int) -> dict[str, Any]:
    data = load_beir(root, "dev")
    if limit and limit < len(data.qrels):  # a deterministic subset: every k-th question
        step = len(data.qrels) / limit
        keep = sorted(data.qrels)
        picked = {keep[int(i * step)] for i in range(limit)}
        data = dataclasses.replace(data, qrels={q: data.qrels[q] for q in picked})
    out: dict[str, Any] = {"queries": len(data.qrels)}
    runs: list[tuple[str, str, SearchMode]] = [
        ("lexical", "minilm", "lexical"),
        ("vector MiniLM", "minilm", "vector"),
        ("hybrid MiniLM", "minilm", "hybrid"),
        ("vector USE", "use", "vector"),
        ("hybrid USE", "use", "hybrid"),
    ]
    single = dataclasses.replace(settings, pool=max(settings.pool, 100))
    for name, encoder, mode in runs:
        _log(f"CMRC {name}")
        home, kb, prep = prepare_kb(data, cache=CACHE, encoder=encoder, dense=mode != "lexical")
        try:
            out["docs"], out["chunks"] = prep.documents, prep.chunks
            s = single if mode != "hybrid" else settings
            row = _score(kb, data, mode, s)
            if mode == "vector":  # the raw route, without the product's query-language gate
                index = home.index("beir")
                run: dict[str, dict[str, float]] = {}
                for q in sorted(data.qrels):
                    qv = index.embed_query(data.queries[q])
                    if qv is None or index.vectors is None:
                        continue
                    docs: dict[str, float] = {}
                    for h in index.vectors.search(qv, 300):
                        did = doc_id_of(index.chunks[h.id].path)
                        docs.setdefault(did, float(h.score))
                    run[q] = dict(list(docs.items())[:100])
                row["index_level_no_gate"] = _r(evaluate_run(data.qrels, run))
            row["dense"] = prep.dense
            out[name] = row
        finally:
            home.close()
    return out


def markdown(res: dict[str, Any]) -> str:
    lines = [f"load average start / end: {res['load_start']} / {res['load_end']}", ""]
    sf = res.get("scifact")
    if sf:
        lines += ["| SciFact test | nDCG@10 | R@100 | MRR@10 | abstained | p50 ms | p95 ms |"]
        lines += ["|---|---|---|---|---|---|---|"]
        for name, m in sf["test"].items():
            lines.append(
                f"| {name} | {m['ndcg@10']:.4f} | {m['recall@100']:.4f} | {m['mrr@10']:.4f} "
                f"| {m['abstained']} | {m['latency_ms']['p50']} | {m['latency_ms']['p95']} |"
            )
        lines += ["", f"train-chosen: {sf['train_chosen']}"]
    zh = res.get("cmrc2018")
    if zh:
        lines += ["", "| CMRC dev | nDCG@10 | R@100 | MRR@10 |", "|---|---|---|---|"]
        for name, m in zh.items():
            if isinstance(m, dict) and "ndcg@10" in m:
                lines.append(
                    f"| {name} | {m['ndcg@10']:.4f} | {m['recall@100']:.4f} | {m['mrr@10']:.4f} |"
                )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    ap.add_argument("--no-grid", action="store_true", help="skip the train-split fusion grid")
    ap.add_argument("--no-lexical-peer", action="store_true", help="skip the bm25s comparison")
    ap.add_argument("--off-domain", type=int, default=300, help="off-domain queries per set")
    ap.add_argument(
        "--cmrc-queries", type=int, default=1000, help="CMRC questions, evenly spaced (0: all)"
    )
    args = ap.parse_args(argv)
    data = data_root()
    sf_root, zh_root = data / "beir-scifact", data / "cmrc2018-zh" / "retrieval-dev"
    if not (sf_root / "queries.jsonl").exists() and not (zh_root / "queries.jsonl").exists():
        print(f"skipping retrieval benchmark: no data at {data} (set CITEWISE_DATA)")
        return 0
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        print("skipping retrieval benchmark: pip install pytrec-eval-terrier")
        return 0
    res: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "cpus": os.cpu_count(),
        "load_start": [round(x, 2) for x in os.getloadavg()],
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
    }
    chosen = RecallSettings(mmr=False)
    if (sf_root / "queries.jsonl").exists():
        res["scifact"] = scifact(sf_root, grid=not args.no_grid, n_off=args.off_domain)
        chosen = RecallSettings(**res["scifact"]["chosen_settings"])
    res["peak_rss_mb_scifact"] = _rss_mb()
    if (zh_root / "queries.jsonl").exists():
        res["cmrc2018"] = cmrc(zh_root, chosen, args.cmrc_queries)
    if not args.no_lexical_peer and (sf_root / "queries.jsonl").exists():
        import logging

        from bench.lexical_scifact import scifact as lexical_scifact

        logging.getLogger("bm25s").setLevel(logging.ERROR)
        _log("lexical route vs bm25s (bench.lexical_scifact, no grid)")
        try:
            lx = lexical_scifact(sf_root, tune=False)
        except ValueError as exc:  # e.g. a corpus smaller than bm25s's k
            res["lexical_vs_bm25s"] = {"error": str(exc)}
        else:
            keep = ("build_s", "qps", "ours_test", "bm25s_test")
            res["lexical_vs_bm25s"] = {k: lx[k] for k in keep if k in lx}
    res["peak_rss_mb"] = _rss_mb()
    res["load_end"] = [round(x, 2) for x in os.getloadavg()]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=2, ensure_ascii=False), "utf-8")
    print(json.dumps(res, indent=2, ensure_ascii=False) if args.json else markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
