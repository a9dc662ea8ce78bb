"""Audit ledger benchmark: what the ledger costs per ingest and per answer, and how long
verification takes at 100,000 entries.

- ingest: N synthetic Markdown files ingested into a fresh SQLite home with the ledger and,
  in another fresh home, with the ledger write replaced by a no-op (everything else equal);
  reported per file in ms and as a share of the ingest time. Runs alternate to share load.
- answer: the example corpus, the same questions asked through ``KnowledgeBase.ask`` (which
  saves the answer, its ledger event, access and route events, and takes the retrieval
  snapshot for export) against the bare pipeline ``ask``; per answer in ms and %.
- search: ``KnowledgeBase.search`` (which appends a ``search`` event, plus an ``access``
  event when the KB restricts documents) against the bare recall ``search``.
- verify: 100,000 synthetic entries (about 300 bytes of payload each) appended in
  transactions of 5,000, one signed checkpoint, then a full ``verify`` (recompute every leaf
  from its entry, the tree, the checkpoint signature and root); plus the time to sign a
  checkpoint and to build one inclusion and one consistency proof at that size.

Dense route off (``CITEWISE_DENSE=off``): the figures are the ledger's, not the encoder's.
Run: ``.venv/bin/python -m bench.ledger [--json] [--files N] [--entries N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ["CITEWISE_DENSE"] = "off"

from citewise.answer.pipeline import ask as bare_ask
from citewise.audit import checkpoint as cp
from citewise.core.ledger_entries import LedgerEntry
from citewise.kb import Home
from citewise.recall.search import search as recall_search
from citewise.store import _ledger as sqlite_ledger  # the ingest run swaps its append

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "corpus"
QUESTIONS = [
    "How long are audit logs retained?",
    "What does sync mode do?",
    "How do I deploy Harbor?",
    "What changed in the 2024 release?",
    "What is the default port?",
]


def _write_docs(root: Path, n: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        paras = "\n\n".join(
            f"Paragraph {j} of document {i}: the service keeps {i * j} records for "
            f"{j + 3} days and rotates keys every {i % 7 + 1} weeks."
            for j in range(8)
        )
        (root / f"doc{i:05d}.md").write_text(f"# Document {i}\n\n## Section\n\n{paras}\n")


def _noop_ledger(c: Any, type_: str, payload: Any, **kw: Any) -> LedgerEntry:
    return LedgerEntry(0, type_, None, "", {}, {}, "")


def bench_ingest(tmp: Path, files: int, repeat: int) -> dict[str, Any]:
    docs = tmp / "docs"
    _write_docs(docs, files)
    real = sqlite_ledger.append_entry
    times: dict[str, list[float]] = {"with": [], "without": []}
    for r in range(repeat):
        for mode in ("without", "with") if r % 2 else ("with", "without"):
            if mode == "without":
                sqlite_ledger.append_entry = _noop_ledger
            try:
                with Home.open(tmp / f"h-{mode}-{r}") as h:
                    t0 = time.perf_counter()
                    report = h.kb().add([docs])
                    times[mode].append(time.perf_counter() - t0)
                    assert report.ok
            finally:
                sqlite_ledger.append_entry = real
    w, wo = statistics.median(times["with"]), statistics.median(times["without"])
    return {
        "files": files,
        "repeat": repeat,
        "ms_per_file_with_ledger": round(w / files * 1000, 3),
        "ms_per_file_without": round(wo / files * 1000, 3),
        "overhead_ms_per_file": round((w - wo) / files * 1000, 3),
        "overhead_pct": round((w - wo) / wo * 100, 1),
    }


def bench_answers(tmp: Path, repeat: int) -> dict[str, Any]:
    with Home.open(tmp / "h-answers") as h:
        kb = h.kb()
        kb.add([EXAMPLES])
        for q in QUESTIONS:  # warm the index and caches
            bare_ask(kb.context, q)
        bare: list[float] = []
        full: list[float] = []
        for r in range(repeat):
            for q in QUESTIONS:
                order = ("bare", "full") if r % 2 else ("full", "bare")
                for mode in order:
                    t0 = time.perf_counter()
                    if mode == "bare":
                        bare_ask(kb.context, q)
                    else:
                        kb.ask(q)
                    (bare if mode == "bare" else full).append(time.perf_counter() - t0)
        b, f = statistics.median(bare), statistics.median(full)
        index = h.index(kb.name)
        s_bare: list[float] = []
        s_full: list[float] = []
        for r in range(repeat * 4):
            for q in QUESTIONS:
                for mode in ("bare", "full") if r % 2 else ("full", "bare"):
                    t0 = time.perf_counter()
                    if mode == "bare":
                        recall_search(index, q)
                    else:
                        kb.search(q)
                    (s_bare if mode == "bare" else s_full).append(time.perf_counter() - t0)
        sb, sf = statistics.median(s_bare), statistics.median(s_full)
        return {
            "searches": len(s_full),
            "ms_per_search_bare": round(sb * 1000, 2),
            "ms_per_search_recorded": round(sf * 1000, 2),
            "search_overhead_ms": round((sf - sb) * 1000, 2),
            "search_overhead_pct": round((sf - sb) / sb * 100, 1),
            "answers": len(full),
            "ms_per_answer_bare": round(b * 1000, 2),
            "ms_per_answer_recorded": round(f * 1000, 2),
            "overhead_ms_per_answer": round((f - b) * 1000, 2),
            "overhead_pct": round((f - b) / b * 100, 1),
        }


def bench_verify(tmp: Path, entries: int) -> dict[str, Any]:
    with Home.open(tmp / "h-verify") as h:
        store = h.store.ledger
        t0 = time.perf_counter()
        done = 0
        while done < entries:
            step = min(5000, entries - done)
            with store.transaction() as tx:
                for i in range(done, done + step):
                    tx.append(
                        "search",
                        {
                            "kb": "default",
                            "query": f"synthetic query number {i}",
                            "hits": [f"n_{i:024x}:{j}-{j + 40}" for j in range(4)],
                            "revision": 1,
                            "routes": ["lexical", "identifier"],
                        },
                        kb="default",
                        principal="bench",
                    )
            done += step
        append_s = time.perf_counter() - t0
        key = tmp / "keys" / "audit_ed25519"
        t0 = time.perf_counter()
        checkpoint = cp.make_checkpoint(store, key)
        sign_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = cp.verify(store, key)
        verify_s = time.perf_counter() - t0
        assert report.ok, report.problems
        n = checkpoint["tree_size"]
        t0 = time.perf_counter()
        proof = cp.inclusion(store, n // 3)
        incl_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        cons = cp.consistency(store, n // 2)
        cons_s = time.perf_counter() - t0
        assert cp.check_inclusion(proof) and cp.check_consistency(cons)
        return {
            "entries": n,
            "append_s": round(append_s, 2),
            "append_us_per_entry": round(append_s / entries * 1e6, 1),
            "checkpoint_s": round(sign_s, 2),
            "verify_s": round(verify_s, 2),
            "inclusion_proof_s": round(incl_s, 2),
            "consistency_proof_s": round(cons_s, 2),
            "db_mb": round(
                sum(p.stat().st_size for p in h.settings.home.glob("citewise.db*")) / 1e6, 1
            ),
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        result: dict[str, Any] = {
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}",
            "ingest": bench_ingest(tmp, args.files, args.repeat),
            "answer": bench_answers(tmp, args.repeat),
            "verify": bench_verify(tmp, args.entries),
        }
    result["load_average"] = [round(load0, 1), round(os.getloadavg()[0], 1)]
    out = REPO / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "ledger.json").write_text(json.dumps(result, indent=2))
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return
    print(f"machine: {result['machine']}, load {result['load_average']}")
    for section in ("ingest", "answer", "verify"):
        print(f"\n{section}:")
        for k, v in result[section].items():
            print(f"  {k:<28} {v}")


if __name__ == "__main__":
    main()
