"""Bytes per stored vector and ``get_vectors`` latency: the schema-2 ``WITHOUT ROWID`` vectors
table against the schema-3 rowid table with its UNIQUE key (store/_vectors.py).

    python -m bench.vector_rowid [--rows 10000 50000] [--lookups 300] [--dir DIR]
    python -m bench.vector_rowid --store PATH/citewise.db   # a schema-2 store, migrated copy

For each row count, two stores get the same synthetic rows (384 float32 = 1,536 bytes, text
keys as the product makes them: 16 hex chars): the old one through the old DDL, the new one
through ``put_vectors``. Both are VACUUMed; the table's and its index's bytes come from
dbstat. Latency: ``get_vectors`` of 10 random stored keys through the same store code (the
query is the same on both forms), old and new alternating, median and p95 of ``--lookups``
rounds each, warm page cache. Then the old store is migrated by opening it with this code
(timed). Synthetic data only: needs nothing under /work/shared. ``--store`` instead copies
a real schema-2 store (SQLite backup API; the original is only read), VACUUMs the copy and
reports each table's bytes before and after this code's migration, and the median time of
the node and chunk reads of citation resolution on the old and the migrated copy,
alternating (``--lookups`` rounds).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from citewise.store.sqlite import SQLiteStore

OLD_TABLE = """CREATE TABLE dense_vector (
    fingerprint TEXT NOT NULL,
    text_key    TEXT NOT NULL,
    data        BLOB NOT NULL,
    PRIMARY KEY (fingerprint, text_key)
) WITHOUT ROWID"""
FP = "minilm-int8@1#0123456789abcdef"


def _rows(n: int) -> dict[str, bytes]:
    rng = np.random.default_rng(n)
    vecs = rng.standard_normal((n, 384)).astype("<f4")
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return {f"{i * 2654435761 % 2**64:016x}": vecs[i].tobytes() for i in range(n)}


def _old_store(db: Path, rows: dict[str, bytes]) -> None:
    SQLiteStore(db).close()  # schema 3, no vectors table yet
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(OLD_TABLE)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO dense_vector VALUES (?, ?, ?)", [(FP, k, d) for k, d in rows.items()]
    )
    conn.execute("COMMIT")
    conn.close()


def _new_store(db: Path, rows: dict[str, bytes]) -> None:
    store = SQLiteStore(db)
    store.put_vectors(FP, rows)
    store.close()


def _measure(db: Path, n: int) -> dict[str, Any]:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    parts = conn.execute(
        "SELECT name, sum(pgsize), sum(payload), sum(pagetype = 'overflow') FROM dbstat "
        "WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'dense_vector') "
        "GROUP BY name"
    ).fetchall()
    conn.close()
    table_bytes = sum(int(p[1]) for p in parts)
    return {
        "file_bytes": db.stat().st_size,
        "file_per_row": round(db.stat().st_size / n),
        "table_and_index_per_row": round(table_bytes / n),
        "parts": {str(p[0]): {"bytes": p[1], "overflow_pages": p[3]} for p in parts},
    }


def _latency(old: SQLiteStore, new: SQLiteStore, keys: list[str], rounds: int) -> dict[str, Any]:
    rng = random.Random(7)
    times: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(rounds):
        ask = rng.sample(keys, 10)
        for name, store in (("old", old), ("new", new)):
            t = time.perf_counter()
            got = store.get_vectors(FP, ask)
            times[name].append(time.perf_counter() - t)
            assert len(got) == 10
    out: dict[str, Any] = {}
    for name, ts in times.items():
        ts.sort()
        out[name] = {
            "p50_us": round(statistics.median(ts) * 1e6, 1),
            "p95_us": round(ts[int(0.95 * len(ts))] * 1e6, 1),
        }
    out["p50_ratio_new_over_old"] = round(out["new"]["p50_us"] / out["old"]["p50_us"], 3)
    return out


def run(n: int, lookups: int, where: Path) -> dict[str, Any]:
    rows = _rows(n)
    old_db, new_db = where / f"old{n}" / "citewise.db", where / f"new{n}" / "citewise.db"
    old_db.parent.mkdir(parents=True)
    new_db.parent.mkdir(parents=True)
    _old_store(old_db, rows)
    _new_store(new_db, rows)
    result: dict[str, Any] = {"rows": n, "old": _measure(old_db, n), "new": _measure(new_db, n)}
    old, new = SQLiteStore(old_db), SQLiteStore(new_db)
    try:
        result["get_vectors_10_keys"] = _latency(old, new, list(rows), lookups)
    finally:
        old.close()
        new.close()
    conn = sqlite3.connect(old_db)
    conn.execute("PRAGMA user_version = 2")  # as a schema-2 store: the next open migrates
    conn.commit()
    conn.close()
    t = time.perf_counter()
    SQLiteStore(old_db).close()
    result["migration_s"] = round(time.perf_counter() - t, 2)
    result["migrated"] = _measure(old_db, n)
    return result


def _tables(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    rows = conn.execute(
        "SELECT m.tbl_name, sum(d.pgsize) FROM dbstat d JOIN sqlite_master m ON m.name = d.name "
        "GROUP BY m.tbl_name ORDER BY 2 DESC"
    ).fetchall()
    conn.close()
    return {"file": db.stat().st_size, **{str(r[0]): int(r[1]) for r in rows[:6]}}


def _copy(source: Path, copy: Path) -> None:
    copy.parent.mkdir(parents=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(copy)
    src.backup(dst)
    src.close()
    dst.close()


#: The node and chunk reads of citation resolution and answer assembly (store/_resolve.py,
#: _near.py, _reads.py), timed on the old and the migrated copy alternately.
READS = {
    "node_by_id": "SELECT * FROM node WHERE node_id = ?",
    "node_in_content": "SELECT * FROM node WHERE content_id = ? AND node_id IN (?)",
    "chunks_of_content": "SELECT * FROM chunk WHERE content_id = ? ORDER BY ordinal",
}


def _reads(old: Path, new: Path, rounds: int) -> dict[str, Any]:
    conns = {"old": sqlite3.connect(old), "new": sqlite3.connect(new)}
    picks = conns["old"].execute("SELECT content_id, node_id FROM node").fetchall()
    rng = random.Random(11)
    times: dict[str, list[float]] = {f"{q}/{w}": [] for q in READS for w in conns}
    for _ in range(rounds):
        content_id, node_id = rng.choice(picks)
        args = {
            "node_by_id": (node_id,),
            "node_in_content": (content_id, node_id),
            "chunks_of_content": (content_id,),
        }
        for q, sql in READS.items():
            for w, conn in conns.items():
                t = time.perf_counter()
                conn.execute(sql, args[q]).fetchall()
                times[f"{q}/{w}"].append(time.perf_counter() - t)
    for conn in conns.values():
        conn.close()
    out = {k: round(statistics.median(v) * 1e6, 1) for k, v in times.items()}
    for q in READS:
        out[f"{q}/ratio"] = round(out[f"{q}/new"] / out[f"{q}/old"], 3)
    return {"p50_us": out, "rounds": rounds}


def real_store(source: Path, where: Path, rounds: int) -> dict[str, Any]:
    old, new = where / "old" / "citewise.db", where / "new" / "citewise.db"
    _copy(source, old)
    _copy(source, new)
    before = _tables(old)
    t = time.perf_counter()
    SQLiteStore(new).close()
    took = time.perf_counter() - t
    return {
        "store": str(source),
        "before": before,
        "migration_s": round(took, 2),
        "after": _tables(new),
        "reads": _reads(old, new, rounds),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000, 50_000])
    ap.add_argument("--lookups", type=int, default=300)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--store", type=Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        if args.store:
            if not args.store.is_file():
                print(f"no store at {args.store}: skipped")
                return
            print(json.dumps(real_store(args.store, Path(tmp), args.lookups), indent=1))
            return
        out = {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "runs": [run(n, args.lookups, Path(tmp)) for n in args.rows],
        }
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
