"""Stage functions that take the question as text (issue 33: "every step takes Question").

Counts, in the stage packages of ``src/citewise`` (analysis, recall, evidence, graph,
index, sufficiency, answer, llm), the functions with a parameter named ``question``
annotated ``str`` and those annotated ``Question`` (analysis/question.py). Interfaces
(the CLI, HTTP, MCP, the facade, audit, web) take the user's text by design and are not
counted. Read from the source (``ast``); nothing is imported.

    .venv/bin/python -m bench.question_params [--list] [--root src/citewise]
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

STAGES = ("analysis", "recall", "evidence", "graph", "index", "sufficiency", "answer", "llm")
ROOT = Path(__file__).resolve().parents[1] / "src" / "citewise"


def question_params(root: Path) -> list[tuple[str, int, str, str]]:
    """(module path, line, function, annotation) of each stage function whose parameter
    ``question`` is annotated ``str`` or ``Question``."""
    found: list[tuple[str, int, str, str]] = []
    for stage in STAGES:
        for path in sorted((root / stage).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                a = node.args
                for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
                    if arg.arg != "question" or arg.annotation is None:
                        continue
                    kind = ast.unparse(arg.annotation)
                    if kind in ("str", "Question"):
                        rel = str(path.relative_to(root))
                        found.append((rel, node.lineno, node.name, kind))
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the citewise package folder")
    ap.add_argument("--list", action="store_true", help="list the str ones")
    args = ap.parse_args(argv)
    rows = question_params(args.root)
    as_str = [r for r in rows if r[3] == "str"]
    if args.list:
        for path, line, name, _ in as_str:
            print(f"{path}:{line} {name}")
    per = Counter(r[0].split("/")[0] for r in as_str)
    print(f"question: str  {len(as_str)}  ({', '.join(f'{k} {v}' for k, v in per.most_common())})")
    print(f"question: Question  {len(rows) - len(as_str)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
