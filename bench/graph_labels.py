"""Every distinct edge label the graph reads from a folder, and the relation type it maps to
(issue 34, "checked against the graph's own edges").

Each text file under a folder is parsed with the project's own parser and its edges read
with :func:`citewise.graph.extract.extract_document`, exactly as a knowledge base builds
its graph (no embedding model, no home). Containment is skipped (structure, not a
statement); Markdown and wiki links count by kind only (their "label" is a link target).

    python -m bench.graph_labels --json OUT.json NAME=FOLDER [NAME=FOLDER ...]
    python -m bench.graph_labels --table BEFORE.json AFTER.json

Run the first form once with the code before a change (``PYTHONPATH`` of the old tree) and
once after; the second prints the Markdown table of label counts and their type before and
after. Folders that are missing are skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from citewise.config import IngestConfig
from citewise.errors import CitewiseError
from citewise.graph.extract import doc_input_from_parsed, extract_document
from citewise.graph.text import label_kind, relation_type_kind
from citewise.ingest.parse import parse_document

TEXT = frozenset({".md", ".markdown", ".rst", ".txt", ".html", ".htm"})


def labels_of(root: Path) -> Counter[tuple[str, str, str]]:
    """(origin, label, kind) -> how many edges, over every text file under ``root``."""
    counts: Counter[tuple[str, str, str]] = Counter()
    config = IngestConfig()
    for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in TEXT and p.is_file()):
        rel = path.relative_to(root).as_posix()
        try:
            parsed = parse_document(
                path.read_bytes(), name=path.name, kb="labels", doc_path=rel, config=config
            )
        except CitewiseError as exc:
            print(f"skipped {rel}: {exc}", file=sys.stderr)
            continue
        for e in extract_document(doc_input_from_parsed(parsed, rel)).edges:
            if e.origin == "containment":
                continue
            label = e.label if e.origin in ("mermaid", "front_matter", "extractor") else "(link)"
            counts[(e.origin, label, _reading(e.origin, label, e.kind))] += 1
    return counts


def _reading(origin: str, label: str, kind: str) -> str:
    """The edge's type, with "reversed" when its label states it from the target's side."""
    if origin == "mermaid" and label:
        got = label_kind(label)
        return kind if got is None or not got[1] else f"{kind} (reversed)"
    if origin == "front_matter":
        return f"{kind} (reversed)" if relation_type_kind(label)[1] else kind
    return kind


def collect(specs: list[str]) -> dict[str, list[list[object]]]:
    out: dict[str, list[list[object]]] = {}
    for spec in specs:
        name, _, folder = spec.partition("=")
        root = Path(folder)
        if not root.is_dir():
            print(f"{root}: not found; skipped", file=sys.stderr)
            continue
        out[name] = [[o, lab, k, n] for (o, lab, k), n in sorted(labels_of(root).items())]
    return out


def _grouped(rows: list[list[object]]) -> dict[tuple[str, str], tuple[str, int]]:
    """(origin, label) -> (its types, joined, and how many edges)."""
    kinds: dict[tuple[str, str], set[str]] = {}
    counts: Counter[tuple[str, str]] = Counter()
    for o, lab, k, n in rows:
        key = (str(o), str(lab))
        kinds.setdefault(key, set()).add(str(k))
        counts[key] += int(str(n))
    return {key: (", ".join(sorted(v)), counts[key]) for key, v in kinds.items()}


def table(before: dict[str, list[list[object]]], after: dict[str, list[list[object]]]) -> str:
    """One row per (corpus, origin, label): edges, type before, type after."""
    rows = [
        "| corpus | origin | label | edges | type before | type after |",
        "|---|---|---|---|---|---|",
    ]
    for corpus in after:
        old = _grouped(before.get(corpus, []))
        for (o, lab), (k, n) in _grouped(after[corpus]).items():
            was = old.get((o, lab), ("-", 0))[0]
            mark = " **changed**" if was != k else ""
            rows.append(f"| {corpus} | {o} | `{lab or '(none)'}` | {n} | {was} | {k}{mark} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", help="NAME=FOLDER")
    ap.add_argument("--json", default="", help="write the label counts here")
    ap.add_argument("--table", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.table:
        a, b = (json.loads(Path(p).read_text("utf-8")) for p in args.table)
        print(table(a, b))
        return 0
    if not args.folders or not args.json:
        ap.error("give NAME=FOLDER arguments and --json OUT, or --table BEFORE AFTER")
    Path(args.json).write_text(json.dumps(collect(args.folders), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
