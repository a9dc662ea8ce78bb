"""Sentence units with exact offsets (English and Chinese), and match scoring.

Rationale: every answer sentence must cite an exact, checkable span, so the splitter
never rewrites text: each :class:`Span` is ``text[start:end]`` of its source (offsets
are code points, end exclusive, shifted by ``base_offset`` like ``Node.char_start`` in
:mod:`citewise.core.records`). Display cleaning is a separate step
(:func:`citewise.answer.clean.clean_sentence`). This is the one splitter of the
pipeline: the evidence stage cuts direct-support pieces with it, sufficiency reads
facts from its units and the answer stage quotes them.

Units with ``blocks=True`` (the default, for text that may hold Markdown structure):

* a Markdown table row (a line starting with ``|``) is one unit; delimiter rows
  (``|---|:--:|``) carry no content and are skipped;
* a list item (``-``, ``*``, ``+``, ``1.``, ``1)``) is one unit, including its
  indented continuation lines; a heading line (``#``) is one unit;
* other text is split into sentences (below).

With ``blocks=False`` (the text of one parsed node, whose structure ingest already
read) every line is prose, and a number alone at the start of a sentence (``1.``) is
a list marker that stays with its sentence.

Sentences end at ``.``/``!``/``?`` followed by whitespace (not after a known
abbreviation such as ``e.g.``, an initial, or when the next word starts lower-case),
right after the Chinese ``。！？``, and at blank lines. ``；`` is not a boundary (a
clause is not a sentence) unless ``clauses=True``, which also ends a piece at every
``!``/``?`` whatever follows: the evidence stage matches query terms against these
smaller pieces. Dotted numbers (``v2.4.1``, ``3.14``) are never split because the
dot is not followed by whitespace.

Spans never start or end with whitespace and never overlap; every non-whitespace
character outside delimiter rows belongs to exactly one span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from citewise.analysis.tokenize import content_tokens, dotted_tails, key_terms, tokenize
from citewise.ingest.pdf_layout import continues
from citewise.memo import text_memo

__all__ = [
    "ABBREVIATIONS",
    "Span",
    "SpanKind",
    "coverage",
    "held_terms",
    "query_terms",
    "split_sentences",
]

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
_CLAUSE_END = "。！？；!?"
_CLOSERS = "\"')]}”’」』）】"
_TOKEN_BEFORE_DOT = re.compile(r"([^\s(\[\"'“‘]+)$")


@dataclass(frozen=True, slots=True)
class Span:
    """One sentence-like unit: ``source[start - base_offset:end - base_offset] == text``."""

    start: int
    end: int
    text: str
    kind: SpanKind = "sentence"


@dataclass(frozen=True, slots=True)
class _Rules:
    hard: str  # characters that always end a sentence (with following closers)
    list_numbers: bool  # "1." at the start of a sentence is a list marker


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


_INITIAL = re.compile(r"[a-z]")
_DOTTED_ABBREVIATION = re.compile(r"(?:[a-z]\.)+[a-z]")
_NOT_IN_TOKEN = "(\"'[“‘"  # with whitespace: what ends the token before a dot


def _token_before(text: str, start: int, end: int) -> str | None:
    """The token ending right before ``text[end]`` within ``text[start:end]`` (what
    ``_TOKEN_BEFORE_DOT.search(text[start:end])`` finds, read backwards from ``end``
    instead of scanning the whole prefix: a ``$`` also matches before one final newline)."""
    if end > start and text[end - 1] == "\n":
        end -= 1
    k = end
    while k > start and not text[k - 1].isspace() and text[k - 1] not in _NOT_IN_TOKEN:
        k -= 1
    return text[k:end] if k < end else None


def _is_abbreviation(text: str, start: int, end: int) -> bool:
    """True if the token ending right before a ``.`` at ``text[end]`` (the sentence began
    at ``start``) is an abbreviation or initial."""
    found = _token_before(text, start, end)
    if found is None:
        return False
    token = found.lower().strip("*_`")
    if token in ABBREVIATIONS:
        return True
    # Single-letter initial ("J. Smith") or a dotted abbreviation ("e.g", "U.S").
    return bool(_INITIAL.fullmatch(token) or _DOTTED_ABBREVIATION.fullmatch(token))


def _is_list_number(text: str, sentence_start: int, dot: int) -> bool:
    """True if ``text[sentence_start:dot]`` is only whitespace and a number ("  2")."""
    return text[sentence_start:dot].strip().isdigit()


#: An editorial marker in square brackets right after a sentence's end ("...in France.[citation
#: needed] A group ...", "...was Huguenot.[12] In 1705 ..."): it belongs to the sentence
#: before, and the sentence still ends after it (SQuAD's Wikipedia text; issue 15).
_MARKER = re.compile(r"\[[^\[\]\n]{1,40}\]")


def _past_markers(text: str, j: int, end: int) -> int:
    """The offset after the end punctuation, closers and editorial markers from ``j``."""
    while j < end:
        if text[j] in ".!?" or text[j] in _CLOSERS:
            j += 1
            continue
        found = _MARKER.match(text, j, end) if text[j] == "[" else None
        if found is None or (found.end() < end and not text[found.end()].isspace()):
            break  # a Markdown link "[text](url)" or a word in brackets goes on
        j = found.end()
    return j


@lru_cache(maxsize=8)
def _stops(hard: str) -> re.Pattern[str]:
    """The characters :func:`_sentence_ends` stops at (all others it steps over)."""
    return re.compile("[" + re.escape(hard + ".!?") + "]")


def _sentence_ends(text: str, start: int, end: int, rules: _Rules) -> list[int]:
    """Exclusive end offsets of the sentences inside ``text[start:end]``."""
    ends: list[int] = []
    stops = _stops(rules.hard)
    i = start
    while i < end:
        found = stops.search(text, i, end)  # skip to the next character that can end one
        if found is None:
            break
        i = found.start()
        ch = text[i]
        if ch in rules.hard:
            j = i + 1
            while j < end and (text[j] in rules.hard or text[j] in _CLOSERS):
                j += 1
            ends.append(j)
            i = j
            continue
        if ch in ".!?":
            j = _past_markers(text, i + 1, end)
            if j >= end:
                break
            if not text[j].isspace():
                i = j
                continue
            k = j
            while k < end and text[k].isspace():
                k += 1
            nxt = text[k] if k < end else ""
            if ch == "." and j == i + 1 and _is_abbreviation(text, start, i):
                i = j
                continue
            sentence_start = ends[-1] if ends else start
            if ch == "." and rules.list_numbers and _is_list_number(text, sentence_start, i):
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


def _split_prose(
    text: str, start: int, end: int, base: int, rules: _Rules, out: list[Span]
) -> None:
    s = start
    for e in _sentence_ends(text, start, end, rules):
        a, b = _trimmed(text, s, e)
        if a < b:
            out.append(Span(a + base, b + base, text[a:b], "sentence"))
        s = e


def _list_item_end(text: str, lines: list[tuple[int, int]], i: int, indent: int) -> int:
    """Index of the first line after the list item that starts on line ``i``."""
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
        j += 1
    return j


def _continued(text: str, lines: list[tuple[int, int]], i: int, para_start: int | None) -> bool:
    """True when the blank line ``i`` inside one node's text cuts a sentence (a PDF
    paragraph the parser joined across a figure or a fraction): the text before it ends
    open and the next line finishes it (see :func:`pdf_layout.continues`)."""
    if para_start is None:
        return False
    j = i + 1
    while j < len(lines) and not text[lines[j][0] : lines[j][1]].strip():
        j += 1
    if j >= len(lines):
        return False
    return continues(text[para_start : lines[i - 1][1]], text[lines[j][0] : lines[j][1]])


def split_sentences(
    text: str, base_offset: int = 0, *, blocks: bool = True, clauses: bool = False
) -> list[Span]:
    """Split ``text`` into sentence / list-item / table-row / heading units.

    Offsets are relative to the source document: ``base_offset`` is the offset of
    ``text[0]`` in it (e.g. ``Node.char_start``). ``blocks=False`` reads every line
    as prose (one node's text); ``clauses=True`` also ends a piece at ``；`` and at
    every ``!``/``?`` (see the module docstring).

    Texts up to :data:`SPLIT_MEMO_CHARS` characters are memoised (a fresh list of the
    same immutable spans each call): the evidence, conflict and answer stages and an
    ask's recovery pass split the same nodes again.
    """
    if len(text) <= SPLIT_MEMO_CHARS:
        return list(_memo_split(text, base_offset, blocks, clauses))
    return _split(text, base_offset, blocks, clauses)


#: Texts up to this many characters keep their split, the last :data:`SPLIT_MEMO` of them.
SPLIT_MEMO_CHARS = 4000
SPLIT_MEMO = 2048


@lru_cache(maxsize=SPLIT_MEMO)
def _memo_split(text: str, base_offset: int, blocks: bool, clauses: bool) -> tuple[Span, ...]:
    return tuple(_split(text, base_offset, blocks, clauses))


def _split(text: str, base_offset: int, blocks: bool, clauses: bool) -> list[Span]:
    rules = _Rules(_CLAUSE_END if clauses else _CJK_END, list_numbers=not blocks)
    out: list[Span] = []
    lines = _lines(text)
    para_start: int | None = None
    para_end = 0

    def flush() -> None:
        nonlocal para_start
        if para_start is not None:
            _split_prose(text, para_start, para_end, base_offset, rules, out)
            para_start = None

    def unit(start: int, end: int, kind: SpanKind) -> None:
        a, b = _trimmed(text, start, end)
        out.append(Span(a + base_offset, b + base_offset, text[a:b], kind))

    i = 0
    while i < len(lines):
        ls, le = lines[i]
        line = text[ls:le]
        if not line.strip():
            if blocks or not _continued(text, lines, i, para_start):
                flush()
            i += 1
            continue
        if blocks and _TABLE_ROW.match(line):
            flush()
            if not _DELIM_ROW.fullmatch(line):
                unit(ls, le, "table_row")
            i += 1
            continue
        if blocks and _HEADING.match(line):
            flush()
            unit(ls, le, "heading")
            i += 1
            continue
        m = _LIST_ITEM.match(line) if blocks else None
        if m:
            flush()
            j = _list_item_end(text, lines, i, len(m.group(1).expandtabs()))
            unit(ls, lines[j - 1][1], "list_item")
            i = j
            continue
        if para_start is None:
            para_start = ls
        para_end = le
        i += 1
    flush()
    return out


def coverage(terms: list[str], text: str) -> int:
    """How many of ``terms`` (from :func:`key_terms`) occur in ``text``."""
    return len(held_terms(terms, text))


def held_terms(terms: list[str], text: str) -> list[str]:
    """The ``terms`` (from :func:`key_terms`) that occur in ``text``. Terms that are all
    letters and digits are looked up among the text's words alone: a literal token (a
    version, path, compound, section or "acronym number") always holds another character,
    so its patterns need not run. A bare name is held by its qualified form
    (``iter_content`` by ``Response.iter_content``: :func:`dotted_tails`)."""
    if all(t.isalnum() for t in terms):
        words = _words(text)
        return [t for t in terms if t in words]
    present = set(tokenize(text))
    missing = [t for t in terms if t not in present]
    if missing and any("." in t for t in present):
        present |= dotted_tails(present)  # "iter_content" in "Response.iter_content"
    return [t for t in terms if t in present]


@text_memo
def _words(text: str) -> frozenset[str]:
    return frozenset(content_tokens(text))


def query_terms(query: str) -> list[str]:
    return key_terms(query)
