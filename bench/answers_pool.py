"""The development pool of issue 34: every corpus built, asked and graded the same way.

Corpora (``../shared/data``): the docs-corpora starlette, click, typer and requests
(``bench/questions/docs_<name>.yaml``), the CFPB regulations (``docs_regulations.yaml``,
regulatory-text), ``documents`` (PDF/DOCX/PPTX/XLSX/EPUB/ODT), ``papers`` (PDFs) and
``laws-zh`` (Chinese Markdown laws in dated editions), ``cfr14`` (14 CFR chapter V, GPO
XML; ``cfr14.yaml``) and ``cnlaws-md`` (six PRC laws as Markdown; ``cnlaws_md.yaml``), each
from its question file, plus a
fixed sample of SQuAD 2.0 dev (English, answerable and not) and of CMRC 2018 dev
(Chinese, all answerable), drawn with :data:`POOL_SEED` (not the seed 15 the SQuAD and
reject benchmarks report, which stays unread). ``requests`` and ``regulations`` are the
held-out sets: asked and reported, never used for choosing a setting.

For each corpus one knowledge base is built (``--keep DIR`` keeps the homes for the next
run), every question is asked with ``kb.ask`` under each candidate setting
(``bench/_pool.py``; today the defaults only), and graded by ``bench/_grading.py``:
right (answered, a citation overlaps an expected location, must_contain / any_of present;
for SQuAD and CMRC the gold paragraph and a gold answer text), partial, miscited, wrong
abstention, correct abstention, overreach; each citation is checked to be exactly the
stored text at its range (the file's own text for text formats; the stored version text
plus a locator into the original for PDF and office files).

Writes ``bench/out/answers_pool_<dense>.json`` (or ``--out``: summaries,
leave-one-corpus-out table, every row; rewritten after each corpus, so a stopped run keeps
what it finished), ``.md`` beside it, and rows and traces to
``bench/results/<stem>*.jsonl``. ``--compare A B`` lists the questions whose outcome,
answer or citations changed between two such files (exit 1 when any did). Skips a
corpus whose data is absent.

    .venv/bin/python -m bench.answers_pool [--no-dense] [--corpus papers] [--n 100]
        [--keep DIR] [--ids pp-0] [--compare A.json B.json]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any numpy import

import argparse
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._beir import data_root
from bench._grading import Location, Question, check_cited, contains_phrase, gold_in_answer, grade
from bench._pool import CANDIDATES, Setting, compare, leave_one_out, macro, markdown
from bench.answers_docs import (
    QUESTIONS,
    RESULTS,
    _copy_docs,
    answer_row,
    load_question_file,
    selected,
    summarise,
    write_results,
)
from bench.answers_documents import copy_documents
from bench.answers_reject import load_cmrc
from bench.answers_squad import load_squad, sample, write_articles

OUT = Path(__file__).resolve().parent / "out"
#: Sample seed of the SQuAD and CMRC parts of the pool (a development seed: the
#: benchmarks' reported seed 15 is not read here).
POOL_SEED = 34
TEXT_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".xml")
Contains = Callable[[str, str], bool]


@dataclass(frozen=True, slots=True)
class Corpus:
    name: str
    kind: str  # "docs" (text files), "files" (any format), "squad" or "cmrc"
    source: str  # question file, or the data file of a reading-comprehension set
    held_out: bool = False


POOL: tuple[Corpus, ...] = (
    Corpus("starlette", "docs", "docs_starlette.yaml"),
    Corpus("click", "docs", "docs_click.yaml"),
    Corpus("typer", "docs", "docs_typer.yaml"),
    Corpus("requests", "docs", "docs_requests.yaml", held_out=True),
    Corpus("regulations", "docs", "docs_regulations.yaml", held_out=True),
    Corpus("documents", "files", "documents.yaml"),
    Corpus("papers", "files", "papers.yaml"),
    Corpus("laws-zh", "files", "laws_zh.yaml"),
    Corpus("cfr14", "docs", "cfr14.yaml"),  # 14 CFR chapter V, GPO XML (regulatory text)
    Corpus("cnlaws-md", "files", "cnlaws_md.yaml"),  # six PRC laws, Markdown (regulatory text)
    Corpus("squad2", "squad", "squad2-dev/dev-v2.0.json"),
    Corpus("cmrc", "cmrc", "cmrc2018-zh/cmrc2018_dev.squad.json"),
)
HELD_OUT = tuple(c.name for c in POOL if c.held_out)
WARMUP = "What are these documents about?"


def squad_contains(answer: str, gold: str) -> bool:
    """SQuAD's own normalisation (no articles or punctuation) on word boundaries."""
    return gold_in_answer(answer, [gold])


