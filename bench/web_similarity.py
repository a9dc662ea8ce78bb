"""Measure the text-match threshold of the web second source (citewise.web.compare).

Clauses come from real regulations (``../shared/data/regulatory-text``: CFPB RegML
Regulation B and M, PRC laws in Markdown), parsed by citewise itself. For each clause of 5
or more tokens two families of web texts are made and compared with the clause:

* formatting variants, which must match: the clause as HTML with emphasis, entities,
  non-breaking spaces, curly quotes, a footnote marker, a soft hyphen, a hyphenated line
  break, doubled whitespace, and embedded in a longer web clause (a sentence before and
  after);
* one-change amendments inside the quoted words, which must not: one word (or CJK
  character) replaced, deleted or inserted at a random inner place, a number changed,
  ``shall``/``may`` (``应当``/``可以``) swapped. Words added before or after a quote are not a
  change of the quote (a web clause may hold more than the cited span).

It prints the lowest similarity of a formatting variant, the highest of an amendment (per
length band) and whether :data:`~citewise.web.compare.MATCH_THRESHOLD` separates them.
Skips cleanly without the shared data. Run: ``python -m bench.web_similarity [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.config import IngestConfig
from citewise.ingest.parse import parse_document
from citewise.web.compare import MATCH_THRESHOLD, compare, tokens

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "regulatory-text"
FILES = (
    "cfpb-regml/1002_2017-20417_20220101.xml",
    "cfpb-regml/1013_2017-24411.xml",
    "cn-laws-md/cybersecurity-law-2016-11-07.md",
    "cn-laws-md/personal-information-protection-law-2021-08-20.md",
)
BANDS = ((5, 20), (20, 50), (50, 100), (100, 200), (200, 100_000))


def clauses(root: Path) -> list[str]:
    out: list[str] = []
    for rel in FILES:
        path = root / rel
        if not path.exists():
            continue
        doc = parse_document(
            path.read_bytes(), name=path.name, kb="b", doc_path=rel, config=IngestConfig()
        )
        for n in doc.nodes:
            if (
                n.clause_path
                and n.kind not in ("document", "section")
                and len(tokens(n.search_text)) >= 5
            ):
                out.append(n.search_text)
    return list(dict.fromkeys(out))


def formatting(text: str, rng: random.Random) -> list[str]:
    words = text.split(" ")
    i = rng.randrange(len(words))
    with_note = " ".join(words[: i + 1]) + "[3] " + " ".join(words[i + 1 :])
    alpha = [w for w in words if w.isascii() and w.isalpha()] or [""]
    long_word = max(alpha, key=len)
    cut = len(long_word) // 2
    return [
        "<p><em>" + " ".join(words[:2]) + "</em> " + " ".join(words[2:]) + "</p>",
        text.replace("&", "&amp;").replace(" ", "\u00a0", 3),
        text.replace('"', "\u201c").replace("'", "\u2019"),
        with_note,
        text.replace(long_word, long_word[:cut] + "\u00ad" + long_word[cut:], 1) if cut else text,
        text.replace(long_word, long_word[:cut] + "-\n" + long_word[cut:], 1) if cut > 2 else text,
        re.sub(" ", "  ", text),
        "Preceding paragraph ends here. " + text + " Following paragraph begins.",
    ]


def amendments(text: str, rng: random.Random) -> list[str]:
    """Changes inside the quoted words (text around a quote is not compared)."""
    words = text.split(" ")
    i = rng.randrange(1, len(words) - 1) if len(words) > 2 else 0
    out = [
        " ".join([*words[:i], "amended", *words[i + 1 :]]),
        " ".join(words[:i] + words[i + 1 :]) if len(words) > 2 else "",
        " ".join([*words[:i], "not", *words[i:]]) if i else "",
    ]
    cjk = [j for j, ch in enumerate(text) if "\u4e00" <= ch <= "\u9fff"][1:-1]
    if cjk:  # a CJK character changed inside
        j = rng.choice(cjk)
        out.append(text[:j] + ("不" if text[j] != "不" else "可") + text[j + 1 :])
    if re.search(r"\d", text):
        out.append(re.sub(r"\d+", lambda m: str(int(m.group()) + 1), text, count=1))
    for a, b in (("shall", "may"), ("应当", "可以")):
        if a in text:
            out.append(text.replace(a, b, 1))
    return [t for t in out if t and tokens(t) != tokens(text)]


def band(n: int) -> str:
    lo, hi = next(b for b in BANDS if b[0] <= n < b[1])
    return f"{lo}-{hi - 1}" if hi < 100_000 else f"{lo}+"


def measure(root: Path, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    texts = clauses(root)
    pos: dict[str, list[float]] = defaultdict(list)
    neg: dict[str, list[float]] = defaultdict(list)
    for text in texts:
        b = band(len(tokens(text)))
        pos[b] += [compare(text, v).similarity for v in formatting(text, rng)]
        neg[b] += [compare(text, v).similarity for v in amendments(text, rng)]
    rows = {
        b: {
            "clauses": sum(1 for t in texts if band(len(tokens(t))) == b),
            "formatting_min": round(min(pos[b]), 6),
            "formatting_below_threshold": sum(s < MATCH_THRESHOLD for s in pos[b]),
            "amendment_max": round(max(neg[b]), 6),
            "amendments_matching": sum(s >= MATCH_THRESHOLD for s in neg[b]),
            "amendments": len(neg[b]),
        }
        for b in sorted(pos, key=lambda k: int(k.split("-")[0].rstrip("+")))
    }
    return {
        "date": datetime.now(UTC).isoformat(timespec="minutes"),
        "load": os.getloadavg()[0],
        "threshold": MATCH_THRESHOLD,
        "clauses": len(texts),
        "bands": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not any((args.data / f).exists() for f in FILES):
        print(f"skipped: no regulatory text under {args.data} (the shared data is absent)")
        return
    result = measure(args.data)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{result['clauses']} clauses, threshold {result['threshold']}, load {result['load']:.2f}"
    )
    for b, r in result["bands"].items():
        print(
            f"  {b:>8} tokens: {r['clauses']:4} clauses | formatting min {r['formatting_min']:.4f}"
            f" ({r['formatting_below_threshold']} below) | amendment max {r['amendment_max']:.4f}"
            f" ({r['amendments_matching']}/{r['amendments']} matching)"
        )


if __name__ == "__main__":
    main()
