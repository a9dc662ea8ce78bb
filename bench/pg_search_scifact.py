"""SciFact through the product path (``KnowledgeBase.search``) in SQLite and PostgreSQL mode
(issue 37): lexical and hybrid nDCG@10 / Recall@100 / MRR@10 of the 300 test queries.

The SciFact KB is built once as bench/retrieval.py builds it (``prepare_kb``: one Markdown
file per abstract, ingested and encoded with MiniLM) and searched in SQLite mode; the same
store is then copied into a throwaway PostgreSQL cluster with ``citewise migrate``'s
:func:`~citewise.sync.migrate.migrate_store` (chunks, stored vectors, and the lexical
postings derived on the way) and searched by a fresh home on that database: its lexical
route is the database's (``CITEWISE_PG_LEXICAL``, default ``db``; index/pg_lexical_route.py),
its vectors are read from the store, never encoded again. Settings: the shipped defaults with
MMR off, as bench/retrieval.py's test rows. Reported with the date, the load average and
this process's CPU seconds (the machine is shared). Skips (exit 0) without the data or
PostgreSQL. Run: ``python -m bench.pg_search_scifact [--cache DIR]``; output on stdout and
``bench/results/pg_search_scifact.jsonl``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

import argparse
import dataclasses
import json
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench._beir import data_root
from citewise.core.search import SearchMode

OUT = Path(__file__).resolve().parent / "results" / "pg_search_scifact.jsonl"
MODES: tuple[SearchMode, ...] = ("lexical", "hybrid")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _scores(kb: Any, data: Any) -> dict[str, Any]:
    from citewise.eval.retrieval import evaluate_run, run_queries
    from citewise.recall.search import RecallSettings

    settings = dataclasses.replace(RecallSettings(), mmr=False)
    out: dict[str, Any] = {}
    for mode in MODES:
        got = run_queries(kb, data.queries, sorted(data.qrels), mode=mode, settings=settings)
        lat = sorted(got.latencies_ms)
        metrics = evaluate_run(data.qrels, got.run)
        out[mode] = {
            **{k: round(v, 4) for k, v in metrics.items()},
            "abstained": got.abstained,
            "p50_ms": round(lat[len(lat) // 2], 1),
        }
    return out


def _postgres_home(url: str, where: Path) -> Any:
    from citewise.config import Settings
    from citewise.kb import Home
    from citewise.store.factory import open_store

    where.mkdir(parents=True, exist_ok=True)
    settings = dataclasses.replace(
        Settings.resolve(where), dense=True, encoder="minilm", home=where.resolve()
    )
    return Home(settings, open_store(url))


def compare(url: str, cache: Path, scratch: Path) -> dict[str, Any]:
    from citewise.eval.retrieval import KB_NAME, load_beir, prepare_kb
    from citewise.index.pg_lexical_route import StoredLexical
    from citewise.store.factory import DB_NAME
    from citewise.sync.migrate import migrate_store

    test = load_beir(data_root() / "beir-scifact", "test")
    home, kb, prep = prepare_kb(test, cache=cache, encoder="minilm")
    row: dict[str, Any] = {"chunks": prep.chunks, "dense": prep.dense}
    try:
        row["sqlite"] = _scores(kb, test)
    finally:
        home.close()
    t0 = time.perf_counter()
    migrate_store(f"sqlite:{prep.home_dir / DB_NAME}", url)
    row["migrate_s"] = round(time.perf_counter() - t0, 1)
    pg = _postgres_home(url, scratch / "pg-home")
    try:
        index = pg.index(KB_NAME)
        index.unit_texts = None  # retrieval only, as prepare_kb
        t0 = time.perf_counter()
        sync = index.sync()
        row["pg_first_sync_s"] = round(time.perf_counter() - t0, 1)
        row["pg_sync_encoded"] = sync.encoded
        row["pg_lexical_route"] = type(index.lexical).__name__
        assert isinstance(index.lexical, StoredLexical) or os.environ.get("CITEWISE_PG_LEXICAL")
        row["postgresql"] = _scores(pg.kb(KB_NAME), test)
    finally:
        pg.close()
    row["delta_ndcg@10"] = {
        m: round(row["postgresql"][m]["ndcg@10"] - row["sqlite"][m]["ndcg@10"], 4) for m in MODES
    }
    return row


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cache", type=Path, default=None, help="eval cache (the SciFact KB)")
    args = ap.parse_args(argv)
    if not (data_root() / "beir-scifact").exists():
        print(f"skipped: no SciFact data at {data_root() / 'beir-scifact'}")
        return 0
    from tests.pg import PG_BIN, _start, reachable_bin

    bin_dir = reachable_bin(PG_BIN)
    base = Path(tempfile.mkdtemp(prefix="citewise-pgsearch-", dir="/tmp"))
    os.chmod(base, 0o755)
    try:
        cluster, prefix, data = _start(base, bin_dir)
    except (RuntimeError, OSError) as exc:
        shutil.rmtree(base, ignore_errors=True)
        print(f"skipped: PostgreSQL unavailable ({exc})")
        return 0
    try:
        started, load = time.perf_counter(), os.getloadavg()[0]
        row = compare(cluster.create_database("scifact"), args.cache or base / "cache", base)
        row["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        row["load_avg_start_end"] = [round(load, 1), round(os.getloadavg()[0], 1)]
        row["cpu_s"], row["wall_s"] = round(_cpu(), 1), round(time.perf_counter() - started, 1)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        with OUT.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        print(json.dumps(row, indent=1), flush=True)
    finally:
        stop = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(stop, capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
