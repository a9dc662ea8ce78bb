"""Plain text -> :class:`RawNode` tree.

Paragraphs are runs of non-blank lines separated by blank lines, with exact
offsets. A single-line paragraph that looks like a clause heading (``第一章 总则``,
``§ 1002.4 Definitions``, ``7.3.2 Control of records``, ``Article 5 Scope``
standing alone) starts a section; its level comes from the numbering.
"""

from __future__ import annotations

import re

from citewise.ingest.clauses import find_anchor
from citewise.ingest.limits import ParseBudget
from citewise.ingest.tree import Heading, RawNode, collapse_ws, nest_sections

_BLANK_SPLIT = re.compile(r"(?:[ \t]*(?:\r\n|\r(?!\n)|\n)){2,}")
_MAX_HEADING_CHARS = 80


def _heading_level(line: str) -> int | None:
    s = line.strip()
    if not s or len(s) > _MAX_HEADING_CHARS or s[-1] in ".。;；:：,，":
        return None
    anchor = find_anchor(s, heading=False)
    if anchor is None:
        return None
    if anchor.kind == "cn_struct":
        return anchor.rank
    if anchor.kind == "section":
        return 2
    if anchor.kind == "decimal":
        return min(anchor.path.count(".") + 1, 6)
    # Articles standing alone on a short line ("Article 5" / "Article 5 Scope").
    if anchor.kind == "article" and len(s.split()) <= 8 and "条" not in s:
        return 4
    return None


def parse_text(text: str, body_offset: int, budget: ParseBudget | None = None) -> list[RawNode]:
    """Paragraphs of ``text[body_offset:]`` with offsets into the full ``text``."""
    spend = budget or ParseBudget("document.txt")
    items: list[Heading | RawNode] = []
    pos = body_offset
    spans: list[tuple[int, int]] = []
    for m in _BLANK_SPLIT.finditer(text, body_offset):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    for start, end in spans:
        while start < end and text[start] in " \t\r\n":
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            continue
        spend.node()
        chunk = text[start:end]
        level = None if ("\n" in chunk or "\r" in chunk) else _heading_level(chunk)
        if level is not None:
            items.append(Heading(level, start, end, collapse_ws(chunk)))
        else:
            items.append(RawNode("paragraph", start, end, collapse_ws(chunk)))
    return nest_sections(text, items)
