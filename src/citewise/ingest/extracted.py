"""What a parser reads and returns: :class:`TextSource` (a text format's decoded input)
and :class:`Extracted` (its result). Below the format registry and every parser, which
both use them (see :mod:`citewise.ingest.formats`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citewise.ingest.decode import LineIndex
from citewise.ingest.limits import ParseBudget
from citewise.ingest.tree import RawNode

__all__ = ["Extracted", "TextSource"]


@dataclass(frozen=True, slots=True)
class TextSource:
    """What a text format's parser reads: the whole decoded text (offsets index it) and
    where the body starts after any front matter."""

    text: str
    name: str
    body_offset: int
    index: LineIndex
    #: The file's parse limits (depth, nodes, time); parsers report to it as they go.
    budget: ParseBudget | None = None


@dataclass(frozen=True, slots=True)
class Extracted:
    """A parser's result: ``text`` is what the nodes' character ranges slice (for a text
    format, the decoded file; for a binary one, the text it extracted)."""

    text: str
    nodes: list[RawNode]
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
