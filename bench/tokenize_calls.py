"""How often one ask enters ``analysis/tokenize.py`` (issue 33: "read the question once").

Builds a knowledge base of ``examples/corpus`` in a temporary home (dense off), asks one
warm-up question, then counts, with :func:`sys.setprofile`, every Python frame entered in
``analysis/tokenize.py`` while each of :data:`QUESTIONS` is asked: in total and for
``tokenize`` and ``key_terms`` (memoised calls that hit the cache enter no frame, so this
counts the work done, not the lookups). Run it against any tree to compare two commits:

    .venv/bin/python -m bench.tokenize_calls [--tree PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

QUESTIONS = (
    "What is a sync cursor?",
    "How do I roll back a deployment?",
    "What is the default value of sync.batch_size?",
    "Why does sync lag grow?",
    "What is the difference between push mode and pull mode?",
)
WARM_UP = "What storage backends does Harbor support?"
TARGET = "analysis/tokenize.py"


def count_calls(tree: Path) -> list[tuple[str, Counter[str]]]:
    """(question, function name -> frames entered) for each of :data:`QUESTIONS`."""
    os.environ["CITEWISE_DENSE"] = "off"
    from citewise.kb import Home

    out: list[tuple[str, Counter[str]]] = []
    with tempfile.TemporaryDirectory() as tmp, Home.open(Path(tmp) / "home") as home:
        kb = home.kb()
        kb.add([tree / "examples" / "corpus"])
        kb.ask(WARM_UP)
        for question in QUESTIONS:
            calls: Counter[str] = Counter()

            def profile(
                frame: FrameType, event: str, arg: Any, calls: Counter[str] = calls
            ) -> None:
                if event == "call" and frame.f_code.co_filename.endswith(TARGET):
                    calls[frame.f_code.co_name] += 1

            sys.setprofile(profile)
            try:
                kb.ask(question)
            finally:
                sys.setprofile(None)
            out.append((question, calls))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", type=Path, default=Path.cwd(), help="source tree (default: .)")
    args = ap.parse_args(argv)
    tree = args.tree.resolve()
    if not (tree / "examples" / "corpus").is_dir():
        ap.error(f"{tree}: no examples/corpus here; give --tree a citewise checkout")
    sys.path[:0] = [str(tree / "src"), str(tree)]
    total: Counter[str] = Counter()
    for question, calls in count_calls(tree):
        total += calls
        print(f"{sum(calls.values()):6d}  tokenize {calls['tokenize']:4d}  "
              f"key_terms {calls['key_terms']:4d}  {question}")  # fmt: skip
    print(f"total {sum(total.values())}  tokenize {total['tokenize']}  "
          f"key_terms {total['key_terms']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
