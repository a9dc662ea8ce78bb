"""Table-cell answers (issue 36): ``bench/questions/tables.yaml`` over the shared documents
and papers, each question's answer one table cell that needs its row and column headers.

The question file's paths start with the corpus folder (``documents/...``, ``papers/...``);
each group of questions is asked in that corpus's knowledge base, built (or reused with
``--keep DIR``: the pool's layout, ``DIR/<dense>/home-documents`` and ``home-papers``) and
graded exactly as the development pool does (``bench.answers_pool.ask_corpus``). The
expected paths lose their corpus prefix so they compare with the citations' paths.

    .venv/bin/python -m bench.answers_tables [--no-dense] [--ids tb-0] [--keep DIR]
        [--out FILE.json]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any numpy import

import argparse
import contextlib
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench._beir import data_root
from bench._grading import Location, Question
from bench._pool import DEFAULTS
from bench.answers_docs import QUESTIONS, RESULTS, load_question_file, selected, summarise, table
from bench.answers_documents import copy_documents
from bench.answers_pool import OUT, Corpus, ask_corpus

SOURCE = "tables.yaml"


FOLDERS = ("documents", "papers")


def split_by_corpus(qs: list[Question]) -> dict[str, list[Question]]:
    """Questions grouped by the corpus folder their expected files are in, the folder
    stripped from the paths. An unanswerable question has no file: it is asked in every
    corpus (it must be refused over the documents and the papers alike)."""
    out: dict[str, list[Question]] = {}
    for q in qs:
        expected = tuple(Location(e.file.split("/", 1)[1], e.start, e.end) for e in q.expected)
        folders = {e.file.split("/", 1)[0] for e in q.expected} or set(FOLDERS)
        for folder in sorted(folders):
            out.setdefault(folder, []).append(replace(q, expected=expected, corpus="tables"))
    return out


def combine(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per question: an unanswerable question asked in both corpora keeps its
    overreach row when either knowledge base answered it, else its first row."""
    by_id: dict[str, dict[str, Any]] = {}
    for r in rows:
        kept = by_id.get(r["id"])
        if kept is None or (r["label"] == "overreach" and kept["label"] != "overreach"):
            by_id[r["id"]] = r
    return sorted(by_id.values(), key=lambda r: str(r["id"]))


def run(work: Path, ids: list[str], traces: Path) -> list[dict[str, Any]]:
    _, qs = load_question_file(QUESTIONS / SOURCE, "tables")
    rows: list[dict[str, Any]] = []
    with traces.open("w", encoding="utf-8") as tr:
        for folder, group in split_by_corpus(selected(qs, ids)).items():
            root = (data_root() / folder).resolve()
            files_dir = work / "src" / folder
            copy_documents(root, files_dir)
            corpus = Corpus(folder, "files", SOURCE)
            print(f"{folder}: {len(group)} questions ...", file=sys.stderr, flush=True)
            res = ask_corpus(
                corpus, group, files_dir, root, work / f"home-{folder}", (DEFAULTS,), tr
            )
            rows += [{**r, "kb": folder} for r in res["rows"]]
    return combine(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Table-cell answers over documents and papers.")
    ap.add_argument("--no-dense", action="store_true", help="turn the dense route off")
    ap.add_argument("--ids", default="", help="comma-separated ids or id prefixes")
    ap.add_argument("--keep", default="", help="keep the homes in this folder and reuse them")
    ap.add_argument("--out", default="", help="result file (default bench/out/answers_tables.json)")
    args = ap.parse_args(argv)
    if not data_root().is_dir():
        print(f"shared data not found under {data_root()}; skipping.")
        return 0
    dense = "off" if args.no_dense else "on"
    os.environ["CITEWISE_DENSE"] = dense
    ids = [i.strip() for i in args.ids.split(",") if i.strip()]
    load0 = os.getloadavg()
    out = Path(args.out) if args.out else OUT / f"answers_tables_{dense}.json"
    RESULTS.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        if args.keep:
            work = Path(args.keep) / dense
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="citewise-tab-")))
        rows = run(work, ids, RESULTS / f"{out.stem}_traces.jsonl")
    summary = summarise(rows)
    md = table({"tables": summary})
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"dense": dense, "loadavg_start_end": [load0[0], os.getloadavg()[0]]}
    out.write_text(json.dumps({"meta": meta, "summary": summary, "rows": rows}, indent=1), "utf-8")
    with (RESULTS / f"{out.stem}.jsonl").open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    print(md)
    for r in rows:
        if r["label"] not in ("right", "correct_abstention"):
            print(f"{r['id']} [{r['kb']}] {r['label']}: {str(r['answer'])[:160]!r}")
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
