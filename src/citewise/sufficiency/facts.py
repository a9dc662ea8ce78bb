"""Comparable facts: (subject, attribute, value, qualifiers) with exact spans.

Purpose: let the answer stage notice when two pieces of evidence state
*different values for the same thing in the same scope* (see
:mod:`citewise.sufficiency.conflicts`).  Extraction is rule-based and
conservative — a fact is only emitted when a typed value and a subject phrase
are both found; anything vaguer is left to the reader.

Input units come from :func:`citewise.evidence.sentences.split_sentences`, so every
fact's ``start``/``end`` slices the source document exactly (``base_offset`` is
the offset of ``text[0]``, as ``Node.char_start`` in
:mod:`citewise.core.records`).  ``value_start``/``value_end`` locate the value.

Values (``attribute`` is the value's kind; normalised ``value``):

==================  ==============================================================
kind                examples → value
==================  ==============================================================
``endpoint``        ``POST /api/v2/sync`` → ``POST /api/v2/sync``; URLs.  A route
                    segment ``/v1/`` is part of the value, never a version qualifier
``location``        ``/etc/citewise/config.toml``, ``C:\\ProgramData\\x.toml``
``date``            ``2024-03-05``, ``March 5, 2024``, ``2024年3月5日`` → ISO
``version``         ``2.4.1`` / ``v2.4.1`` → ``2.4.1``
``status_code``     ``HTTP 503``, ``status code 404`` → ``503``
``port``            ``port 8443``, ``端口为 8443`` → ``8443``
``duration``        ``30 s``, ``2 min``, ``500 ms`` → ``30 s``, ``120 s``, ``0.5 s``
``length`` …        ``±0.10 mm`` → ``±0.1 mm`` (also ``size``, ``percent``,
                    ``temperature``, ``voltage``, ``frequency``)
``count``           unitless numbers and limits: ``retry limit 3``, ``3 times``, ``3次``
``state``           enabled/disabled (on/off/true/false after a link verb, 启用/禁用)
``owner``           ``owned by Team A``, ``owner is X``, ``Owner: X`` → ``team a``
``protocol``        HTTP/2, gRPC, WebSocket, MQTT… (lower-cased)
``format``          JSON, YAML, XML, CSV, Protobuf… (``yml`` → ``yaml``)
``engine``          SQLite, PostgreSQL (``postgres`` → ``postgresql``), Redis…
==================  ==============================================================

Subject: the noun phrase left of the value inside its clause, after link words
("is", "defaults to", ":", "uses", "为"…) are stripped; determiners, qualifier
words and ``default`` are removed; a phrase naming an endpoint path *is* that
endpoint (``payloads for /api/v2/sync`` → ``/api/v2/sync``); a pronoun or empty
phrase inherits the previous subject of the sentence ("previously 3, now 5").

Qualifiers (:class:`Qualifiers`) — environment, version, platform, time — are
taken from the value's own clause (nearest mention), else the nearest earlier
mention in the sentence, else a single mention elsewhere in the sentence, else
the heading path (a "Staging" section qualifies its facts; headings inside
``text`` count too).  Table value columns get qualifiers from their header
("Old default (2.3.x)" → version 2.3.x, historical) and from environment /
platform / version columns of the row.  In headings and headers an edition
year closing the title counts as a version ("Specifications 2023", "Lumen S400
(2024)"); "previous" / "roll back" / "downgrade" mark a historical statement
("Install the previous package, harbor=2.4.0-1").  A sentence that opens with a
condition ("At 12 weeks,", "Among women with X,") carries it as ``condition``.

Not values (:mod:`citewise.sufficiency._numbers`, one rule per function): statistics
("P < 0.05", "n = 150", a bare "odds ratio"), bounds ("≤500"), ordinal labels ("week
12", "type 1"), years, numbers inside names or adjectives ("4,5-bisphosphate",
"7-day"), scientific notation split in two, numbers that only count the noun after
them ("the 6846 women"), and bracketed annotations of a value ("(95% CI 5% to 7%)").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from citewise.evidence.sentences import Span, split_sentences
from citewise.sufficiency._model import Fact, Qualifiers, TimeScope, _mask, blank_markup
from citewise.sufficiency._qualifiers import qualifiers_in
from citewise.sufficiency._relations import relation_facts
from citewise.sufficiency._sentences import sentence_facts
from citewise.sufficiency._tables import _cells, _row_facts

__all__ = ["Fact", "Qualifiers", "TimeScope", "extract_facts", "qualifiers_in"]

# ----------------------------------------------------------------------------- top level

_DELIM_LINE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


def _heading_quals(headings: Sequence[str]) -> Qualifiers:
    q = Qualifiers()
    for h in headings:  # deeper headings win
        q = qualifiers_in(h).over(q)
    return q


_FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)", re.MULTILINE)


def _fenced_ranges(text: str) -> list[tuple[int, int]]:
    """Character ranges of fenced code blocks (an unclosed fence runs to the end)."""
    out: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = (m.start(), m.group(1)[0])
        elif m.group(1)[0] == opened[1]:
            out.append((opened[0], text.find("\n", m.end()) % (len(text) + 1) or len(text)))
            opened = None
    if opened is not None:
        out.append((opened[0], len(text)))
    return out


def extract_facts(
    text: str,
    *,
    base_offset: int = 0,
    heading_path: Sequence[str] = (),
    doc_path: str = "",
    table_header: Sequence[str] | None = None,
) -> list[Fact]:
    """Comparable facts stated in ``text`` (prose, lists, Markdown tables).

    ``heading_path`` qualifies every fact (innermost heading wins); Markdown
    headings inside ``text`` extend it for what follows them.  ``table_header``
    gives the header cells for table rows that arrive without their header line.
    """
    text_nfc = unicodedata.normalize("NFC", text) if not text.isascii() else text
    if len(text_nfc) != len(text):
        text_nfc = text
    walk = _Walk(text_nfc, base_offset, list(heading_path), doc_path, table_header)
    prose = _prose(text_nfc)
    for span in split_sentences(prose, base_offset):
        path = walk.path()
        base = _heading_quals(path)
        if span.kind == "heading":
            walk.heading(span)
        elif span.kind == "table_row":
            walk.table_row(span, base, path)
        else:
            walk.unit(span, base, path)
    facts = walk.facts
    if prose != text_nfc:  # a fact's text is its source sentence, tags and all (it is cited)
        facts = [
            replace(f, text=text_nfc[f.start - base_offset : f.end - base_offset]) for f in facts
        ]
    return [replace(f, heading_path=tuple(f.heading_path)) for f in facts]


def _prose(text: str) -> str:
    """``text`` with its markup (XML's tags and references: not what a fact states) and
    its fenced code blanked, same length, newlines kept: code is not prose ("retries=5" in
    an example states nothing)."""
    prose = blank_markup(text)
    for a, b in _fenced_ranges(text):
        prose = prose[:a] + re.sub(r"[^\n]", " ", prose[a:b]) + prose[b:]
    return prose


@dataclass(slots=True)
class _Walk:
    """The units of one text in order, and what each leaves for the next: the headings
    inside the text, the table header in force, the previous subject (a pronoun's), the
    group of the current list or table and the previous unit's kind."""

    text: str
    base_offset: int
    headings: list[str]
    doc_path: str
    table_header: Sequence[str] | None
    inner: list[tuple[int, str]] = field(default_factory=list)
    header: list[str] | None = None
    prev_subject: str | None = None
    group: int = -1
    prev_kind: str = ""
    facts: list[Fact] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.header = list(self.table_header) if self.table_header else None

    def path(self) -> tuple[str, ...]:
        return tuple(self.headings + [h for _, h in self.inner])

    def heading(self, span: Span) -> None:
        """A heading inside the text: it replaces the headings at its level and below, and
        resets the table header and the previous subject."""
        level = len(span.text) - len(span.text.lstrip("#"))
        self.inner = [(lv, h) for lv, h in self.inner if lv < level]
        self.inner.append((level, span.text.lstrip("#").strip()))
        self.header = list(self.table_header) if self.table_header else None
        self.prev_subject = None
        self.prev_kind = "heading"

    def table_row(self, span: Span, base: Qualifiers, path: tuple[str, ...]) -> None:
        """A header row (the next line is the delimiter row) sets the header; a body row
        under a header gives its facts, one group per table."""
        rel_end = span.end - self.base_offset
        text = self.text
        nl = text.find("\n", rel_end)
        nxt = text[nl + 1 : text.find("\n", nl + 1) % (len(text) + 1)]
        if nl >= 0 and _DELIM_LINE.fullmatch(nxt.rstrip("\r")):
            row = _mask(span.text)
            self.header = [row[a:b] for a, b in _cells(row)]
            return
        if self.header:
            if self.prev_kind != "table_row":
                self.group = span.start
            rows = _row_facts(span, self.header, base, self.doc_path, path)
            self.facts.extend(replace(f, group=self.group) for f in rows)
        self.prev_kind = "table_row"

    def unit(self, span: Span, base: Qualifiers, path: tuple[str, ...]) -> None:
        """A sentence or list item: its value facts and relation facts (a list's items
        grouped); its last subject is the next unit's previous subject."""
        if not self.table_header:
            self.header = None
        if span.kind == "list_item" and self.prev_kind != "list_item":
            self.group = span.start
        found = sentence_facts(span, base, self.prev_subject, self.doc_path, path)
        found += relation_facts(span, base, self.doc_path, path)
        if span.kind == "list_item":
            found = [replace(f, group=self.group) for f in found]
        self.prev_kind = span.kind
        self.facts.extend(found)
        self.prev_subject = found[-1].subject if found else None
