"""Format-neutral intermediate tree the format parsers produce.

Parsers emit :class:`RawNode` objects with exact character ranges; ``parse.py``
turns them into final :class:`~citewise.core.records.Node` objects (ids,
ordinals, line ranges, heading paths, clause paths).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from citewise.core.records import NodeKind
from citewise.ingest.decode import trim_range

_WS = re.compile(r"\s+")


def collapse_ws(text: str) -> str:
    """Collapse runs of whitespace to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


@dataclass(slots=True)
class RawNode:
    """A node before ids are assigned. ``title`` is set for sections only."""

    kind: NodeKind
    char_start: int
    char_end: int
    search_text: str
    title: str | None = None
    level: int = 0
    attrs: dict[str, Any] = field(default_factory=dict)
    children: list[RawNode] = field(default_factory=list)
    clause_path: str | None = None
    #: True when the parser already decided ``clause_path`` (even if None).
    clause_preset: bool = False


@dataclass(slots=True)
class Heading:
    """A heading found in document order: starts a section at ``level``."""

    level: int
    char_start: int
    char_end: int
    title: str


def nest_sections(text: str, items: list[Heading | RawNode]) -> list[RawNode]:
    """Turn a flat, ordered list of headings and blocks into nested sections.

    A section runs from its heading to just before the next heading of the same
    or a higher level (lower number), trailing whitespace trimmed. Blocks before
    the first heading are returned at top level.
    """
    top: list[RawNode] = []
    stack: list[RawNode] = []
    starts = [it.char_start for it in items]

    def close_to(level: int, boundary: int) -> None:
        while stack and stack[-1].level >= level:
            sec = stack.pop()
            _, end = trim_range(text, sec.char_start, boundary)
            sec.char_end = max(end, sec.char_start)

    for idx, item in enumerate(items):
        if isinstance(item, Heading):
            close_to(item.level, starts[idx])
            sec = RawNode(
                kind="section",
                char_start=item.char_start,
                char_end=item.char_end,
                search_text=item.title,
                title=item.title,
                level=item.level,
            )
            (stack[-1].children if stack else top).append(sec)
            stack.append(sec)
        else:
            (stack[-1].children if stack else top).append(item)
    close_to(-(10**9), len(text))
    return top
