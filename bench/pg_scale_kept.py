"""Measure a fresh server on a cluster kept by ``bench.pg_scale --keep DIR`` (issue 19).

``python -m bench.pg_scale_kept DIR [--label L] [--max-minutes M]`` starts the stopped
cluster in ``DIR/pg/data`` on a free port (as the OS user that owns it; the binaries named
in the run's ``start`` row, else pgserver's, else Debian's), runs the same measuring
process as the growing run (``bench.pg_scale.measure``: a fresh process with an empty index
folder, start-up in phases, lexical and hybrid p50/p95 with each route's time, resident
memory) on the database ``scale`` directly (it only reads; opening the store runs the
idempotent migrations), appends its row to ``bench/results/pg_scale.jsonl`` (``--out``
overrides) with the chunk count, ``--label``, date and load, and stops the cluster again,
leaving the data in place. A measurement still running after ``--max-minutes`` is killed
and an ``unfinished`` row records how far it got.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _bin_dir(keep: Path) -> Path:
    from tests.pg import PG_BIN, _pgvector_bin

    for line in (keep / "pg" / "data" / "postmaster.opts").read_text().splitlines():
        first = line.split('"')[0].strip() or line.split('"')[1]
        if first.endswith("/postgres"):
            return Path(first).parent
    return _pgvector_bin() or PG_BIN


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("keep", type=Path, help="the --keep folder of a bench.pg_scale run")
    ap.add_argument("--label", default="", help="recorded in the row (e.g. the code's commit)")
    ap.add_argument("--out", type=Path, default=None, help="results file (default: the repo's)")
    ap.add_argument("--max-minutes", type=float, default=90.0)
    ap.add_argument("--db", default="scale")
    ap.add_argument("--log", type=Path, default=None, help="the measuring process's progress")
    ap.add_argument(
        "--what",
        default="server",
        choices=("server", "dense", "server,dense"),
        help="server: start-up, lexical and hybrid p50/p95, memory; dense: synthetic vectors "
        "for every chunk, the pgvector HNSW build and the dense route's p50/p95",
    )
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from tests.pg import PgCluster, _free_port, _runner

    from bench.pg_scale import _emit

    data = (args.keep / "pg" / "data").resolve()
    if not (data / "PG_VERSION").exists():
        print(f"no cluster in {data}: run bench.pg_scale --keep {args.keep} first")
        return 2
    if args.label:
        os.environ["PG_SCALE_LABEL"] = args.label
    if args.out is not None:
        os.environ["PG_SCALE_OUT"] = str(args.out.resolve())
    bin_dir = _bin_dir(args.keep)
    prefix, user = _runner()
    sock, port = data.parent, _free_port()
    opts = f"-p {port} -k {sock} -c listen_addresses='' -c max_connections=100"
    pg_ctl = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data)]
    log = sock / "server.log"
    t = time.perf_counter()
    run = subprocess.run(
        [*pg_ctl, "-l", str(log), "-o", opts, "-w", "-t", "600", "start"],
        capture_output=True,
        text=True,
        timeout=660,
    )
    if run.returncode != 0:
        print(f"pg_ctl start failed: {run.stderr.strip()[-500:]}")
        return 1
    started_s = round(time.perf_counter() - t, 1)
    home = Path(tempfile.mkdtemp(prefix="citewise-pgscale-reader-"))
    log_path = args.log or home.with_suffix(".log")
    try:
        url = PgCluster(str(sock), port, user).url(args.db)
        code = "import sys; from bench.pg_scale import _measure_main; _measure_main(*sys.argv[1:])"
        env = dict(os.environ, CITEWISE_DENSE="off", PYTHONPATH=os.pathsep.join(sys.path))
        with log_path.open("a", encoding="utf-8") as progress:
            proc = subprocess.Popen(
                [sys.executable, "-c", code, url, str(home / "home"), args.what],
                stdout=subprocess.PIPE,
                stderr=progress,
                text=True,
                env=env,
                cwd=REPO,
            )
            print(
                f"cluster up in {started_s} s on port {port}; measuring (pid {proc.pid}, "
                f"progress in {log_path})",
                flush=True,
            )
            try:
                out, _ = proc.communicate(timeout=args.max_minutes * 60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                out = ""
        err = log_path.read_text("utf-8", errors="replace")
        if not out:
            _emit({"kind": "unfinished", "after_minutes": args.max_minutes, "log": err[-1500:]})
            return 1
        if proc.returncode != 0:
            _emit({"kind": "error", "error": err[-1500:]})
            return 1
        print(out.strip().splitlines()[-1])
        return 0
    finally:
        shutil.rmtree(home, ignore_errors=True)
        if args.log is None:
            log_path.unlink(missing_ok=True)
        subprocess.run([*pg_ctl, "-m", "fast", "-w", "stop"], capture_output=True, timeout=300)


if __name__ == "__main__":
    raise SystemExit(main())
