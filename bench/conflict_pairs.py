"""Counterfactual conflicts (issue 34): two documents state different values for one fact.

Built from SQuAD 2.0 dev (``../shared/data/squad2-dev/dev-v2.0.json``): answerable
questions are drawn with ``random.Random(SEED)`` (seed 58, first read when this file was
written); a question is kept when its first gold answer is a date, a number or a name
(:func:`value_kind`) and its paragraph was not used yet. The counterfactual copy of the
gold paragraph has every whole-word occurrence of the answer replaced by another value of
the same kind drawn from other questions' answers (dates for dates, numbers for numbers,
names for names) that the paragraph does not hold.

Each pair gets a knowledge base of its own (all in one home): the original and the
counterfactual as two Markdown documents with different titles, plus ``--noise`` (3)
unrelated paragraphs of other articles, each a document. Every pair is asked in both
orders: the original written first (``a-…md``) then the counterfactual first, so ties in
ranking fall both ways. Graded per ask:

* **flagged**: answered with degradation ``conflict`` citing both documents, or not
  answered with a conflict among its reasons;
* **misled**: answered without a conflict degradation, citing only one of the two;
* otherwise **other** (answered citing both with no conflict, refused for another reason,
  answered from an unrelated paragraph).

Targets (issue 34): flagged >= 60 %, misled <= 10 %. Writes ``bench/results/
conflict_pairs_<dense>.jsonl`` (one row per ask) and prints a markdown table. Skips
cleanly when the data is absent.

    .venv/bin/python -m bench.conflict_pairs [--pairs 64] [--dense on|off] [--json]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any numpy import

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bench._beir import data_root

SEED = 58
RESULTS = Path(__file__).resolve().parent / "results"
ValueKind = Literal["date", "number", "name"]

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE = re.compile(
    rf"^(?:(?:\d{{1,2}} )?(?:{_MONTHS})(?: \d{{1,2}},?)?(?: \d{{3,4}})?|\d{{3,4}}s?|"
    rf"(?:the )?\d{{3,4}}s|\d{{1,2}}(?:st|nd|rd|th) century)$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^(?:about |over |nearly |some |approximately )?[\d,.]*\d(?:[\d,.]*)%?$")
_NUMBER_WORDS = frozenset(
    (  # noqa: SIM905 - a readable list
        "two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
        "forty fifty hundred thousand million"
    ).split()
)
_NAME_WORD = re.compile(r"^(?:[A-Z][a-zA-Z'\-]+|of|the|de|von|van|and)$")
_LOWER_JOINERS = frozenset({"of", "the", "de", "von", "van", "and"})


def value_kind(answer: str) -> ValueKind | None:
    """The kind of a gold answer: a date (a year, a month with or without day and year,
    a decade, a century), a number (digits, a number word), a name (one to four words,
    each capitalised but joiners such as "of", the first capitalised); else None."""
    text = answer.strip()
    if not text or len(text) > 40:
        return None
    if _DATE.match(text):
        return "date"
    if _NUMBER.match(text) or text.lower() in _NUMBER_WORDS:
        return "number"
    words = text.split()
    if (
        1 <= len(words) <= 4
        and words[0][:1].isupper()
        and words[-1] not in _LOWER_JOINERS
        and all(_NAME_WORD.match(w) for w in words)
        and any(w not in _LOWER_JOINERS for w in words)
    ):
        return "name"
    return None


def replace_value(paragraph: str, old: str, new: str) -> str | None:
    """``paragraph`` with every whole-word ``old`` replaced by ``new``; None when ``old``
    is absent or ``new`` is already there (the copy would not disagree cleanly)."""
    pattern = re.compile(rf"(?<![\w]){re.escape(old)}(?![\w])")
    if not pattern.search(paragraph) or re.search(rf"(?<![\w]){re.escape(new)}(?![\w])", paragraph):
        return None
    return pattern.sub(new, paragraph)


@dataclass(frozen=True, slots=True)
class Pair:
    qid: str
    title: str
    question: str
    kind: ValueKind
    value: str  # the gold answer (the original document's value)
    other: str  # the counterfactual document's value
    original: str
    counterfactual: str
    noise: tuple[str, ...]


def build_pairs(data: list[dict[str, Any]], n: int, noise: int, seed: int = SEED) -> list[Pair]:
    """``n`` pairs drawn with ``seed`` (see the module docstring)."""
    rng = random.Random(seed)
    items: list[tuple[int, int, dict[str, Any]]] = []
    for a, art in enumerate(data):
        for p, para in enumerate(art["paragraphs"]):
            for qa in para["qas"]:
                if not qa.get("is_impossible") and qa["answers"]:
                    items.append((a, p, qa))
    by_kind: dict[str, list[str]] = {"date": [], "number": [], "name": []}
    for _a, _p, qa in items:
        kind = value_kind(qa["answers"][0]["text"])
        if kind:
            by_kind[kind].append(qa["answers"][0]["text"].strip())
    order = list(range(len(items)))
    rng.shuffle(order)
    pairs: list[Pair] = []
    used: set[tuple[int, int]] = set()
    for i in order:
        a, p, qa = items[i]
        gold = qa["answers"][0]["text"].strip()
        kind = value_kind(gold)
        if kind is None or (a, p) in used:
            continue
        paragraph = " ".join(str(data[a]["paragraphs"][p]["context"]).split())
        other = _other_value(rng, by_kind[kind], gold, paragraph)
        copy = replace_value(paragraph, gold, other) if other else None
        if other is None or copy is None:
            continue
        used.add((a, p))
        pairs.append(
            Pair(
                str(qa["id"]),
                str(data[a]["title"]).replace("_", " "),
                str(qa["question"]),
                kind,
                gold,
                other,
                paragraph,
                copy,
                _noise(rng, data, a, noise),
            )
        )
        if len(pairs) >= n:
            break
    return pairs


def _other_value(rng: random.Random, pool: Sequence[str], gold: str, paragraph: str) -> str | None:
    for _ in range(20):
        cand = pool[rng.randrange(len(pool))]
        low = cand.lower()
        if low != gold.lower() and low not in paragraph.lower() and gold.lower() not in low:
            return cand
    return None


def _noise(rng: random.Random, data: list[dict[str, Any]], article: int, k: int) -> tuple[str, ...]:
    out: list[str] = []
    while len(out) < k:
        a = rng.randrange(len(data))
        if a == article:
            continue
        paras = data[a]["paragraphs"]
        out.append(" ".join(str(paras[rng.randrange(len(paras))]["context"]).split()))
    return tuple(out)


def write_pair(pair: Pair, folder: Path, original_first: bool) -> tuple[str, str]:
    """The pair's documents in ``folder``: (original path, counterfactual path)."""
    folder.mkdir(parents=True, exist_ok=True)
    first, second = ("a", "b") if original_first else ("b", "a")
    orig = f"{first}-account.md"
    copy = f"{second}-record.md"
    (folder / orig).write_text(f"# {pair.title}: an account\n\n{pair.original}\n", "utf-8")
    (folder / copy).write_text(f"# Notes on {pair.title}\n\n{pair.counterfactual}\n", "utf-8")
    for i, text in enumerate(pair.noise):
        (folder / f"other-{i}.md").write_text(f"# Other {i}\n\n{text}\n", "utf-8")
    return orig, copy