def _article_file(a: int, title: str) -> str:
    """The file name ``bench.answers_squad.write_articles`` gives article ``a``."""
    return f"{a:02d}-{title.replace(' ', '_').replace('/', '_')}.md"


def reading_set(corpus: Corpus, n: int, files_dir: Path) -> list[Question]:
    """Write the articles of a SQuAD-layout set into ``files_dir`` and return a fixed
    sample of its questions; the expected location is the gold paragraph's line (the
    writer puts paragraph ``p`` on line ``3 + 2p``), the gold texts are ``any_of``."""
    loader = load_squad if corpus.kind == "squad" else load_cmrc
    articles, questions = loader(data_root() / corpus.source)
    write_articles(articles, files_dir, set())
    out: list[Question] = []
    for sq in sample(questions, n, POOL_SEED):
        line = 3 + 2 * sq.paragraph
        where = Location(_article_file(sq.article, articles[sq.article].title), line, line)
        out.append(
            Question(
                id=sq.qid,
                corpus=corpus.name,
                question=sq.question,
                answerable=bool(sq.answers),
                expected=(where,) if sq.answers else (),
                any_of=sq.answers,
            )
        )
    return out


def prepare(corpus: Corpus, n: int, files_dir: Path) -> tuple[list[Question], Path] | None:
    """Copy (or write) the corpus into ``files_dir``: its questions and the folder the
    citations' paths are relative to; None when the data is absent."""
    if corpus.kind in ("squad", "cmrc"):
        if not (data_root() / corpus.source).exists():
            return None
        return reading_set(corpus, n, files_dir), files_dir
    base = data_root() / "docs-corpora" if corpus.kind == "docs" else data_root()
    folder, qs = load_question_file(QUESTIONS / corpus.source, corpus.name)
    root = (base / folder).resolve()
    if not root.is_dir():
        return None
    if corpus.kind == "docs":
        _copy_docs(root, files_dir)
    else:
        copy_documents(root, files_dir)
    return qs, root


def citation_row(kb: Any, root: Path, c: Any) -> dict[str, Any]:
    """One citation checked: a text file's own text at the range, else the stored version
    text at the range plus a locator into the original file."""
    text_file = Path(c.path).suffix.lower() in TEXT_SUFFIXES
    if text_file:
        source = (root / c.path).read_bytes().decode("utf-8-sig")
    else:
        source = kb.store.get_document_text(kb.name, c.doc_id, c.version_id)
    chk = check_cited(source, c)
    problem = chk.problem or ("" if text_file or c.locator else "no locator into the file")
    return {
        "path": c.path,
        "lines": [c.line_start, c.line_end],
        "role": c.role,
        "locator": c.locator,
        "exact": chk.exact and not problem,
        "problem": problem,
    }


@contextlib.contextmanager
def applied(setting: Setting) -> Iterator[None]:
    """The setting's environment variables for the duration, restored after."""
    old = {k: os.environ.get(k) for k in setting.env}
    os.environ.update(setting.env)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def ask_corpus(
    corpus: Corpus,
    qs: list[Question],
    files_dir: Path,
    root: Path,
    home: Path,
    settings: tuple[Setting, ...],
    traces: Any,
) -> dict[str, Any]:
    """Build one KB over ``files_dir`` and ask ``qs`` under each setting."""
    from citewise.kb import Home

    contains: Contains = squad_contains if corpus.kind == "squad" else contains_phrase
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with Home.open(home) as h:
        kb = h.kb()
        report = kb.add([files_dir])
        build_s = time.perf_counter() - t0
        failed = sorted(f.path for f in report.files if f.status == "failed")
        kb.ask(WARMUP)
        for setting in settings:
            with applied(setting):
                for q in qs:
                    t1 = time.perf_counter()
                    ans = kb.ask(q.question)
                    ms = 1000 * (time.perf_counter() - t1)
                    cites = [citation_row(kb, root, c) for c in ans.citations]
                    row = answer_row(q, ans, cites, ms)
                    located = [Location(c.path, c.line_start, c.line_end) for c in ans.citations]
                    g = grade(q, ans.outcome, ans.answer, located, contains)
                    row.update(label=g.label, missing=list(g.missing), setting=setting.name)
                    row["excerpts"] = [c.excerpt for c in ans.citations]
                    rows.append(row)
                    trace = {"corpus": corpus.name, "id": q.id, "setting": setting.name}
                    traces.write(json.dumps({**trace, "trace": ans.trace}, default=str) + "\n")
    return {"failed_files": failed, "build_s": round(build_s, 1), "rows": rows}


