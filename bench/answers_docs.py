"""Answers on real documentation (issue 15): the development question sets, graded.

For each corpus in ``bench/questions/docs_<corpus>.yaml`` the Markdown and reST files of
``../shared/data/docs-corpora/<corpus>/`` are copied (relative paths kept) into a
temporary home, one knowledge base is built, every question is asked with ``kb.ask``
and graded (``bench/_grading.py``):

* right / partial / miscited / wrong_abstention for answerable questions,
  correct_abstention / overreach for the others;
* every citation is checked against the original file: the excerpt is the file's text
  at the cited character offsets, the sha256 is the excerpt's, the lines are the
  offsets' lines ("citation exactness").

Reports per corpus and overall: right % of answerable, overreach % of unanswerable,
wrong abstention % of answerable, citation exactness %, latency p50/p95 (after one
warm-up question). Writes one JSON line per question to
``bench/results/answers_docs_<dense>.jsonl`` (gitignored) and prints a Markdown table.
The dense route (the real bundled encoder) is on by default; ``--no-dense`` turns it off.
Skips cleanly when the data is absent. The development corpora (starlette, click, typer)
run by default; ``--corpus requests`` runs the held-out reST corpus and ``--corpus
regulations`` the held-out CFPB regulations (RegML XML under ``regulatory-text``, a root
relative to ``docs-corpora``), whose questions were written from the documents before any
answer on them was seen.

    .venv/bin/python -m bench.answers_docs [--no-dense] [--corpus click] [--ids st-001,cl-]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any numpy import

import argparse
import contextlib
import json
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from bench._beir import data_root
from bench._grading import (
    LABELS,
    Location,
    Question,
    check_cited,
    grade,
    percentile,
)

QUESTIONS = Path(__file__).resolve().parent / "questions"
RESULTS = Path(__file__).resolve().parent / "results"
CORPORA = ("starlette", "click", "typer")
#: Corpora kept out of development: never tuned on, run only when asked (``--corpus``).
HELD_OUT = ("requests", "regulations")
#: Source formats a question set may ask about; their files are copied into the KB.
FORMATS = {"md": ".md", "rst": ".rst", "xml": ".xml"}
WARMUP = "What is this documentation about?"


def load_questions(corpus: str) -> tuple[str, list[Question]]:
    """The corpus folder name and the questions of ``docs_<corpus>.yaml``."""
    return load_question_file(QUESTIONS / f"docs_{corpus}.yaml", corpus)


def load_question_file(path: Path, corpus: str) -> tuple[str, list[Question]]:
    """The corpus folder name and the questions of one question file."""
    data = yaml.safe_load(path.read_text("utf-8"))
    out: list[Question] = []
    for q in data["questions"]:
        if q.get("format", "md") not in FORMATS:
            continue  # a format the benchmark does not copy into the KB
        out.append(
            Question(
                id=str(q["id"]),
                corpus=corpus,
                question=str(q["question"]),
                answerable=bool(q["answerable"]),
                profile=str(q.get("profile", "")),
                expected=tuple(
                    Location(str(e["file"]), int(e["lines"][0]), int(e["lines"][1]))
                    for e in q.get("expected") or ()
                ),
                must_contain=tuple(str(m) for m in q.get("must_contain") or ()),
                any_of=tuple(str(m) for m in q.get("any_of") or ()),
            )
        )
    return str(data.get("root", corpus)), out


def selected(qs: list[Question], ids: list[str]) -> list[Question]:
    """Questions whose id equals or starts with one of ``ids`` (all when empty)."""
    if not ids:
        return qs
    return [q for q in qs if any(q.id == i or q.id.startswith(i) for i in ids)]


def _source_text(path: Path) -> str:
    raw = path.read_bytes()
    return raw.decode("utf-8-sig")


def _copy_docs(src: Path, dst: Path) -> int:
    """Copy the Markdown and reStructuredText files of ``src`` (relative paths kept)."""
    n = 0
    files = sorted(f for f in src.rglob("*") if f.suffix in FORMATS.values() and f.is_file())
    for f in files:
        target = dst / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
        n += 1
    return n


def run_corpus(corpus: str, qs: list[Question], root: Path, tmp: Path) -> dict[str, Any]:
    from citewise.kb import Home

    files_dir = tmp / "src" / corpus
    n_files = _copy_docs(root, files_dir)
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with Home.open(tmp / f"home-{corpus}") as h:
        kb = h.kb()
        report = kb.add([files_dir])
        build_s = time.perf_counter() - t0
        failed = [f.path for f in report.files if f.status == "failed"]
        kb.ask(WARMUP)
        for q in qs:
            t1 = time.perf_counter()
            ans = kb.ask(q.question)
            ms = 1000 * (time.perf_counter() - t1)
            cites: list[dict[str, Any]] = []
            for c in ans.citations:
                chk = check_cited(_source_text(root / c.path), c)
                cites.append(
                    {
                        "path": c.path,
                        "lines": [c.line_start, c.line_end],
                        "role": c.role,
                        "exact": chk.exact,
                        "problem": chk.problem,
                    }
                )
            rows.append(answer_row(q, ans, cites, ms))
    return {"files": n_files, "failed_files": failed, "build_s": round(build_s, 1), "rows": rows}


def answer_row(q: Question, ans: Any, cites: list[dict[str, Any]], ms: float) -> dict[str, Any]:
    """One graded question as a result row (``ans`` is the product's answer)."""
    located = [Location(c.path, c.line_start, c.line_end) for c in ans.citations]
    g = grade(q, ans.outcome, ans.answer, located)
    return {
        "id": q.id,
        "corpus": q.corpus,
        "profile": q.profile,
        "answerable": q.answerable,
        "label": g.label,
        "outcome": ans.outcome,
        "degradation": ans.degradation,
        "located": g.located,
        "missing": list(g.missing),
        "question": q.question,
        "expected": [asdict(e) for e in q.expected],
        "answer": ans.answer,
        "reasons": list(ans.sufficiency.reason_texts),
        "citations": cites,
        "meaning": ans.trace.get("meaning"),
        "ms": round(ms, 1),
    }


def write_results(
    out: Path,
    rows: list[dict[str, Any]],
    benchmark: str,
    dense: str,
    load0: tuple[float, float, float],
    **extra: Any,
) -> dict[str, Any]:
    """Write one JSON line per question to ``out`` and the run's summary beside it
    (``<out>.summary.json``: date, machine, load at start and end, ``extra``); return the
    summary."""
    with out.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    meta = {
        "benchmark": benchmark,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "dense": dense,
        "machine": {"arch": platform.machine(), "cpus": os.cpu_count()},
        "loadavg_start_end": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
        **extra,
    }
    out.with_suffix(".summary.json").write_text(json.dumps(meta, indent=2) + "\n", "utf-8")
    return meta


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    labels = Counter(str(r["label"]) for r in rows)
    answerable = sum(1 for r in rows if r["answerable"])
    unanswerable = len(rows) - answerable
    cites = [c for r in rows for c in r["citations"]]
    ms = [float(r["ms"]) for r in rows]

    def pct(n: int, d: int) -> float:
        return round(100 * n / d, 1) if d else 0.0

    return {
        "questions": len(rows),
        "answerable": answerable,
        "unanswerable": unanswerable,
        "labels": {k: labels.get(k, 0) for k in LABELS},
        "right_pct": pct(labels["right"], answerable),
        "partial_pct": pct(labels["partial"], answerable),
        "miscited_pct": pct(labels["miscited"], answerable),
        "wrong_abstention_pct": pct(labels["wrong_abstention"], answerable),
        "overreach_pct": pct(labels["overreach"], unanswerable),
        "citations": len(cites),
        "citation_exact_pct": pct(sum(1 for c in cites if c["exact"]), len(cites)),
        "p50_ms": round(percentile(ms, 50), 1),
        "p95_ms": round(percentile(ms, 95), 1),
    }


def table(summaries: dict[str, dict[str, Any]]) -> str:
    head = (
        "| corpus | questions (ans/unans) | right | partial | miscited | wrong abst. "
        "| overreach | citations exact | p50 / p95 ms |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for name, s in summaries.items():
        lab = s["labels"]
        lines.append(
            f"| {name} | {s['questions']} ({s['answerable']}/{s['unanswerable']}) "
            f"| {s['right_pct']}% ({lab['right']}) | {s['partial_pct']}% ({lab['partial']}) "
            f"| {s['miscited_pct']}% ({lab['miscited']}) "
            f"| {s['wrong_abstention_pct']}% ({lab['wrong_abstention']}) "
            f"| {s['overreach_pct']}% ({lab['overreach']}) "
            f"| {s['citation_exact_pct']}% of {s['citations']} "
            f"| {s['p50_ms']:.0f} / {s['p95_ms']:.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Graded answers on real documentation.")
    ap.add_argument("--no-dense", action="store_true", help="turn the dense route off")
    ap.add_argument(
        "--corpus",
        action="append",
        choices=CORPORA + HELD_OUT,
        help="repeatable; default: the development corpora (held out: requests, regulations)",
    )
    ap.add_argument("--ids", default="", help="comma-separated ids or id prefixes")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument(
        "--keep",
        default="",
        help="build the homes in this folder and reuse them on the next run "
        "(unchanged files are not ingested again; for fast iteration with --ids)",
    )
    args = ap.parse_args(argv)
    base = data_root() / "docs-corpora"
    if not base.is_dir():
        print(f"docs-corpora not found under {base}; skipping.")
        return 0
    dense = "off" if args.no_dense else "on"
    os.environ["CITEWISE_DENSE"] = dense
    ids = [i.strip() for i in args.ids.split(",") if i.strip()]
    load0 = os.getloadavg()
    all_rows: list[dict[str, Any]] = []
    summaries: dict[str, dict[str, Any]] = {}
    builds: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        if args.keep:
            tmp = str(Path(args.keep) / dense)
            Path(tmp).mkdir(parents=True, exist_ok=True)
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="citewise-docs-bench-"))
        for corpus in args.corpus or CORPORA:
            folder, qs = load_questions(corpus)
            qs = selected(qs, ids)
            if not qs:
                continue
            res = run_corpus(corpus, qs, base / folder, Path(tmp))
            builds[corpus] = {k: v for k, v in res.items() if k != "rows"}
            all_rows += res["rows"]
            summaries[corpus] = summarise(res["rows"])
    if not all_rows:
        print("No question matched.")
        return 0
    summaries["all"] = summarise(all_rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = "" if not ids and not args.corpus else "_subset"
    out = RESULTS / f"answers_docs_{dense}{suffix}.jsonl"
    meta = write_results(
        out, all_rows, "answers_docs", dense, load0, builds=builds, summaries=summaries
    )
    if args.json:
        print(json.dumps(meta, indent=2))
    else:
        print(f"dense {dense}; load average {meta['loadavg_start_end']} (start, end)")
        print(table(summaries))
        print(f"\nper question: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