def grade(outcome: str, degradation: str, reasons: Sequence[str], cited: set[str],
          pair_paths: tuple[str, str]) -> str:  # fmt: skip
    """flagged / misled / other (see the module docstring)."""
    both = set(pair_paths) <= cited
    if outcome == "answered":
        if degradation == "conflict" and both:
            return "flagged"
        if degradation != "conflict" and len(cited & set(pair_paths)) == 1:
            return "misled"
        return "other"
    return "flagged" if any(r.startswith("conflict") for r in reasons) else "other"


def run(
    n: int, noise: int, dense: str, tmp: Path, tag: str = "", seed: int = SEED
) -> dict[str, Any] | None:
    path = data_root() / "squad2-dev" / "dev-v2.0.json"
    if not path.exists():
        print(f"SQuAD 2.0 dev not found at {path}; skipping.")
        return None
    os.environ["CITEWISE_DENSE"] = dense
    from citewise.kb import Home

    pairs = build_pairs(json.loads(path.read_text("utf-8"))["data"], n, noise, seed)
    rows: list[dict[str, Any]] = []
    with Home.open(tmp / "home") as home:
        for i, pair in enumerate(pairs):
            for original_first in (True, False):
                name = f"p{i:03d}{'o' if original_first else 'c'}"
                folder = tmp / name
                paths = write_pair(pair, folder, original_first)
                home.create_kb(name)
                kb = home.kb(name)
                kb.add([folder])
                t0 = time.perf_counter()
                ans = kb.ask(pair.question)
                ms = 1000 * (time.perf_counter() - t0)
                cited = {c.path for c in ans.citations}
                reasons = list(ans.sufficiency.reason_texts)
                label = grade(ans.outcome, ans.degradation, reasons, cited, paths)
                rows.append(
                    {
                        "qid": pair.qid,
                        "order": "original_first" if original_first else "counterfactual_first",
                        "kind": pair.kind,
                        "question": pair.question,
                        "values": [pair.value, pair.other],
                        "label": label,
                        "outcome": ans.outcome,
                        "degradation": ans.degradation,
                        "reasons": reasons,
                        "cited": sorted(cited),
                        "answer": ans.answer,
                        "ms": round(ms, 1),
                    }
                )
    RESULTS.mkdir(parents=True, exist_ok=True)
    with (RESULTS / f"conflict_pairs_{dense}{tag}.jsonl").open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return summary(rows, dense, len(pairs), seed)


