"""CLI start-up time: ``citewise --help`` (and a few sub-command helps) as fresh processes.

Runs each command ``--warmup`` times unmeasured, then ``--runs`` times, each a new Python
process (``python -c "from citewise.cli import main; main()" ARGS``), the way hyperfine
does; reports mean, standard deviation, min and median wall time per command, and the
modules the process imported (``-X importtime`` is not used: it slows the run).

Run: ``.venv/bin/python -m bench.cli_startup [--runs 15] [--warmup 2] [--json]``.
No data needed. The machine is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("ask", "--help"),
    ("audit", "--help"),
    ("graph", "--help"),
)
_ENTRY = "from citewise.cli import main; main()"
_COUNT = (
    "import sys; from citewise.cli import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "sys.stderr.write(f'MODULES {len(sys.modules)}\\n')"
)


def _run_once(args: tuple[str, ...]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _ENTRY, *args], capture_output=True, check=False, env=os.environ
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"citewise {' '.join(args)} exited {done.returncode}: {done.stderr!r}")
    return elapsed


def _modules(args: tuple[str, ...]) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT, *args], capture_output=True, text=True, check=False
    )
    for line in done.stderr.splitlines():
        if line.startswith("MODULES "):
            return int(line.split()[1])
    return -1


def measure(args: tuple[str, ...], runs: int, warmup: int) -> dict[str, Any]:
    for _ in range(warmup):
        _run_once(args)
    times = [_run_once(args) for _ in range(runs)]
    return {
        "command": "citewise " + " ".join(args),
        "runs": runs,
        "mean_s": statistics.fmean(times),
        "stdev_s": statistics.stdev(times) if len(times) > 1 else 0.0,
        "min_s": min(times),
        "median_s": statistics.median(times),
        "modules": _modules(args),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    load_start = os.getloadavg()[0]
    rows = [measure(args, opts.runs, opts.warmup) for args in COMMANDS]
    load_end = os.getloadavg()[0]
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": [round(load_start, 2), round(load_end, 2)],
    }
    if opts.json:
        print(json.dumps({"meta": meta, "results": rows}, indent=2))
        return
    print(
        f"{meta['date']}, Python {meta['python']}, {meta['cpus']} cores, "
        f"load average {load_start:.2f} -> {load_end:.2f}"
    )
    print("| command | mean (s) | ± sd | min | median | modules imported |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| `{r['command']}` | {r['mean_s']:.3f} | {r['stdev_s']:.3f} | {r['min_s']:.3f} "
            f"| {r['median_s']:.3f} | {r['modules']} |"
        )


if __name__ == "__main__":
    main()
