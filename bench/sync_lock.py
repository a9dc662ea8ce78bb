"""How long searches wait while a server syncs a folder of large files (issue 32).

A server (its :class:`~citewise.facade.service.Service`, in-process) syncs a folder holding
one small document and ``--files`` generated Markdown files of ``--mb`` MB each, while
another thread searches every 0.2 s. Reports how many searches were answered while the
sync ran and the worst wait, plus how long the sync's plan (read and parse, outside the
write lock) and commit (store write and index publish, exclusive) took on their own.
Generated data only: nothing is read from ../shared.

Run: ``.venv/bin/python -m bench.sync_lock [--files 2] [--mb 2.3] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

_PARA = (
    "The {w} procedure covers calibration, inspection and the records kept for each "
    "batch of parts. "
) * 4


def write_big(folder: Path, files: int, mb: float) -> None:
    for n in range(files):
        parts: list[str] = []
        size, i = 0, 0
        while size < mb * 1_000_000:
            part = f"## Section {i}\n\n" + _PARA.format(w=f"w{n}x{i}") + "\n\n"
            parts.append(part)
            size += len(part)
            i += 1
        (folder / f"big{n}.md").write_text("# Big\n\n" + "".join(parts), encoding="utf-8")


def searches_during_sync(tmp: Path, files: int, mb: float) -> dict[str, Any]:
    from citewise.facade.caller import LOCAL
    from citewise.facade.service import Service
    from citewise.kb import Home

    roots = tmp / "shared"
    folder = roots / "notes"
    folder.mkdir(parents=True)
    (folder / "old.md").write_text("# Old\n\nThe gamma procedure.\n", encoding="utf-8")
    with Home.open(tmp / "home") as home:
        service = Service(home, sync_roots=(roots,))
        service.sync(LOCAL, "default", "notes")
        write_big(folder, files, mb)
        out: dict[str, float] = {}

        def sync() -> None:
            t0 = time.perf_counter()
            service.sync(LOCAL, "default", "notes")
            out["sync_s"] = time.perf_counter() - t0

        worker = threading.Thread(target=sync)
        worker.start()
        waits: list[float] = []
        while worker.is_alive():
            t0 = time.perf_counter()
            service.search(LOCAL, "default", "gamma", mode="lexical")
            waits.append(time.perf_counter() - t0)
            time.sleep(0.2)
        worker.join()
    return {
        "sync_s": round(out["sync_s"], 2),
        "searches_answered": len(waits),
        "worst_wait_s": round(max(waits), 2),
    }


def phases(tmp: Path, files: int, mb: float) -> dict[str, float]:
    from citewise.kb import Home
    from citewise.sync.mirror import apply_sync, plan_sync

    folder = tmp / "phases"
    folder.mkdir()
    write_big(folder, files, mb)
    with Home.open(tmp / "home2") as home:
        ctx = home.kb().context
        t0 = time.perf_counter()
        plan = plan_sync(ctx, folder)
        t1 = time.perf_counter()
        apply_sync(ctx, plan)
        t2 = time.perf_counter()
    return {"plan_outside_lock_s": round(t1 - t0, 2), "commit_exclusive_s": round(t2 - t1, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2)
    ap.add_argument("--mb", type=float, default=2.3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ["CITEWISE_DENSE"] = "off"
    with tempfile.TemporaryDirectory() as d:
        result: dict[str, Any] = {
            "date": date.today().isoformat(),
            "machine": f"shared (2 cores, loaded by other jobs); {platform.machine()}",
            "files": args.files,
            "mb_each": args.mb,
            **searches_during_sync(Path(d), args.files, args.mb),
            **phases(Path(d), args.files, args.mb),
        }
    print(json.dumps(result, indent=2) if args.json else result)


if __name__ == "__main__":
    main()
