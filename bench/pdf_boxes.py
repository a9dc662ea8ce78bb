"""Span-tight PDF boxes (issue 36): sampled citations over the shared PDFs, their
highlight measured against PDFium's character boxes (tests/pdf_boxes.py), with the
per-character edges (now) and with whole line boxes (before).

A sampled citation is one sentence of a paragraph node (text split after ``. ``; 30 to
300 characters; a seeded random choice), from ``documents/pdf`` and ``papers`` under
``$CITEWISE_DATA`` (default ``../shared/data``); skips cleanly without them. Sentences
whose text is not found exactly once on their page (repeated, or re-extracted text) are
skipped and counted. Run: ``.venv/bin/python -m bench.pdf_boxes [--n 20] [--seed 36]``.
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

from tests.pdf_boxes import Tightness, cited_chars, tightness

from bench._beir import data_root
from citewise.config import IngestConfig
from citewise.core.locator import locate
from citewise.core.records import Node, ParsedDocument
from citewise.errors import CitewiseError
from citewise.ingest.parse import parse_document

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _sentences(node: Node) -> list[tuple[int, int]]:
    out, at = [], 0
    for part in _SENTENCE_END.split(node.text):
        s = node.text.index(part, at)
        at = s + len(part)
        if 30 <= len(part) <= 300:
            out.append((node.char_start + s, node.char_start + at))
    return out


def _candidates(doc: ParsedDocument) -> list[tuple[int, int]]:
    out = []
    for n in doc.nodes:
        loc = n.attrs.get("locator") or {}
        if n.kind in ("paragraph", "list_item") and "page" in loc and not loc.get("degraded"):
            out.extend(_sentences(n))
    return out


def _files(data: Path) -> list[Path]:
    return sorted((data / "documents" / "pdf").glob("*.pdf")) + sorted(
        (data / "papers").glob("*.pdf")
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20, help="citations to sample")
    ap.add_argument("--seed", type=int, default=36)
    args = ap.parse_args()
    files = _files(data_root())
    if not files:
        print(f"skipped: no PDFs under {data_root()}")
        return
    pool: list[tuple[Path, ParsedDocument, int, int]] = []
    for path in files:
        try:
            doc = parse_document(
                path.read_bytes(),
                name=path.name,
                kb="kb",
                doc_path=path.name,
                config=IngestConfig(),
            )
        except CitewiseError:
            continue
        pool.extend((path, doc, s, e) for s, e in _candidates(doc))
    rng = random.Random(args.seed)
    rng.shuffle(pool)
    rows: list[tuple[str, int, str, Tightness, Tightness]] = []
    skipped = 0
    for path, doc, s, e in pool:
        if len(rows) == args.n:
            break
        loc = locate(doc.nodes, s, e)
        chars = cited_chars(path.read_bytes(), int(loc["page"]), doc.text[s:e]) if loc else None
        if loc is None or chars is None or loc.get("parts"):
            skipped += 1
            continue
        now = tightness(chars, loc["boxes"])
        bare = [_without_edges(n) for n in doc.nodes]
        before = tightness(chars, (locate(bare, s, e) or {})["boxes"])
        rows.append((path.name, int(loc["page"]), doc.text[s:e], now, before))
    _report(rows, skipped)


def _without_edges(n: Node) -> Node:
    attrs = {k: v for k, v in n.attrs.items() if k != "line_x"}
    return Node(**{**{f: getattr(n, f) for f in Node.__dataclass_fields__}, "attrs": attrs})


def _report(rows: list[tuple[str, int, str, Tightness, Tightness]], skipped: int) -> None:
    print("| file | page | cited (start) | covered | outside | outside, whole lines |")
    print("|---|---|---|---|---|---|")
    for name, page, cited, now, before in rows:
        head = " ".join(cited.split())[:40].replace("|", "/")
        print(
            f"| `{name}` | {page} | {head} | {now.covered:.3f} | {now.outside:.3f} "
            f"| {before.outside:.3f} |"
        )
    n = max(len(rows), 1)
    worst = max((r[3].outside for r in rows), default=0.0)
    print(
        f"\n{len(rows)} citations ({skipped} skipped: text not unique on its page or over "
        f"two pages); mean covered {sum(r[3].covered for r in rows) / n:.3f}, "
        f"min covered {min((r[3].covered for r in rows), default=0):.3f}; mean outside "
        f"{sum(r[3].outside for r in rows) / n:.3f}, max outside {worst:.3f}; whole lines: "
        f"mean outside {sum(r[4].outside for r in rows) / n:.3f}"
    )


if __name__ == "__main__":
    main()
