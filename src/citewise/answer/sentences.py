"""Sentence units with exact offsets, and display cleaning of a quoted sentence.

Rationale: every answer sentence must cite an exact, checkable span, so the unit
splitter never rewrites text — each :class:`Span` is ``text[start:end]`` of its
source (offsets are code points, end exclusive, shifted by ``base_offset`` like
``Node.char_start`` in :mod:`citewise.ingest.models`).  Display cleaning is a
separate step (:func:`clean_sentence`) applied to the quoted text only.

Units:

* a Markdown table row (a line starting with ``|``) is one unit; delimiter rows
  (``|---|:--:|``) carry no content and are skipped;
* a list item (``-``, ``*``, ``+``, ``1.``, ``1)``) is one unit, including its
  indented continuation lines; a heading line (``#``) is one unit;
* other text is split into sentences at ``.``/``!``/``?`` followed by whitespace
  (not after a known abbreviation such as ``e.g.``, an initial, or when the next
  word starts lower-case), and right after the Chinese ``。！？`` (and ``…``-free
  ``；`` is *not* a boundary — a clause is not a sentence).  Dotted numbers
  (``v2.4.1``, ``3.14``) are never split because the dot is not followed by
  whitespace.

Spans never start or end with whitespace and never overlap; every
non-whitespace character outside delimiter rows belongs to exactly one span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["ABBREVIATIONS", "Span", "SpanKind", "clean_sentence", "split_sentences"]

SpanKind = Literal["sentence", "list_item", "table_row", "heading"]

#: Lower-cased tokens (without the final dot) after which a ``.`` does not end a
#: sentence.  Multi-dot forms (``e.g``) are matched on the whole token.
ABBREVIATIONS: frozenset[str] = frozenset(
    (  # noqa: SIM905 - a readable list
        "e.g i.e etc vs cf al approx incl esp fig figs no nos vol p pp ch sec art "
        "mr mrs ms dr prof st jr sr inc ltd co corp dept est min max avg ver rev "
        "resp a.m p.m u.s u.k n.b viz ca"
    ).split()
)

_TABLE_ROW = re.compile(r"[ \t]*\|")
_DELIM_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-{1,}:?[ \t]*(?:\|[ \t]*:?-{1,}:?[ \t]*)*\|?[ \t]*")
_LIST_ITEM = re.compile(r"([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+\S")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+\S")
_CJK_END = "。！？"
_CLOSERS = "\"')]}”’」』）】"
_TOKEN_BEFORE_DOT = re.compile(r"([^\s(\[\"'“‘]+)$")


@dataclass(frozen=True, slots=True)
class Span:
    """One sentence-like unit: ``source[start - base_offset:end - base_offset] == text``."""

    start: int
    end: int
    text: str
    kind: SpanKind = "sentence"


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, end excluding the newline."""
    out: list[tuple[int, int]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        out.append((pos, pos + len(body)))
        pos += len(line)
    return out


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_abbreviation(prefix: str) -> bool:
    """True if the token ending right before a ``.`` is an abbreviation or initial."""
    m = _TOKEN_BEFORE_DOT.search(prefix)
    if not m:
        return False
    token = m.group(1).lower().strip("*_`")
    if token in ABBREVIATIONS:
        return True
    # Single-letter initial ("J. Smith") or a dotted abbreviation ("e.g", "U.S").
    return bool(re.fullmatch(r"[a-z]", token) or re.fullmatch(r"(?:[a-z]\.)+[a-z]", token))


def _sentence_ends(text: str, start: int, end: int) -> list[int]:
    """Exclusive end offsets of the sentences inside ``text[start:end]``."""
    ends: list[int] = []
    i = start
    while i < end:
        ch = text[i]
        if ch in _CJK_END:
            j = i + 1
            while j < end and (text[j] in _CJK_END or text[j] in _CLOSERS):
                j += 1
            ends.append(j)
            i = j
            continue
        if ch in ".!?":
            j = i + 1
            while j < end and (text[j] in ".!?" or text[j] in _CLOSERS):
                j += 1
            if j >= end:
                break
            if not text[j].isspace():
                i = j
                continue
            k = j
            while k < end and text[k].isspace():
                k += 1
            nxt = text[k] if k < end else ""
            if ch == "." and j == i + 1 and _is_abbreviation(text[start:i]):
                i = j
                continue
            if nxt and nxt.islower():
                i = j
                continue
            ends.append(j)
            i = j
            continue
        i += 1
    ends.append(end)
    return ends


def _split_prose(text: str, start: int, end: int, base: int, out: list[Span]) -> None:
    s = start
    for e in _sentence_ends(text, start, end):
        a, b = _trimmed(text, s, e)
        if a < b:
            out.append(Span(a + base, b + base, text[a:b], "sentence"))
        s = e


def split_sentences(text: str, base_offset: int = 0) -> list[Span]:
    """Split ``text`` into sentence / list-item / table-row / heading units.

    Offsets are relative to the source document: ``base_offset`` is the offset
    of ``text[0]`` in it (e.g. ``Node.char_start``).
    """
    out: list[Span] = []
    lines = _lines(text)
    para_start: int | None = None
    para_end = 0

    def flush() -> None:
        nonlocal para_start
        if para_start is not None:
            _split_prose(text, para_start, para_end, base_offset, out)
            para_start = None

    i = 0
    while i < len(lines):
        ls, le = lines[i]
        line = text[ls:le]
        if not line.strip():
            flush()
            i += 1
            continue
        if _TABLE_ROW.match(line):
            flush()
            if not _DELIM_ROW.fullmatch(line):
                a, b = _trimmed(text, ls, le)
                out.append(Span(a + base_offset, b + base_offset, text[a:b], "table_row"))
            i += 1
            continue
        if _HEADING.match(line):
            flush()
            a, b = _trimmed(text, ls, le)
            out.append(Span(a + base_offset, b + base_offset, text[a:b], "heading"))
            i += 1
            continue
        m = _LIST_ITEM.match(line)
        if m:
            flush()
            indent = len(m.group(1).expandtabs())
            item_end = le
            j = i + 1
            while j < len(lines):
                ns, ne = lines[j]
                nline = text[ns:ne]
                if not nline.strip():
                    break
                nindent = len(nline) - len(nline.lstrip())
                if (
                    nindent <= indent
                    or _LIST_ITEM.match(nline)
                    or _TABLE_ROW.match(nline)
                    or _HEADING.match(nline)
                ):
                    break
                item_end = ne
                j += 1
            a, b = _trimmed(text, ls, item_end)
            out.append(Span(a + base_offset, b + base_offset, text[a:b], "list_item"))
            i = j
            continue
        if para_start is None:
            para_start = ls
        para_end = le
        i += 1
    flush()
    return out


_QUOTE_PREFIX = re.compile(r"^(?:[ \t]*>[ \t]?)+")
_BULLET = re.compile(r"^[ \t]*[-*+•][ \t]+")
_HEADING_MARK = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_LABEL = re.compile(
    r"^(?:prerequisites?|note|notes|tip|warning|caution|important|info|hint|danger|"
    r"see also|example|nb|n\.b\.|注意|提示|警告|说明|前提条件|前提|注)"
    r"[ \t]*[:：][ \t]*",
    re.IGNORECASE,
)
_ADMONITION = re.compile(r"^\[!(?:note|tip|warning|caution|important)\][ \t]*", re.IGNORECASE)


def clean_sentence(text: str) -> str:
    """Display form of a quoted unit: source scaffolding removed, wording kept.

    Removes blockquote ``>``, bullets, heading ``#``, bold markers (``**x**``,
    ``__x__``), admonition tags and leading labels (``Note:``, ``Prerequisite:``,
    ``注意：``); a table row becomes its cells joined by `` | ``.  Step numbers
    (``1.``, ``Step 2``) are content and are kept.  Whitespace is collapsed.
    """
    s = text.strip()
    lines = []
    for raw in s.splitlines():
        line = _QUOTE_PREFIX.sub("", raw)
        lines.append(line)
    s = " ".join(part.strip() for part in lines if part.strip())
    if s.startswith("|"):
        cells = [c.strip() for c in s.strip().strip("|").split("|")]
        s = " | ".join(c for c in cells if c)
    s = _HEADING_MARK.sub("", s)
    s = _BULLET.sub("", s)
    s = _EMPHASIS.sub(r"\2", s)
    s = _ADMONITION.sub("", s)
    prev = None
    while prev != s:
        prev = s
        s = _LABEL.sub("", s).strip()
    return re.sub(r"\s+", " ", s).strip()
