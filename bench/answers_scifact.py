"""Answer-stage benchmark on BEIR SciFact: what ``kb.ask`` does with the 300 test claims.

For every test query (``queries.jsonl`` + ``qrels/test.tsv``, score > 0 is relevant) one
``kb.ask(text)`` is run, one at a time, and measured:

* answered: share of queries with outcome ``answered``;
* relevant | answered: share of answered queries whose citations include at least one
  document judged relevant (citation path stem == corpus id);
* answered + relevant: share of all queries answered with a relevant citation;
* abstained: share with outcome ``insufficient_evidence``;
* outcome, degradation and failure-stage counts;
* answer latency p50 / p95 (after a warm-up of 5 train queries, not counted).

The KB is built once per dense setting under ``~/.cache/citewise/answers-scifact-<dense>``
(every document written as ``<_id>.md``: ``# title`` then the text), with the helper of
``bench/evidence_scifact.py``. The dense route is off by default (``CITEWISE_DENSE=off``):
encoding SciFact takes about 14 minutes on 2 cores. Skips cleanly when the dataset is
absent (``$CITEWISE_DATA`` overrides the data root).

    .venv/bin/python -m bench.answers_scifact [--limit N] [--json] [--dense on|off]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before any numpy import

import argparse
import json
import platform
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from bench._beir import data_root, load_qrels, load_queries

WARMUP = 5
OUT_DIR = Path(__file__).resolve().parent / "out"


def _cache(dense: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citewise" / f"answers-scifact-{dense}"


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _doc_id(path: str) -> str:
    """Corpus id of a cited path: the (URL-quoted) file stem."""
    return unquote(Path(path).stem)


def run(limit: int, dense: str) -> dict[str, Any] | None:
    root = data_root() / "beir-scifact"
    if not (root / "queries.jsonl").exists() or not (root / "qrels" / "test.tsv").exists():
        print(f"SciFact not found under {root}; skipping.")
        return None
    os.environ["CITEWISE_DENSE"] = dense
    from bench.evidence_scifact import build
    from citewise.kb import Home

    cache = _cache(dense)
    t_build = time.perf_counter()
    home = build(root, cache)
    build_s = time.perf_counter() - t_build
    built = json.loads((cache / "built.json").read_text())

    queries = load_queries(root)
    qrels = load_qrels(root, "test")
    qids = [q for q in sorted(qrels, key=int) if q in queries]
    if limit:
        qids = qids[:limit]
    test_ids = set(qrels)
    warm = [q for q in sorted(queries, key=int) if q not in test_ids][:WARMUP]

    outcomes: Counter[str] = Counter()
    degradations: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    latencies: list[float] = []
    answered_relevant = 0
    cited_docs: list[int] = []
    cited_relevant_share: list[float] = []
    per_query: list[dict[str, Any]] = []

    with Home.open(home) as h:
        kb = h.kb()
        for qid in warm:
            kb.ask(queries[qid])
        for qid in qids:
            t0 = time.perf_counter()
            ans = kb.ask(queries[qid])
            ms = 1000 * (time.perf_counter() - t0)
            latencies.append(ms)
            outcomes[ans.outcome] += 1
            degradations[ans.degradation] += 1
            stages[ans.failure_stage or "none"] += 1
            relevant = set(qrels[qid])
            docs = {_doc_id(c.path) for c in ans.citations}
            hit = bool(docs & relevant)
            if ans.outcome == "answered":
                answered_relevant += hit
                cited_docs.append(len(docs))
                if docs:
                    cited_relevant_share.append(len(docs & relevant) / len(docs))
            per_query.append(
                {
                    "qid": qid,
                    "outcome": ans.outcome,
                    "degradation": ans.degradation,
                    "failure_stage": ans.failure_stage,
                    "cited_docs": sorted(docs),
                    "relevant_cited": hit,
                    "ms": round(ms, 1),
                }
            )

    n = len(qids)
    answered = outcomes["answered"]
    return {
        "benchmark": "answers_scifact",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "arch": platform.machine(),
            "cpus": os.cpu_count(),
            "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {
            "dense": dense,
            "queries": n,
            "warmup_queries": len(warm),
            "kb_cache": str(cache),
            "kb_files": built.get("files"),
            "kb_build_seconds": round(float(built.get("seconds", build_s)), 1),
        },
        "answered": round(answered / max(1, n), 4),
        "relevant_given_answered": round(answered_relevant / max(1, answered), 4),
        "answered_with_relevant": round(answered_relevant / max(1, n), 4),
        "abstained": round(outcomes["insufficient_evidence"] / max(1, n), 4),
        "mean_cited_docs_when_answered": (
            round(sum(cited_docs) / len(cited_docs), 2) if cited_docs else 0.0
        ),
        "cited_doc_precision_when_answered": (
            round(sum(cited_relevant_share) / len(cited_relevant_share), 4)
            if cited_relevant_share
            else 0.0
        ),
        "outcomes": dict(outcomes.most_common()),
        "degradation": dict(degradations.most_common()),
        "failure_stage": dict(stages.most_common()),
        "latency_ms": {
            "p50": round(_pct(latencies, 50), 1),
            "p95": round(_pct(latencies, 95), 1),
            "mean": round(sum(latencies) / max(1, n), 1),
            "max": round(max(latencies, default=0.0), 1),
        },
        "per_query": per_query,
    }


def table(r: dict[str, Any]) -> str:
    n = r["settings"]["queries"]
    lat = r["latency_ms"]

    def share(x: float) -> str:
        return f"{100 * x:.1f}% ({round(x * n)})" if n else "-"

    def counts(d: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in d.items())

    answered = r["outcomes"].get("answered", 0)
    rel = r["relevant_given_answered"]
    rows = [
        ("queries (test)", str(n)),
        ("dense route", r["settings"]["dense"]),
        ("answered", share(r["answered"])),
        ("relevant citation, of answered", f"{100 * rel:.1f}% ({round(rel * answered)})"),
        ("answered with a relevant citation, of all", share(r["answered_with_relevant"])),
        ("abstained (insufficient_evidence)", share(r["abstained"])),
        ("mean cited documents, answered", str(r["mean_cited_docs_when_answered"])),
        ("cited-document precision, answered", f"{r['cited_doc_precision_when_answered']:.3f}"),
        ("outcomes", counts(r["outcomes"])),
        ("degradation", counts(r["degradation"])),
        ("failure stage", counts(r["failure_stage"])),
        ("latency p50 / p95 (ms)", f"{lat['p50']} / {lat['p95']}"),
        ("latency mean / max (ms)", f"{lat['mean']} / {lat['max']}"),
    ]
    lines = ["| measure | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description="kb.ask on the BEIR SciFact test queries.")
    ap.add_argument("--limit", type=int, default=0, help="only the first N test queries")
    ap.add_argument("--json", action="store_true", help="print the JSON instead of the table")
    ap.add_argument("--dense", choices=("on", "off"), default="off", help="dense route")
    args = ap.parse_args()
    result = run(args.limit, args.dense)
    if result is None:
        return 0
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out = OUT_DIR / f"answers_scifact_{args.dense}.json"
    out.write_text(json.dumps(result, indent=2) + "\n", "utf-8")
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "per_query"}, indent=2))
    else:
        print(table(result))
        print(f"\nJSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
