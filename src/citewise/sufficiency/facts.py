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
from dataclasses import replace

from citewise.evidence.sentences import Span, split_sentences
from citewise.sufficiency._model import (
    Fact,
    Qualifiers,
    TimeScope,
    _mask,
    _words,
    blank_markup,
)
from citewise.sufficiency._numbers import (
    Tails,
    bracket_depths,
    framing_condition,
    is_bound,
    is_confidence_level,
    is_statistic_label,
    is_unlinked_count,
)
from citewise.sufficiency._qualifiers import _Dim, _Mention, _mentions, qualifiers_in
from citewise.sufficiency._relations import relation_facts
from citewise.sufficiency._subjects import _PRONOUN, _subject_for
from citewise.sufficiency._tables import _cells, _row_facts
from citewise.sufficiency._values import Value as _Value
from citewise.sufficiency._values import candidates as value_candidates
from citewise.sufficiency._values import chosen as chosen_values

__all__ = ["Fact", "Qualifiers", "TimeScope", "extract_facts", "qualifiers_in"]

# ---------------------------------------------------------------------------- sentences

_CLAUSE_SPLIT = re.compile(r"[;；,，]|\s(?:but|while|whereas|and|whilst)\s|\(|\)", re.I)


def _clauses(s: str) -> list[tuple[int, int]]:
    bounds = [0]
    for m in _CLAUSE_SPLIT.finditer(s):
        bounds.extend((m.start(), m.end()))
    bounds.append(len(s))
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]


def _pick(dim: _Dim, pos: int, clause: tuple[int, int], mentions: list[_Mention]) -> str | None:
    own = [m for m in mentions if m.dim == dim]
    if not own:
        return None
    inside = [m for m in own if clause[0] <= m.start and m.end <= clause[1]]
    if inside:
        return min(inside, key=lambda m: abs(m.start - pos)).value
    before = [m for m in own if m.end <= clause[0]]
    if before:
        return max(before, key=lambda m: m.start).value
    if len({m.value for m in own}) == 1:
        return own[0].value
    return None


def _sentence_facts(
    span: Span, base: Qualifiers, prev_subject: str | None, doc_path: str, heading: tuple[str, ...]
) -> list[Fact]:
    s = _mask(span.text)
    found = value_candidates(s)
    if not found:
        return []  # no value, no fact (the rest below only qualifies values)
    mentions = _mentions(s)
    masked = [(m.start, m.end) for m in mentions if m.dim == "version"]
    values = chosen_values(found, masked)
    tails = Tails(s)
    depths: list[int] | None = None
    facts: list[Fact] = []
    subject_prev = prev_subject
    clauses = _clauses(s)
    condition = framing_condition(s)
    if condition and any(m.dim != "time" for m in _mentions(condition)):
        condition = None  # "In staging," is an environment, already a qualifier
    for value in values:
        clause = next((c for c in clauses if c[0] <= value.start < c[1]), (0, len(s)))
        in_clause = [v for v in values if clause[0] <= v.start and v.end <= clause[1]]
        rel = _Value(value.kind, value.value, value.start - clause[0], value.end - clause[0], 0)
        rel_vals = [
            _Value(v.kind, v.value, v.start - clause[0], v.end - clause[0], 0) for v in in_clause
        ]
        rel_mentions = [
            _Mention(m.dim, m.value, m.start - clause[0], m.end - clause[0])
            for m in mentions
            if clause[0] <= m.start and m.end <= clause[1]
        ]
        subject = _subject_for(s[clause[0] : clause[1]], rel, rel_vals, rel_mentions)
        if subject is None and not rel_mentions:
            depths = bracket_depths(s) if depths is None else depths
            if depths[value.start] > 0:
                continue  # "(95% CI 1.26 to 2.23)", "(n = 53)": annotations of the value before
        if subject is None or subject == _PRONOUN:
            # Empty phrase: continue this sentence's subject; a pronoun may also
            # refer to the previous sentence's last subject.
            inherited = subject_prev if (facts or subject == _PRONOUN) else None
            if inherited is None:
                continue
            subject = inherited
            if facts and value.kind == "count" and facts[-1].attribute in ("port", "status_code"):
                value = replace(value, kind=facts[-1].attribute)
        if not re.search(r"[^\W\d_]", subject):
            continue  # "–" of "30–90 s", stray symbols: no subject
        if _is_bare_number_noise(subject) and value.kind in ("count", "duration", "endpoint"):
            continue
        if value.kind in _NUMERIC_KINDS and (
            is_statistic_label(subject) or is_bound(tails.before(value.start, clause[0]))
        ):
            continue  # "P < 0.05", "n = 150", "CD4 ≤500": statistics and bounds, not values
        if value.kind == "percent" and is_confidence_level(s[value.end :]):
            continue  # the 95 of "95% CI" is a convention, not a proportion
        if value.kind == "count" and is_unlinked_count(
            tails.before(value.start, clause[0]), s[value.end :]
        ):
            continue  # "the 6846 women": a number inside a noun phrase states no value
        if value.kind == "status_code":
            # Status codes are conditional ("503 when overloaded"): the condition
            # is part of what the code is the value *of*.
            cond = _CONDITION.search(s[value.end : clause[1]])
            if cond:
                subject = subject + " " + " ".join(cond.group(0).lower().split())
        if value.kind == "count" and _VERSION_SUBJECT.search(subject) and "." in value.value:
            value = replace(value, kind="version")  # "the current version is 4.2"
        subject_prev = subject
        quals = Qualifiers(
            _pick("environment", value.start, clause, mentions),
            _pick("version", value.start, clause, mentions),
            _pick("platform", value.start, clause, mentions),
            _pick("time", value.start, clause, mentions),  # type: ignore[arg-type]
            condition,
        ).over(base)
        facts.append(
            Fact(
                subject=subject,
                attribute=value.kind,
                value=value.value,
                raw_value=span.text[value.start : value.end],
                start=span.start,
                end=span.end,
                text=span.text,
                value_start=span.start + value.start,
                value_end=span.start + value.end,
                qualifiers=quals,
                doc_path=doc_path,
                heading_path=heading,
            )
        )
    return facts


