"""Sync benchmark: a sync of an unchanged folder against the first ingest of it.

Corpus: BEIR SciFact abstracts written as Markdown files (title as H1), read from
``../shared/data/beir-scifact`` (or ``$CITEWISE_DATA``); skipped cleanly when absent.
Measures, in a fresh home: the first ``kb.add(folder)`` (parse, store, index; embedding
when dense is on), then ``kb.sync(folder)`` with nothing changed, then a sync after
touching 1% of the files. Target: the unchanged sync costs < 1/10 of the first ingest.

Run: ``.venv/bin/python -m bench.sync [--limit N] [--dense] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from bench._beir import data_root, load_corpus


def write_files(folder: Path, limit: int) -> int:
    docs = load_corpus(data_root() / "beir-scifact")[:limit]
    folder.mkdir(parents=True, exist_ok=True)
    for d in docs:
        (folder / f"{d.doc_id}.md").write_text(f"# {d.title}\n\n{d.text}\n", encoding="utf-8")
    return len(docs)


def run(limit: int, dense: bool) -> dict[str, Any]:
    os.environ["CITEWISE_DENSE"] = "on" if dense else "off"
    from citewise.kb import Home

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "scifact"
        n = write_files(folder, limit)
        with Home.open(Path(tmp) / "home") as home:
            kb = home.kb()
            t0 = time.perf_counter()
            first = kb.add([folder])
            t_first = time.perf_counter() - t0
            t0 = time.perf_counter()
            same = kb.sync(folder)
            t_same = time.perf_counter() - t0
            touched = sorted(folder.iterdir())[: max(1, n // 100)]
            for p in touched:
                p.write_text(p.read_text("utf-8") + "\nEdited.\n", encoding="utf-8")
            t0 = time.perf_counter()
            edited = kb.sync(folder)
            t_edit = time.perf_counter() - t0
    assert first.count("added") == n, first
    assert same.counts["unchanged"] == n and same.revision is None
    assert edited.counts["changed"] == len(touched)
    return {
        "date": date.today().isoformat(),
        "machine": f"shared (2 cores, loaded by other jobs); {platform.machine()}",
        "files": n,
        "dense": dense,
        "first_ingest_s": round(t_first, 2),
        "unchanged_sync_s": round(t_same, 2),
        "ratio": round(t_same / t_first, 4),
        "sync_1pct_changed_s": round(t_edit, 2),
        "changed_files": len(touched),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--dense", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not (data_root() / "beir-scifact").exists():
        print("skipped: beir-scifact not found under", data_root())
        return
    result = run(args.limit, args.dense)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        for k, v in result.items():
            print(f"{k:>22}: {v}")


if __name__ == "__main__":
    main()
