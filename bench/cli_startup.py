"""CLI start-up time: ``citewise --help`` (and a few sub-command helps) as fresh processes.

Each measurement is a new Python process (``python -c "from citewise.cli import main;
main()" ARGS``), as hyperfine runs a command: ``--warmup`` unmeasured runs, then
``--runs`` measured ones; reported are mean, standard deviation, min and median wall time,
and how many modules the process had imported when the help was printed.

``--src DIR`` (repeatable) measures the package found in ``DIR`` (put first on
``PYTHONPATH``) instead of the installed one; with two or more, runs of the trees
alternate, so a busy machine slows them alike and the comparison stays fair.

Run: ``.venv/bin/python -m bench.cli_startup [--runs 20] [--warmup 3] [--src DIR ...]
[--json]``. No data needed. The machine is shared: the load average is printed with the
figures.
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
from pathlib import Path
from typing import Any

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("ask", "--help"),
    ("audit", "--help"),
    ("graph", "--help"),
)
_ENTRY = "from citewise.cli import main; main()"
_COUNT = (
    "import sys\nfrom citewise.cli import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "sys.stderr.write(f'MODULES {len(sys.modules)}\\n')"
)


def _env(src: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
    return env


def _run_once(args: tuple[str, ...], src: Path | None) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _ENTRY, *args], capture_output=True, check=False, env=_env(src)
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"citewise {' '.join(args)} exited {done.returncode}: {done.stderr!r}")
    return elapsed


def _modules(args: tuple[str, ...], src: Path | None) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT, *args],
        capture_output=True,
        text=True,
        check=False,
        env=_env(src),
    )
    for line in done.stderr.splitlines():
        if line.startswith("MODULES "):
            return int(line.split()[1])
    return -1


def _summary(label: str, args: tuple[str, ...], times: list[float], modules: int) -> dict[str, Any]:
    return {
        "src": label,
        "command": "citewise " + " ".join(args),
        "runs": len(times),
        "mean_s": statistics.fmean(times),
        "stdev_s": statistics.stdev(times) if len(times) > 1 else 0.0,
        "min_s": min(times),
        "median_s": statistics.median(times),
        "modules": modules,
    }


def measure(args: tuple[str, ...], srcs: list[Path | None], runs: int, warmup: int) -> list[Any]:
    """Interleaved runs of ``args`` for every source tree; one summary per tree."""
    for _ in range(warmup):
        for src in srcs:
            _run_once(args, src)
    times: list[list[float]] = [[] for _ in srcs]
    for _ in range(runs):
        for i, src in enumerate(srcs):
            times[i].append(_run_once(args, src))
    return [
        _summary(str(src or "installed"), args, t, _modules(args, src))
        for src, t in zip(srcs, times, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--src", type=Path, action="append", default=[])
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    srcs: list[Path | None] = list(opts.src) or [None]
    load_start = os.getloadavg()[0]
    rows = [row for args in COMMANDS for row in measure(args, srcs, opts.runs, opts.warmup)]
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
    print("| source | command | mean (s) | ± sd | min | median | modules imported |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['src']} | `{r['command']}` | {r['mean_s']:.3f} | {r['stdev_s']:.3f} "
            f"| {r['min_s']:.3f} | {r['median_s']:.3f} | {r['modules']} |"
        )


if __name__ == "__main__":
    main()
