"""Topic notes on real corpora (issue 40): how many notes, whether every line is an exact
quotation whose citation resolves, how long a build and an unchanged rebuild take, and a
fixed-seed sample of notes to read by hand.

    CITEWISE_DATA=/work/shared/data python -m bench.notes --out bench/results/notes.json \\
        --sample bench/results/notes_sample.md

Corpora: each project folder of ``docs-corpora`` and ``laws-zh`` (skipped, with the
reason, when the shared data is missing). Every line is checked through the store's
resolver: the resolved text equals the excerpt, its sha256 the line's, and the resolved
path and character range the line's. Dense retrieval is off (notes do not use it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._beir import data_root
from citewise.core.records import sha256_text
from citewise.errors import CitewiseError
from citewise.kb import Home
from citewise.notes.models import SECTION_TITLES, Note
from citewise.notes.read import NoteReader
from citewise.notes.rebuild import rebuild_notes

SEED = 40


def corpora(root: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    docs = root / "docs-corpora"
    if docs.is_dir():
        for project in sorted(p for p in docs.iterdir() if p.is_dir()):
            out[project.name] = project / "docs" if (project / "docs").is_dir() else project
    if (root / "laws-zh").is_dir():
        out["laws-zh"] = root / "laws-zh"
    return out


def check_lines(home: Home, notes: dict[str, Note]) -> tuple[int, list[str]]:
    """(lines checked, problems): every line resolved through the store."""
    problems: list[str] = []
    n = 0
    for note in notes.values():
        for line in note.lines:
            n += 1
            try:
                got = home.resolve(line.id)
            except CitewiseError as exc:
                problems.append(f"{note.topic.id}: {line.id} does not resolve: {exc}")
                continue
            same = (
                got.text == line.excerpt
                and got.sha256 == line.sha256 == sha256_text(line.excerpt)
                and (got.path, got.char_start, got.char_end)
                == (line.path, line.char_start, line.char_end)
                and (got.line_start, got.line_end) == (line.line_start, line.line_end)
            )
            if not same:
                problems.append(f"{note.topic.id}: {line.id} differs from its source")
    return n, problems


def one_file_changed(kb: Any, src: Path, notes: dict[str, Note]) -> dict[str, Any]:
    """Append a sentence to the most quoted document and sync: which notes got a new
    revision, against the notes that quote that document (they must be the same set)."""
    quoting: dict[str, set[str]] = {}
    for n in notes.values():
        for line in n.lines:
            quoting.setdefault(line.path, set()).add(n.topic.id)
    path = max(sorted(quoting), key=lambda p: len(quoting[p]))
    before = {t: n.revision for t, n in notes.items()}
    target = src / path
    target.write_text(
        target.read_text("utf-8") + "\n\nThis sentence was added by the notes benchmark.\n",
        "utf-8",
    )
    t0 = time.perf_counter()
    kb.sync(src)
    seconds = time.perf_counter() - t0
    after = {t: n.revision for t, n in NoteReader(kb.context, None).notes().items()}
    rebuilt = {t for t in after if after[t] != before.get(t)} | (set(before) - set(after))
    return {
        "changed_file": path,
        "notes": len(before),
        "notes_quoting_it": len(quoting[path]),
        "rebuilt": len(rebuilt),
        "rebuilt_not_quoting_it": len(rebuilt - quoting[path]),
        "sync_s": round(seconds, 2),
    }


def run_corpus(name: str, folder: Path, work: Path) -> tuple[dict[str, Any], dict[str, Note]]:
    src = work / f"src-{name}"
    shutil.copytree(folder, src, ignore=shutil.ignore_patterns(".*"))
    home = Home.open(work / name)
    with home:
        kb = home.kb()
        t0 = time.perf_counter()
        kb.add([src])
        t1 = time.perf_counter()
        report = rebuild_notes(kb.context)
        t2 = time.perf_counter()
        again = rebuild_notes(kb.context)  # nothing changed: nothing is stored
        t3 = time.perf_counter()
        notes = NoteReader(kb.context, None).notes()
        lines, problems = check_lines(home, notes)
        sections = {s: sum(len(n.section(s)) for n in notes.values()) for s in SECTION_TITLES}
        kinds: dict[str, int] = {}
        for n in notes.values():
            for k in n.topic.kinds:
                kinds[k] = kinds.get(k, 0) + 1
        row = {
            "corpus": name,
            "documents": len(kb.documents()),
            "notes": len(notes),
            "lines": lines,
            "lines_resolving": lines - len(problems),
            "problems": problems[:20],
            "sections": sections,
            "topic_kinds": kinds,
            "linked_notes": sum(1 for n in notes.values() if n.links),
            "ingest_s": round(t1 - t0, 2),
            "build_s": round(t2 - t1, 2),
            "rebuild_unchanged_s": round(t3 - t2, 2),
            "rebuilt_when_unchanged": len(again.rebuilt),
            "first_build_stored": len(report.rebuilt),
        }
        row["one_file_changed"] = one_file_changed(kb, src, notes)
    return row, notes


def render(corpus: str, note: Note) -> str:
    out = [f"### {corpus}: {note.topic.title} (`{note.topic.id}`, {', '.join(note.topic.kinds)})"]
    for section, title in SECTION_TITLES.items():
        lines = note.section(section)
        if lines:
            out.append(f"- **{title}**")
            for x in lines:
                text = " ".join(x.excerpt.split())[:300]
                out.append(f"  - {text} — `{x.path}` L{x.line_start}-{x.line_end} {x.detail}")
    if note.links:
        out.append(f"- links: {', '.join(note.links)}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("bench/results/notes.json"))
    ap.add_argument("--sample", type=Path, default=Path("bench/results/notes_sample.md"))
    ap.add_argument("--n", type=int, default=30, help="notes sampled for reading")
    ap.add_argument("--only", default="", help="comma-separated corpus names")
    args = ap.parse_args(argv)
    found = corpora(data_root())
    if args.only:
        found = {k: v for k, v in found.items() if k in args.only.split(",")}
    if not found:
        print(f"skipped: no shared data under {data_root()} (set CITEWISE_DATA)")
        return 0
    os.environ["CITEWISE_DENSE"] = "off"
    rows: list[dict[str, Any]] = []
    pools: dict[str, list[tuple[str, Note]]] = {}
    with tempfile.TemporaryDirectory(prefix="notes-bench-") as tmp:
        for name, folder in found.items():
            row, notes = run_corpus(name, folder, Path(tmp))
            rows.append(row)
            pools[name] = [(name, n) for n in sorted(notes.values(), key=lambda n: n.topic.id)]
            print(json.dumps({k: v for k, v in row.items() if k != "problems"}), flush=True)
    # The same number from each corpus (a large corpus would otherwise fill the sample).
    rng = random.Random(SEED)
    each = max(1, args.n // len(pools))
    sample = [x for name in pools for x in rng.sample(pools[name], min(each, len(pools[name])))]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"corpora": rows, "seed": SEED}, indent=1, ensure_ascii=False))
    args.sample.write_text(
        "\n\n".join(f"{i}. " + render(c, n) for i, (c, n) in enumerate(sample, 1)) + "\n"
    )
    bad = sum(r["lines"] - r["lines_resolving"] for r in rows)
    print(f"{len(rows)} corpora; lines not resolving: {bad}; sample: {args.sample}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
