"""The rule inventory of issue 34: module-level regexes and word tables in the answer
and sufficiency stages.

A *rule* is a module-level assignment whose value is a compiled regex (``re.compile``)
or a word table: a set, tuple, list or dict display, or a ``frozenset``/``set``/
``tuple`` call, holding at least :data:`TABLE_MIN` string constants. Counted per
package, from the source alone (no import):

    .venv/bin/python -m bench.rule_inventory [--root src/citewise] [--list]
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "citewise"
PACKAGES = ("answer", "sufficiency")
#: A collection of at least this many strings is a word table.
TABLE_MIN = 3


def _strings(node: ast.AST) -> int:
    return sum(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(node))


def is_rule(value: ast.AST) -> str:
    """ "regex", "table" or "" for the value of a module-level assignment."""
    func = value.func if isinstance(value, ast.Call) else None
    compiled = isinstance(func, ast.Attribute) and func.attr == "compile"
    if compiled and getattr(getattr(func, "value", None), "id", "") == "re":
        return "regex"
    collection = isinstance(value, (ast.Set, ast.Tuple, ast.List, ast.Dict)) or (
        isinstance(value, ast.Call)
        and getattr(value.func, "id", "") in ("frozenset", "set", "tuple")
    )
    return "table" if collection and _strings(value) >= TABLE_MIN else ""


def inventory(root: Path) -> list[tuple[str, int, str, str]]:
    """(file, line, name, kind) of every rule under ``root``'s :data:`PACKAGES`."""
    out: list[tuple[str, int, str, str]] = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"))
            for node in tree.body:
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    targets, value = [node.target], node.value
                else:
                    continue
                kind = is_rule(value)
                name = ",".join(getattr(t, "id", "?") for t in targets)
                if kind and name != "__all__":  # the export list is no rule
                    out.append((str(path.relative_to(root)), node.lineno, name, kind))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the citewise package folder")
    ap.add_argument("--list", action="store_true", help="list every rule")
    args = ap.parse_args(argv)
    rows = inventory(args.root)
    if args.list:
        for path, line, name, kind in rows:
            print(f"{path}:{line} {name} ({kind})")
    per = Counter((r[0].split("/")[0], r[3]) for r in rows)
    for (package, kind), n in sorted(per.items()):
        print(f"{package} {kind}: {n}")
    print(f"total: {len(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
