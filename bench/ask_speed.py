"""Per-query latency of ``kb.ask`` and ``kb.search`` on the SciFact KB (dense off), with
bm25s's ``retrieve`` on the same queries as the peer (issue 17).

The KB is the one ``bench/answers_scifact.py`` builds (5,183 abstracts as Markdown files,
dense off) or any home given with ``--home``. Queries: the 300 SciFact test claims, after a
warm-up of 5 train claims (not counted; the first query of a generation also builds the
graph). Every answer's outcome and citations are written to ``--answers`` so two trees can
be compared query by query (``--compare A.json B.json``).

    .venv/bin/python -m bench.ask_speed [--home DIR] [--limit N] [--answers out.json]
    .venv/bin/python -m bench.ask_speed --compare before.json after.json
"""

from __future__ import annotations

import os

os.environ.setdefault("CITEWISE_DENSE", "off")
os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before any numpy import

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from bench._beir import data_root, load_corpus, load_qrels, load_queries

WARMUP = 5


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _load() -> float:
    return os.getloadavg()[0]


def _queries(root: Path, limit: int) -> tuple[list[str], list[str]]:
    queries = load_queries(root)
    test = [q for q in load_qrels(root, "test") if q in queries]
    train = [q for q in load_qrels(root, "train") if q in queries][:WARMUP]
    test = test[:limit] if limit else test
    return [queries[q] for q in train], [queries[q] for q in test]


def _answer_key(answer: Any) -> dict[str, Any]:
    return {
        "outcome": answer.outcome,
        "citations": [[c.path, c.version_id, c.char_start, c.char_end] for c in answer.citations],
        "text": answer.answer,
        "replay_id": answer.replay_id,
    }


def bench_kb(home: Path, warm: list[str], qs: list[str]) -> dict[str, Any]:
    from citewise.kb import Home

    with Home.open(home) as h:
        kb = h.kb()
        for q in warm:
            kb.ask(q)
            kb.search(q)
        ask_ms, ask_cpu, answers = [], [], []
        for q in qs:
            t0, c0 = time.perf_counter(), time.process_time()
            a = kb.ask(q)
            ask_ms.append((time.perf_counter() - t0) * 1000)
            ask_cpu.append((time.process_time() - c0) * 1000)  # all threads of the process
            answers.append(_answer_key(a))
        search_ms = []
        for q in qs:
            t0 = time.perf_counter()
            kb.search(q)
            search_ms.append((time.perf_counter() - t0) * 1000)
        docs = kb.stats().get("documents", 0)
    return {
        "documents": docs,
        "ask_p50_ms": round(_pct(ask_ms, 50), 1),
        "ask_p95_ms": round(_pct(ask_ms, 95), 1),
        # CPU time of the asking process per ask: what a loaded machine inflates least
        "ask_cpu_p50_ms": round(_pct(ask_cpu, 50), 1),
        "ask_cpu_p95_ms": round(_pct(ask_cpu, 95), 1),
        "ask_cpu_mean_ms": round(sum(ask_cpu) / max(1, len(ask_cpu)), 1),
        "search_p50_ms": round(_pct(search_ms, 50), 2),
        "search_p95_ms": round(_pct(search_ms, 95), 2),
        "answers": answers,
    }


def bench_bm25s(root: Path, qs: list[str]) -> dict[str, Any] | None:
    try:
        import bm25s
    except ImportError:
        return None
    import logging

    logging.getLogger("bm25s").setLevel(logging.ERROR)
    corpus = load_corpus(root)
    texts = [f"{d.title} {d.text}" for d in corpus]
    index = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    index.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    ms = []
    for q in qs:
        t0 = time.perf_counter()
        tok = bm25s.tokenize([q], stopwords="en", show_progress=False)
        index.retrieve(tok, k=10, show_progress=False)
        ms.append((time.perf_counter() - t0) * 1000)
    return {"retrieve_p50_ms": round(_pct(ms, 50), 3), "retrieve_p95_ms": round(_pct(ms, 95), 3)}


def compare(a: Path, b: Path) -> int:
    left = json.loads(a.read_text("utf-8"))["answers"]
    right = json.loads(b.read_text("utf-8"))["answers"]
    diff = [i for i, (x, y) in enumerate(zip(left, right, strict=True)) if x != y]
    print(f"{len(left)} answers, {len(diff)} differ" + (f": {diff[:20]}" if diff else ""))
    return 1 if diff else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--home", type=Path, help="a home holding the SciFact KB")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--answers", type=Path, help="write figures and answers here")
    ap.add_argument("--compare", type=Path, nargs=2)
    ap.add_argument("--no-peer", action="store_true", help="skip bm25s (A/B runs)")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    root = data_root() / "beir-scifact"
    if not (root / "queries.jsonl").exists():
        print(f"SciFact not found under {root}; skipping.")
        return 0
    if args.home is None:
        from bench.answers_scifact import _cache
        from bench.evidence_scifact import build

        args.home = build(root, _cache("off"))
    warm, qs = _queries(root, args.limit)
    load0 = _load()
    res = bench_kb(args.home, warm, qs)
    res["bm25s"] = None if args.no_peer else bench_bm25s(root, qs)
    res.update(
        queries=len(qs),
        machine=f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        load=[round(load0, 2), round(_load(), 2)],
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    )
    if args.answers:
        args.answers.write_text(json.dumps(res, indent=1), "utf-8")
    show = {k: v for k, v in res.items() if k != "answers"}
    print(json.dumps(show, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
