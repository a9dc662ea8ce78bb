"""Ask latency of real questions over the long-document corpora (issue 35).

The questions of ``bench/questions/papers.yaml``, ``documents.yaml`` and
``docs_regulations.yaml`` (only the question strings; grading is ``bench/answers_*``'s
job) are asked with ``kb.ask`` over their corpora under ``$CITEWISE_DATA`` (default
``../shared/data``): ``papers/`` (fifteen PDFs), ``documents/`` (office formats and PDFs)
and ``regulatory-text/cfpb-regml``. One KB per corpus is built in ``--home`` (kept, so a
second run or another source tree asks the same store; ``--home`` defaults to a temporary
folder). Default settings (dense on when the model is bundled); ``--no-dense`` turns it off.

Reports per corpus and overall: ask p50/p95 (wall), CPU per ask (this process, all
threads), the process's peak RSS, and a profile summary (top functions by cumulative time
over all asks). One warm-up question per corpus is not counted. ``--answers OUT.json``
writes every answer's outcome, text and citations so two trees can be compared
(``--compare A.json B.json``). Skips cleanly when the data is absent.

``--serve`` then starts a fresh ``citewise serve`` on each corpus's home and reports the
time until ``/health/ready``, the first ask after ready against the warm asks' p50 (wall
and server CPU) and the server's peak RSS (``bench/_serve_cold.py``). ``--from-homes DIR``
copies already built homes ``DIR/home-<corpus>`` (``bench.answers_pool --keep`` lays them
out so) instead of building.

    .venv/bin/python -m bench.ask_speed_docs [--home DIR] [--corpus papers] [--no-dense]
        [--serve] [--from-homes DIR]
    .venv/bin/python -m bench.ask_speed_docs --compare before.json after.json
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any numpy import

import argparse
import cProfile
import io
import json
import platform
import pstats
import resource
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import yaml

from bench._beir import data_root

QUESTIONS = Path(__file__).resolve().parent / "questions"
#: corpus name -> question file
SETS = {
    "papers": "papers.yaml",
    "documents": "documents.yaml",
    "regulations": "docs_regulations.yaml",
    "cfr14": "cfr14.yaml",  # 14 CFR chapter V (GPO XML): the development pool's regulatory text
}
#: question files' roots are relative to this folder of the data root
ROOTS = {"papers": "", "documents": "", "regulations": "docs-corpora", "cfr14": "docs-corpora"}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def questions(corpus: str) -> tuple[Path, list[str]]:
    """The corpus folder and its question strings."""
    doc = yaml.safe_load((QUESTIONS / SETS[corpus]).read_text("utf-8"))
    root = (data_root() / ROOTS[corpus] / str(doc["root"])).resolve()
    return root, [str(q["question"]) for q in doc["questions"]]


def build(home: Path, corpus: str, root: Path, built: Path | None = None) -> Path:
    """A home with one KB of the corpus's files (built once; kept in ``home``), or a copy
    of ``built/home-<corpus>`` when that exists."""
    from citewise.kb import Home

    where = home / corpus
    if (where / "built").exists():
        return where
    shutil.rmtree(where, ignore_errors=True)
    source = None if built is None else built / f"home-{corpus}"
    if source is not None and (source / "citewise.db").is_file():
        shutil.copytree(source, where / "home")
        (where / "built").write_text(f"copied from {source}", "utf-8")
        return where
    files = where / "files"
    shutil.copytree(root, files, ignore=shutil.ignore_patterns("SOURCE.md"))
    with Home.open(where / "home") as h:
        h.kb().add([files])
    (where / "built").write_text(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "utf-8")
    return where


def _answer(a: Any) -> dict[str, Any]:
    cites = [[c.path, c.version_id, c.char_start, c.char_end] for c in a.citations]
    return {"outcome": a.outcome, "text": a.answer, "citations": cites}


def ask_all(
    where: Path, qs: list[str], prof: cProfile.Profile, hold: ExitStack | None = None
) -> dict[str, Any]:
    """Every question asked of the corpus's KB; ``hold``: keep the home (its store, index
    state and caches) open in that stack after the asks, as one server holding every
    corpus would (peak RSS then counts all of them at once)."""
    from citewise.kb import Home

    with ExitStack() as own:
        h = (hold or own).enter_context(Home.open(where / "home"))
        kb = h.kb()
        kb.ask(qs[0])  # warm-up: the first ask of a state builds its caches and graph
        ms, cpu, answers = [], [], []
        for q in qs:
            t0, c0 = time.perf_counter(), time.process_time()
            prof.enable()
            a = kb.ask(q)
            prof.disable()
            ms.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            answers.append(_answer(a))
    return {"ms": ms, "cpu": cpu, "answers": answers}


def _figures(ms: list[float], cpu: list[float]) -> dict[str, Any]:
    return {
        "asks": len(ms),
        "ask_p50_ms": round(_pct(ms, 50), 1),
        "ask_p95_ms": round(_pct(ms, 95), 1),
        "cpu_mean_ms": round(sum(cpu) / max(1, len(cpu)), 1),
    }


def _profile(profs: list[cProfile.Profile], top: int, dump: Path | None = None) -> list[str]:
    """The top ``top`` functions by cumulative time over ``profs`` (also dumped to
    ``dump`` for pstats when given)."""
    out = io.StringIO()
    st = pstats.Stats(*profs, stream=out)
    if dump is not None:
        st.dump_stats(str(dump))
    st.sort_stats("cumulative").print_stats(top)
    lines = [ln.rstrip() for ln in out.getvalue().splitlines() if ln.strip()]
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls")), 0)
    return lines[start:]


def compare(a: Path, b: Path) -> int:
    left = json.loads(a.read_text("utf-8"))["answers"]
    right = json.loads(b.read_text("utf-8"))["answers"]
    diff = [k for k in left if left[k] != right.get(k)]
    print(f"{len(left)} answers, {len(diff)} differ" + (f": {diff[:20]}" if diff else ""))
    return 1 if diff else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--home", type=Path, help="keep the built KBs here (reused when present)")
    ap.add_argument("--corpus", action="append", choices=sorted(SETS))
    ap.add_argument("--no-dense", action="store_true")
    ap.add_argument("--answers", type=Path, help="write figures and answers here")
    ap.add_argument("--compare", type=Path, nargs=2)
    ap.add_argument("--top", type=int, default=25, help="profile lines to print")
    ap.add_argument("--serve", action="store_true", help="also: cold vs warm through a server")
    ap.add_argument("--from-homes", type=Path, help="copy built homes DIR/home-<corpus>")
    ap.add_argument("--serve-only", action="store_true", help="only the --serve figures")
    ap.add_argument("--hold", action="store_true", help="keep every corpus's KB open to the end")
    ap.add_argument("--pstats", type=Path, help="also dump the asks' cProfile stats here")
    ap.add_argument("--no-warm", action="store_true", help="--serve with citewise serve --no-warm")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.no_dense:
        os.environ["CITEWISE_DENSE"] = "off"
    corpora = args.corpus or list(SETS)
    home = args.home or Path(tempfile.mkdtemp(prefix="ask-speed-docs-"))
    profs: list[cProfile.Profile] = []
    res: dict[str, Any] = {"corpora": {}, "answers": {}}
    every_ms: list[float] = []
    every_cpu: list[float] = []
    hold = ExitStack()
    for corpus in corpora:
        root, qs = questions(corpus)
        if not root.is_dir():
            print(f"{corpus}: {root} not found; skipping.")
            continue
        where = build(home, corpus, root, args.from_homes)
        if args.serve or args.serve_only:
            from bench._serve_cold import serve_cold

            res["corpora"][corpus] = {
                "server": serve_cold(where / "home", qs, warm=not args.no_warm)
            }
            if args.serve_only:
                continue
        prof = cProfile.Profile()
        profs.append(prof)
        got = ask_all(where, qs, prof, hold if args.hold else None)
        res["corpora"].setdefault(corpus, {}).update(_figures(got["ms"], got["cpu"]))
        res["corpora"][corpus]["profile"] = _profile([prof], args.top)
        res["answers"].update(
            {f"{corpus}: {q}": a for q, a in zip(qs, got["answers"], strict=True)}
        )
        every_ms += got["ms"]
        every_cpu += got["cpu"]
    res.update(
        dense=os.environ.get("CITEWISE_DENSE", "default"),
        machine=f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        load=round(os.getloadavg()[0], 2),
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    )
    if every_ms:  # the in-process asks ran (not --serve-only)
        res.update(
            overall=_figures(every_ms, every_cpu),
            peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            profile=_profile(profs, args.top, args.pstats),
        )
    hold.close()
    if args.answers:
        args.answers.write_text(json.dumps(res, indent=1, ensure_ascii=False), "utf-8")
    shown = {k: v for k, v in res.items() if k not in ("answers", "profile", "corpora")}
    shown["corpora"] = {
        c: {k: v for k, v in f.items() if k != "profile"} for c, f in res["corpora"].items()
    }
    print(json.dumps(shown, indent=1))
    for corpus, f in res["corpora"].items():
        print(f"\n{corpus}:\n" + "\n".join(f.get("profile", [])[: args.top // 2]))
    print("\nall:\n" + "\n".join(res.get("profile", [])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