_VERSION_SUBJECT = re.compile(r"\b(?:version|release)s?\b|版本", re.IGNORECASE)
_NUMERIC_KINDS = frozenset(
    _words("count duration length size percent temperature voltage frequency volume mass")
)
_CONDITION = re.compile(r"\b(?:when|if|on|for|after|unless)\b[^.;,]*", re.IGNORECASE)


def _is_bare_number_noise(subject: str) -> bool:
    return bool(
        re.fullmatch(
            r"[\d\s.]*|steps?|sections?|items?|pages?|figures?|tables?|see|refer|use|run|"
            r"click|press|type|waits?|read|repeat|choose|select|calls?|exits?|returns?|"
            r"prints?|install|send|sends|retry",
            subject,
        )
    )


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
    headings = list(heading_path)
    inner: list[tuple[int, str]] = []
    header: list[str] | None = list(table_header) if table_header else None
    prev_subject: str | None = None
    facts: list[Fact] = []
    group = -1
    prev_kind = ""
    # Code is not prose ("retries=5" in an example states nothing): fenced blocks
    # are blanked (same length, newlines kept) before splitting into units.
    prose = blank_markup(text_nfc)  # XML's tags and references: not what a fact states
    for a, b in _fenced_ranges(text_nfc):
        prose = prose[:a] + re.sub(r"[^\n]", " ", prose[a:b]) + prose[b:]
    for span in split_sentences(prose, base_offset):
        path = tuple(headings + [h for _, h in inner])
        base = _heading_quals(path)
        if span.kind == "heading":
            level = len(span.text) - len(span.text.lstrip("#"))
            inner = [(lv, h) for lv, h in inner if lv < level]
            inner.append((level, span.text.lstrip("#").strip()))
            header = list(table_header) if table_header else None
            prev_subject = None
            prev_kind = "heading"
            continue
        if span.kind == "table_row":
            rel_end = span.end - base_offset
            nl = text_nfc.find("\n", rel_end)
            nxt = text_nfc[nl + 1 : text_nfc.find("\n", nl + 1) % (len(text_nfc) + 1)]
            if nl >= 0 and _DELIM_LINE.fullmatch(nxt.rstrip("\r")):
                row = _mask(span.text)
                header = [row[a:b] for a, b in _cells(row)]
                continue
            if header:
                if prev_kind != "table_row":
                    group = span.start
                rows = _row_facts(span, header, base, doc_path, path)
                facts.extend(replace(f, group=group) for f in rows)
            prev_kind = "table_row"
            continue
        if not table_header:
            header = None
        if span.kind == "list_item" and prev_kind != "list_item":
            group = span.start
        found = _sentence_facts(span, base, prev_subject, doc_path, path)
        found += relation_facts(span, base, doc_path, path)
        if span.kind == "list_item":
            found = [replace(f, group=group) for f in found]
        prev_kind = span.kind
        facts.extend(found)
        prev_subject = found[-1].subject if found else None
    if prose != text_nfc:  # a fact's text is its source sentence, tags and all (it is cited)
        facts = [
            replace(f, text=text_nfc[f.start - base_offset : f.end - base_offset]) for f in facts
        ]
    return [replace(f, heading_path=tuple(f.heading_path)) for f in facts]
