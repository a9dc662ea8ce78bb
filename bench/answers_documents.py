"""Answers on real binary documents (issue 15): PDF, DOCX, PPTX, XLSX, EPUB and ODT.

The question set ``bench/questions/documents.yaml`` was written from the documents of
``../shared/data/documents`` (third-party files, see its SOURCE.md) before any answer was
seen. The documents are copied (relative paths kept; ``SOURCE.md`` and the OCR reference
``linn.txt`` left out) into a temporary home, one knowledge base is built (files that
cannot be read, such as the broken and the password-protected PDF, are reported and
skipped as the product does), every question is asked and graded as in
``bench/answers_docs.py`` (right / partial / miscited / wrong abstention / correct
abstention / overreach). Lines are those of the text citewise extracts from the file.

Citation exactness for these formats: the excerpt is the stored version text at the cited
character offsets, the sha256 is the excerpt's, the lines are the offsets' lines, and the
citation carries a locator into the original file (page, slide, sheet and row, chapter or
paragraph).

    .venv/bin/python -m bench.answers_documents [--no-dense] [--ids dc-0]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any numpy import

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._beir import data_root
from bench._grading import Question, check_cited
from bench.answers_docs import (
    QUESTIONS,
    RESULTS,
    answer_row,
    load_question_file,
    selected,
    summarise,
    table,
    write_results,
)

SKIP = {"SOURCE.md", "linn.txt"}
WARMUP = "What are these documents about?"


def copy_documents(src: Path, dst: Path) -> int:
    n = 0
    for f in sorted(src.rglob("*")):
        if f.is_file() and f.name not in SKIP:
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
            n += 1
    return n


def _citation(kb: Any, c: Any) -> dict[str, Any]:
    text = kb.store.get_document_text(kb.name, c.doc_id, c.version_id)
    chk = check_cited(text, c)
    needs_locator = Path(c.path).suffix.lower() not in (".md", ".txt", ".rst")
    problem = chk.problem or (
        "no locator into the original file" if needs_locator and not c.locator else ""
    )
    return {
        "path": c.path,
        "lines": [c.line_start, c.line_end],
        "role": c.role,
        "locator": c.locator,
        "exact": chk.exact and not problem,
        "problem": problem,
    }


def run(qs: list[Question], root: Path, tmp: Path) -> dict[str, Any]:
    from citewise.kb import Home

    files_dir = tmp / "src" / "documents"
    n_files = copy_documents(root, files_dir)
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with Home.open(tmp / "home") as h:
        kb = h.kb()
        report = kb.add([files_dir])
        build_s = time.perf_counter() - t0
        failed = sorted(f.path for f in report.files if f.status == "failed")
        kb.ask(WARMUP)
        for q in qs:
            t1 = time.perf_counter()
            ans = kb.ask(q.question)
            ms = 1000 * (time.perf_counter() - t1)
            cites = [_citation(kb, c) for c in ans.citations]
            rows.append(answer_row(q, ans, cites, ms))
    return {"files": n_files, "failed_files": failed, "build_s": round(build_s, 1), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Graded answers on real binary documents.")
    ap.add_argument("--no-dense", action="store_true", help="turn the dense route off")
    ap.add_argument("--ids", default="", help="comma-separated ids or id prefixes")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    root = data_root() / "documents"
    if not root.is_dir():
        print(f"documents not found under {root}; skipping.")
        return 0
    dense = "off" if args.no_dense else "on"
    os.environ["CITEWISE_DENSE"] = dense
    _folder, qs = load_question_file(QUESTIONS / "documents.yaml", "documents")
    qs = selected(qs, [i.strip() for i in args.ids.split(",") if i.strip()])
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="citewise-documents-bench-") as tmp:
        res = run(qs, root, Path(tmp))
    summaries = {"documents": summarise(res["rows"])}
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"answers_documents_{dense}.jsonl"
    meta = write_results(
        out,
        res["rows"],
        "answers_documents",
        dense,
        load0,
        build={k: v for k, v in res.items() if k != "rows"},
        summaries=summaries,
    )
    if args.json:
        print(json.dumps(meta, indent=2))
    else:
        print(f"dense {dense}; load average {meta['loadavg_start_end']} (start, end)")
        print(f"files {res['files']}, not read: {', '.join(res['failed_files']) or 'none'}")
        print(table(summaries))
        print(f"\nper question: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
