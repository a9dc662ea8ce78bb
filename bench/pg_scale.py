"""Scale on PostgreSQL: a synthetic corpus grown in steps (issue 19).

A throwaway, durable PostgreSQL 15 cluster (Debian's binaries; fsync on) holds one
knowledge base. Synthetic Markdown documents (a title and five sections of about 150
words each, drawn from a Zipf-distributed vocabulary of 40,000 words with a fixed seed, so
runs are repeatable) are ingested through the product path (``KnowledgeBase.add``, one
file per transaction as in production) until the chunk count reaches each step of
``--steps``. At every step it reports:

* ingest rate (files/s and chunks/s over that step) and database size per chunk
  (``pg_database_size``, so indexes, versions with their exact bytes, nodes and ledger
  entries are all counted);
* a *fresh* server process (a subprocess that opens the store as ``citewise serve`` does):
  time until its first search returns (in-process indexes built from the database), its
  peak RSS, and search p50/p95 of the lexical route over 60 fixed queries.

The dense route is off: encoding a million chunks on this CPU takes about a day (13
passages per CPU-second with the int8 encoder), so vector figures at scale come from the
pgvector benchmark instead. Results are appended to ``bench/results/pg_scale.jsonl`` as
each step finishes, so a run stopped by ``--max-minutes`` keeps its figures.

Run: ``.venv/bin/python -m bench.pg_scale [--steps 10000,30000,100000,300000,1000000]
[--max-minutes 60]``. Skips (exit 0, says why) when PostgreSQL cannot be started.
"""

from __future__ import annotations

import argparse
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
VOCAB = 40_000
SECTIONS = 5
WORDS = 150
BATCH_FILES = 500


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


def measure(store: str, home: Path) -> dict[str, Any]:
    """Run in a fresh process: open the store as a server would, time the first search
    (index build), then the lexical route over the fixed queries; peak RSS."""
    import resource

    from citewise.kb import Home

    queries = Corpus().queries()
    t0 = time.perf_counter()
    with Home.open(home, store=store) as h:
        kb = h.kb("default")
        kb.search(queries[0], top_k=10, mode="lexical")
        first = time.perf_counter() - t0
        lat = []
        for q in queries:
            t = time.perf_counter()
            kb.search(q, top_k=10, mode="lexical")
            lat.append((time.perf_counter() - t) * 1000)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "first_search_s": round(first, 2),
        "lexical_p50_ms": round(_pct(lat, 0.5), 1),
        "lexical_p95_ms": round(_pct(lat, 0.95), 1),
        "server_peak_rss_mb": round(rss_mb, 1),
    }


def _db_size(store: str) -> tuple[int, int]:
    import psycopg

    with psycopg.connect(store) as conn:
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        chunks = conn.execute("SELECT count(*) FROM chunk").fetchone()
    return int(size[0]) if size else 0, int(chunks[0]) if chunks else 0


def grow(store: str, base: Path, steps: list[int], deadline: float) -> list[dict[str, Any]]:
    from citewise.kb import Home

    corpus = Corpus()
    home = base / "home"
    out_file = RESULTS / "pg_scale.jsonl"
    RESULTS.mkdir(exist_ok=True)
    results: list[dict[str, Any]] = []
    made = 0
    with Home.open(home, store=store) as h:
        kb = h.kb("default")
        for step in steps:
            t0, files0 = time.perf_counter(), made
            _, chunks0 = _db_size(store)
            chunks = chunks0
            while chunks < step and time.monotonic() < deadline:
                folder = base / "batch"
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                paths = []
                for _ in range(BATCH_FILES):
                    p = folder / f"d{made:07d}.md"
                    p.write_text(corpus.document(made), "utf-8")
                    paths.append(p)
                    made += 1
                report = kb.add(paths)
                if not report.ok:
                    raise SystemExit(f"ingest failed: {report.files[:3]}")
                _, chunks = _db_size(store)
            if chunks < step:
                print(f"stopped at {chunks} chunks: --max-minutes reached", flush=True)
                break
            took = time.perf_counter() - t0
            size, chunks = _db_size(store)
            row: dict[str, Any] = {
                "chunks": chunks,
                "documents": made,
                "ingest_files_per_s": round((made - files0) / took, 1),
                "ingest_chunks_per_s": round((chunks - chunks0) / took, 1),
                "db_bytes": size,
                "db_bytes_per_chunk": round(size / max(chunks, 1)),
            }
            row |= _measure_in_subprocess(store, base / "reader")
            row["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            row["load_avg"] = round(os.getloadavg()[0], 1)
            results.append(row)
            with out_file.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    return results


def _measure_in_subprocess(store: str, home: Path) -> dict[str, Any]:
    code = (
        "import json,sys; from pathlib import Path; from bench.pg_scale import measure; "
        "print(json.dumps(measure(sys.argv[1], Path(sys.argv[2]))))"
    )
    env = dict(os.environ, CITEWISE_DENSE="off", PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run(
        [sys.executable, "-c", code, store, str(home)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=3600,
    )
    if run.returncode != 0:
        raise SystemExit(f"measuring failed: {run.stderr[-800:]}")
    data: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return data


def _terminate(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="10000,30000,100000,300000,1000000")
    ap.add_argument("--max-minutes", type=float, default=60.0)
    args = ap.parse_args(argv)
    os.environ["CITEWISE_DENSE"] = "off"
    signal.signal(signal.SIGTERM, _terminate)  # so the cluster is stopped on kill too
    sys.path.insert(0, str(REPO))
    from tests.pg import PG_BIN, _start

    steps = sorted(int(x) for x in args.steps.split(",") if x.strip())
    deadline = time.monotonic() + args.max_minutes * 60
    base = Path(tempfile.mkdtemp(prefix="citewise-pgscale-"))
    os.chmod(base, 0o755)
    try:
        try:
            (base / "pg").mkdir(mode=0o755)
            cluster, prefix, data = _start(base / "pg", durable=True)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            print(f"skipped: PostgreSQL unavailable: {exc}")
            return 0
        try:
            grow(cluster.create_database("scale"), base, steps, deadline)
        finally:
            subprocess.run(
                [*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                capture_output=True,
                timeout=120,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