def run_pool(
    corpora: list[Corpus],
    n: int,
    ids: list[str],
    work: Path,
    traces: Path,
    save: Callable[[list[dict[str, Any]], dict[str, Any]], Any],
    candidates: tuple[Setting, ...] = CANDIDATES,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Ask every corpus in turn; ``save`` gets the rows so far after each one, so a run
    stopped part-way keeps the corpora it finished."""
    rows: list[dict[str, Any]] = []
    builds: dict[str, Any] = {}
    RESULTS.mkdir(parents=True, exist_ok=True)
    with traces.open("w", encoding="utf-8") as tr:
        for corpus in corpora:
            files_dir = work / "src" / corpus.name
            prepared = prepare(corpus, n, files_dir)
            if prepared is None:
                print(f"{corpus.name}: data not found; skipped.", file=sys.stderr)
                continue
            qs, root = prepared
            qs = selected(qs, ids)
            if not qs:
                continue
            print(f"{corpus.name}: {len(qs)} questions ...", file=sys.stderr, flush=True)
            home = work / f"home-{corpus.name}"
            res = ask_corpus(corpus, qs, files_dir, root, home, candidates, tr)
            builds[corpus.name] = {k: v for k, v in res.items() if k != "rows"}
            rows += res["rows"]
            save(rows, builds)
    return rows, builds


def report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Summaries per corpus and setting, the leave-one-corpus-out table and its macro."""
    by: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in rows:
        by.setdefault(r["corpus"], {}).setdefault(r["setting"], []).append(r)
    summaries = {c: {s: summarise(rs) for s, rs in d.items()} for c, d in by.items()}
    loco = leave_one_out(summaries, CANDIDATES, HELD_OUT)
    return {"summaries": summaries, "loco": loco, "macro": macro(loco)}


def run_compare(a: Path, b: Path) -> int:
    ra = json.loads(a.read_text("utf-8"))["rows"]
    rb = json.loads(b.read_text("utf-8"))["rows"]
    changes = compare(ra, rb)
    for c in changes:
        print(
            f"{c['corpus']}/{c['id']} [{c['setting']}]: {', '.join(c['changed'])} "
            f"({c['label_a']} -> {c['label_b']})"
        )
    print(f"{len(changes)} of {len(rb)} questions changed between {a.name} and {b.name}")
    return 1 if changes else 0


def write_all(
    out: Path,
    rows: list[dict[str, Any]],
    builds: dict[str, Any],
    dense: str,
    load0: tuple[float, float, float],
    n: int,
) -> str:
    """Write the rows, the summaries and the leave-one-corpus-out table (``out`` as JSON,
    ``.md`` beside it); return the table."""
    rep = report(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    meta = write_results(
        RESULTS / f"{out.stem}.jsonl",
        rows,
        "answers_pool",
        dense,
        load0,
        seed=POOL_SEED,
        n=n,
        candidates=[c.name for c in CANDIDATES],
        builds=builds,
    )
    md = markdown(rep["loco"])
    out.write_text(json.dumps({"meta": meta, **rep, "rows": rows}, ensure_ascii=False, indent=1))
    head = f"Development pool, {meta['date']}, dense {dense}, load {meta['loadavg_start_end']}"
    out.with_suffix(".md").write_text(f"{head}\n\n{md}\n", "utf-8")
    return md


def run_merge(runs: list[Path], ap: argparse.ArgumentParser, out_arg: str) -> int:
    """One pool report from runs that asked different corpora (a run stopped part-way and
    its continuation): the later run's rows win for a corpus both asked."""
    by_corpus: dict[str, list[dict[str, Any]]] = {}
    metas = []
    for p in runs:
        if not p.is_file():
            ap.error(f"{p}: no such result file; give files written by this runner")
        data = json.loads(p.read_text("utf-8"))
        metas.append(data["meta"])
        for corpus in {r["corpus"] for r in data["rows"]}:
            by_corpus[corpus] = [r for r in data["rows"] if r["corpus"] == corpus]
    if len({m["dense"] for m in metas}) != 1:
        ap.error("the runs differ in dense setting; merge runs of one setting only")
    dense = metas[0]["dense"]
    out = Path(out_arg) if out_arg else OUT / f"answers_pool_{dense}.json"
    order = [c.name for c in POOL]
    names = sorted(by_corpus, key=lambda c: order.index(c) if c in order else len(order))
    rows = [r for c in names for r in by_corpus[c]]
    builds = {k: v for m in metas for k, v in m.get("builds", {}).items()}
    load = (metas[0]["loadavg_start_end"][0], 0.0, 0.0)
    print(write_all(out, rows, builds, dense, load, int(metas[0].get("n", 100))))
    print(f"\nmerged {len(runs)} runs into {out}")
    return 0


def _pick(names: list[str] | None) -> list[Corpus]:
    if not names:
        return list(POOL)
    known: Mapping[str, Corpus] = {c.name: c for c in POOL}
    return [known[n] for n in names]


def _settings(names: str, ap: argparse.ArgumentParser) -> tuple[Setting, ...]:
    """The candidates named in ``--settings`` (all of them when empty)."""
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    if not wanted:
        return CANDIDATES
    known = {c.name: c for c in CANDIDATES}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        ap.error(f"unknown setting(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    return tuple(known[n] for n in wanted)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="The development pool of issue 34, graded.")
    ap.add_argument("--no-dense", action="store_true", help="turn the dense route off")
    ap.add_argument("--corpus", action="append", choices=[c.name for c in POOL], help="repeatable")
    ap.add_argument("--n", type=int, default=100, help="SQuAD and CMRC sample size each")
    ap.add_argument("--ids", default="", help="comma-separated ids or id prefixes")
    ap.add_argument("--keep", default="", help="keep the homes in this folder and reuse them")
    ap.add_argument(
        "--out", default="", help="result file (default bench/out/answers_pool_<dense>.json)"
    )
    ap.add_argument(
        "--compare", nargs=2, metavar=("A", "B"), help="list what changed between two runs"
    )
    ap.add_argument(
        "--settings",
        default="",
        help="comma-separated candidate names to run (default: every candidate)",
    )
    ap.add_argument(
        "--merge",
        nargs="+",
        metavar="RUN",
        help="combine the rows of runs over different corpora (same dense setting) into --out",
    )
    args = ap.parse_args(argv)
    if args.merge:
        return run_merge([Path(p) for p in args.merge], ap, args.out)
    if args.compare:
        a, b = (Path(p) for p in args.compare)
        for p in (a, b):
            if not p.is_file():
                ap.error(f"{p}: no such result file; give two files written by this runner")
        return run_compare(a, b)
    if not data_root().is_dir():
        print(f"shared data not found under {data_root()}; skipping.")
        return 0
    dense = "off" if args.no_dense else "on"
    os.environ["CITEWISE_DENSE"] = dense
    ids = [i.strip() for i in args.ids.split(",") if i.strip()]
    load0 = os.getloadavg()
    with contextlib.ExitStack() as stack:
        if args.keep:
            work = Path(args.keep) / dense
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="citewise-pool-")))
        out = Path(args.out) if args.out else OUT / f"answers_pool_{dense}.json"
        traces = RESULTS / f"{out.stem}_traces.jsonl"

        def save(rows: list[dict[str, Any]], builds: dict[str, Any]) -> str:
            return write_all(out, rows, builds, dense, load0, args.n)

        rows, builds = run_pool(
            _pick(args.corpus), args.n, ids, work, traces, save, _settings(args.settings, ap)
        )
    if not rows:
        print("No question asked.")
        return 0
    md = save(rows, builds)
    meta = json.loads(out.read_text("utf-8"))["meta"]
    print(f"dense {dense}; load average {meta['loadavg_start_end']} (start, end)")
    print(md)
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
