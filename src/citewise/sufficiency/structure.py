"""Structural non-answers: lines that organise a document and state nothing (issue 34).

A title or heading line ("On-call rotation"), a figure or table caption ("Table 3: Read
throughput"), a list lead-in ending in a colon ("The following options are accepted:"), a
line of links or references only ("See also: [Routing](routing.md), [Requests]"), and a
table-of-contents line ("3.2 Replica placement ........ 14") name what comes next. A
unit that is only such a line never answers a *when / how many / who / where* question
and is scored down for any other (:mod:`citewise.sufficiency.answerability`).

Read from the node's own kind where the parser gave one (``heading``, a table
``caption``) and otherwise from the line's shape, never from its words; the shapes are
read in text without CJK characters only (they count space-separated words: a Chinese
clause ending in "：" introduces the list that answers, as 应当具备下列条件： does). Pure.
"""

from __future__ import annotations

import re
from typing import Literal

from citewise.analysis.tokenize import has_cjk

__all__ = ["HEADING_KINDS", "TITLE_MAX_WORDS", "Structural", "structural", "title_line"]

Structural = Literal["heading", "caption", "lead_in", "links", "toc"]

#: Node kinds that are structure by what the parser read them as.
HEADING_KINDS = frozenset({"heading", "title", "caption"})
#: A line without sentence punctuation and at most this many words reads as a title
#: (chosen on the on-call folder of the issue and the starlette/click/typer headings:
#: their longest section titles are 9 words; a sentence without a full stop that long
#: is rare in prose).
TITLE_MAX_WORDS = 9

_CAPTION = re.compile(
    r"^\s*(?:fig(?:ure)?|table|tab|chart|exhibit|listing|plate)\.?\s*[\dIVXA-Z]+", re.I
)
_TOC = re.compile(
    r"(?:\.{4,}|…{2,}|(?:\. ){3,})\s*\d+\s*$|^\s*(?:\d+\.)+\d*\s+\S.{0,80}\s\d{1,4}\s*$"
)
_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)|<?https?://\S+>?|\[\d+\]|\b[\w./-]+\.(?:md|html?|rst)\b")
_LINK_LABEL = re.compile(r"^\s*(?:see(?: also)?|references?|links?|more|related|read more)\b", re.I)
_SENTENCE_END = re.compile(r"[.!?。！？;]\s*[\"'”’)\]]*\s*$")
#: A verb-like word that makes a short line a statement ("Defaults to 10", "Runs daily").
_FINITE = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|shall|"
    r"should|may|might|must|defaults?|returns?|runs?|changes?|takes?|uses?)\b",
    re.I,
)


def structural(text: str, kind: str = "") -> Structural | None:
    """The structural class of a unit's ``text`` (``kind``: its node's kind when known),
    or None when it may state something."""
    line = text.strip()
    if not line:
        return None
    if kind in HEADING_KINDS:
        return "caption" if kind == "caption" else "heading"
    if has_cjk(line):  # the shapes below count space-separated words and English verbs:
        return None  # a Chinese clause is one "word"; its reader is the node kind alone
    if (
        _CAPTION.match(line)
        and len(line.split()) <= 2 * TITLE_MAX_WORDS
        and not _SENTENCE_END.search(line)
    ):
        return "caption"
    if "\n" not in line and _TOC.search(line):
        return "toc"
    if _links_only(line):
        return "links"
    if line.endswith((":", "：")) and "\n" not in line:
        return "lead_in"
    if title_line(line):
        return "heading"
    return None


def title_line(text: str) -> bool:
    """Whether ``text`` is one short line shaped like a title: no sentence punctuation at
    its end, at most :data:`TITLE_MAX_WORDS` words, no finite verb, not a bare figure."""
    line = text.strip()
    words = line.split()
    return (
        bool(words)
        and "\n" not in line
        and len(words) <= TITLE_MAX_WORDS
        and not _SENTENCE_END.search(line)
        and not _FINITE.search(line)
        and any(c.isalpha() for c in line)
    )


def _links_only(line: str) -> bool:
    """Whether what is left of ``line`` without its links is only a label and separators
    ("See also:", "-", ",")."""
    if not _LINK.search(line):
        return False
    rest = _LINK.sub(" ", line)
    rest = re.sub(
        r"^\s*(?:see(?: also)?|references?|links?|more|related|read more)\b", " ", rest, flags=re.I
    )
    return not re.search(r"[^\W\d_]{2,}", rest)
