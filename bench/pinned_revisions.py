"""Pinned revisions and backup/restore on a real home (issue 38).

On a copy of a built home (``--home``, e.g. one of the development pool's homes copied
aside; never the original): every question of a question file is searched and asked at the
head (revision N). Then the corpus moves on: the documents the first ``--delete`` answers
cite are deleted (one revision) and a new document made of the questions' own words is
added (another). Each question is then searched and asked again pinned to revision N, and
the hits (citation ids, ranks, scores) and answers (text, replay id, citation hashes) are
compared with those of before; a plain ask shows how many answers the change moved.
Timings: the head search, the first pinned search (which builds the revision's index), the
later pinned searches; then ``backup`` and ``restore`` of the moved-on home (size, seconds,
and whether every revision hash and the ledger root came back).

Run: ``.venv/bin/python -m bench.pinned_revisions --home /tmp/h/x/home-starlette
--questions bench/questions/docs_starlette.yaml [--json]``. Questions of held-out corpora
(requests, regulations) must not be used here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from citewise.kb import Home
from citewise.sync.backup import backup, ledger_root, restore, revisions_of

OUT = Path(__file__).resolve().parent / "out"


def _questions(path: Path, limit: int) -> list[str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [str(q["question"]) for q in data["questions"]][:limit]


def _hits(home: Home, q: str, revision: int | None) -> list[tuple[str, int, float]]:
    result = home.kb().search(q, revision=revision)
    return [(h.citation_id, h.rank, round(h.score, 9)) for h in result.hits]


def _answer(home: Home, q: str, revision: int | None) -> tuple[str, str, list[str]]:
    a = home.kb().ask(q, revision=revision)
    return a.answer, a.replay_id, [c.sha256 for c in a.citations]


def _timed(fn: Any) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _move_on(home: Home, cited: list[str], questions: list[str], tmp: Path) -> None:
    kb = home.kb()
    for path in dict.fromkeys(cited):
        kb.delete(path)
    added = tmp / "new" / "added-after-the-pin.md"
    added.parent.mkdir()
    added.write_text("# Added later\n\n" + "\n\n".join(questions) + "\n", encoding="utf-8")
    kb.add([added.parent])


def run(home_dir: Path, questions: list[str], delete: int) -> dict[str, Any]:
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="pinned-bench-") as tmp_name:
        tmp = Path(tmp_name)
        shutil.copytree(home_dir, tmp / "home")
        with Home.open(tmp / "home") as home:
            pin = home.kb().info().revision
            before_hits, head_secs = [], []
            for q in questions:
                hits, secs = _timed(lambda q=q: _hits(home, q, None))
                before_hits.append(hits)
                head_secs.append(secs)
            before = [_answer(home, q, None) for q in questions]
            cited = []
            for q in questions[:delete]:
                cited += [c.path for c in home.kb().ask(q).citations[:1]]
            _move_on(home, cited, questions, tmp)
            pinned_hits, pinned_secs = [], []
            for q in questions:
                hits, secs = _timed(lambda q=q: _hits(home, q, pin))
                pinned_hits.append(hits)
                pinned_secs.append(secs)
            pinned = [_answer(home, q, pin) for q in questions]
            after = [_answer(home, q, None) for q in questions]
            moved = sum(a[0] != b[0] for a, b in zip(after, before, strict=True))
            facts = (revisions_of(home.store), ledger_root(home.store))
            _, backup_secs = _timed(lambda: backup(home.store, tmp / "kb.tar"))
        _, restore_secs = _timed(lambda: restore(tmp / "kb.tar", tmp / "restored"))
        with Home.open(tmp / "restored") as again:
            same_facts = (revisions_of(again.store), ledger_root(again.store)) == facts
        return {
            "home": home_dir.name,
            "questions": len(questions),
            "pinned_revision": pin,
            "deleted_documents": len(dict.fromkeys(cited)),
            "same_hits": sum(a == b for a, b in zip(before_hits, pinned_hits, strict=True)),
            "same_answers": sum(a == b for a, b in zip(before, pinned, strict=True)),
            "head_answers_moved": moved,
            "head_search_median_s": round(statistics.median(head_secs), 4),
            "pinned_first_search_s": round(pinned_secs[0], 3),
            "pinned_later_search_median_s": round(statistics.median(pinned_secs[1:]), 4),
            "store_mb": round((home_dir / "citewise.db").stat().st_size / 1e6, 1),
            "archive_mb": round((tmp / "kb.tar").stat().st_size / 1e6, 1),
            "backup_s": round(backup_secs, 2),
            "restore_verified_s": round(restore_secs, 2),
            "restore_same_revisions_and_ledger_root": same_facts,
            "loadavg_start_end": [round(load0, 2), round(os.getloadavg()[0], 2)],
        }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--home", type=Path, required=True)
    p.add_argument("--questions", type=Path, required=True)
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--delete", type=int, default=3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if not (args.home / "citewise.db").is_file():
        print(f"No home at {args.home} (copy a built home aside first); nothing measured.")
        return
    if str(args.home.resolve()).startswith("/work/pool"):
        raise SystemExit("Copy the home aside first: this benchmark never opens /work/pool.")
    row = run(args.home, _questions(args.questions, args.limit), args.delete)
    OUT.mkdir(exist_ok=True)
    (OUT / f"pinned_revisions_{args.home.name}.json").write_text(json.dumps(row, indent=2))
    if args.json:
        print(json.dumps(row, indent=2))
        return
    print("| " + " | ".join(row) + " |")
    print("|" + "---|" * len(row))
    print("| " + " | ".join(str(v) for v in row.values()) + " |")


if __name__ == "__main__":
    main()