def summary(rows: list[dict[str, Any]], dense: str, pairs: int, seed: int = SEED) -> dict[str, Any]:
    def pct(label: str, sub: list[dict[str, Any]]) -> float:
        return round(100 * sum(r["label"] == label for r in sub) / len(sub), 1) if sub else 0.0

    kinds = {k: [r for r in rows if r["kind"] == k] for k in ("date", "number", "name")}
    return {
        "dense": dense,
        "seed": seed,
        "pairs": pairs,
        "asks": len(rows),
        "flagged_pct": pct("flagged", rows),
        "misled_pct": pct("misled", rows),
        "other_pct": pct("other", rows),
        "by_kind": {
            k: {"asks": len(v), "flagged_pct": pct("flagged", v), "misled_pct": pct("misled", v)}
            for k, v in kinds.items()
        },
    }


def table(s: dict[str, Any]) -> str:
    lines = [
        "| dense | pairs / asks | flagged | misled | other | date / number / name flagged |",
        "|---|---|---|---|---|---|",
    ]
    k = s["by_kind"]
    lines.append(
        f"| {s['dense']} | {s['pairs']} / {s['asks']} | {s['flagged_pct']}% | "
        f"{s['misled_pct']}% | {s['other_pct']}% | {k['date']['flagged_pct']}% / "
        f"{k['number']['flagged_pct']}% / {k['name']['flagged_pct']}% |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=64)
    ap.add_argument("--noise", type=int, default=3)
    ap.add_argument("--dense", choices=("on", "off"), default="on")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tag", default="", help="suffix of the result file (e.g. _base)")
    ap.add_argument(
        "--seed",
        type=int,
        default=SEED,
        help=f"question sample seed (default {SEED}, the tuned one)",
    )
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="conflict-pairs-") as tmp:
        s = run(args.pairs, args.noise, args.dense, Path(tmp), args.tag, args.seed)
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)
    if s is None:
        return 0
    print(json.dumps(s, indent=2) if args.json else table(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
