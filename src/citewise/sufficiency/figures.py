"""The figures of a question and of a text (:mod:`citewise.sufficiency.constraints`'
**numbers** rule): a question's years, ordinals, centuries and other figures as number
constraints (a figure that names a part of a document or a legal citation is none), and
whether a text names a figure or a compatible form of it (the year inside a named decade,
century or range; "11th" as "eleventh"; "7" as "seven")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["NUMBER_WORDS", "Constraint", "Kind", "number_found", "question_figures"]


Kind = Literal[
    "number",
    "name",
    "words",
    "polarity",
    "date",
    "time",
    "quantity",
    "relevance",
    "structure",
    "near_miss",
    "meaning",
    "agent",
]


@dataclass(frozen=True, slots=True)
class Constraint:
    kind: Kind
    surface: str  # the question's own words ("11th century", "not", "Normans")
    #: Number constraints: the values a compatible text may name (a year: itself; an
    #: ordinal century: its years are checked apart). Name constraints: the index token.
    key: str = ""


_ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
)


_ORDINAL_WORDS = {w: i for i, w in enumerate(_ORDINALS.split(), start=1)}


_NUMBERS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)


#: "one" .. "twenty" and their values.
NUMBER_WORDS = {w: i for i, w in enumerate(_NUMBERS.split(), start=1)}


#: A figure of the question: "1598", "11th", "3.5", "40,000", "4-cylinder" (the number).
_FIGURE = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(st|nd|rd|th|['’]?s)?(?![\w.]*\d)"
)


#: A number that names a part of a document ("clause 2.3", "§ 4", "cell 2.1") is a
#: reference: the unit's heading may carry it.
_REFERENCE = re.compile(
    r"(?:\b(?:clause|section|sect|article|art|paragraph|para|rule|chapter|part|appendix|"
    r"annex|schedule|step|item|table|figure|fig|page|no|cell|row|column|col|line|slide|"
    r"sheet)\.?|§)\s*$",
    re.I,
)


_WORD_CENTURY = re.compile(
    r"\b(" + "|".join(sorted(_ORDINAL_WORDS, key=len, reverse=True)) + r")[ -](century|millennium)",
    re.I,
)


_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)[ -](century|millennium)", re.I)


_DECADE = re.compile(r"\b(\d{3})0s\b")


_RANGE = re.compile(r"\b(\d{3,4})\s*(?:-|–|—|to|until|till|and)\s*(\d{2,4})\b")


#: A legal or standards citation ("12 CFR 1002.4(b)", "5 U.S.C. 552", "ISO 13485:2016",
#: "GB 50016-2014"): its numbers name the regulation and clause, which recall's identifier
#: route and the edition lookup match exactly; they are not figures the unit must repeat.
_CITATION = re.compile(
    r"\b\d+\s+(?:CFR|C\.F\.R\.|U\.?S\.?C\.?)\s+§*\s*[\d.]+(?:\([a-z0-9]+\))*"
    r"|\b(?:ISO|IEC|EN|DIN|BS|GB(?:/T)?|ASTM|IEEE)\s*[\d.]+(?:[-:]\d{2,4})*",
    re.I,
)


def question_figures(text: str) -> list[Constraint]:
    out: list[Constraint] = []
    taken: list[tuple[int, int]] = [m.span() for m in _CITATION.finditer(text)]
    for m in [*_CENTURY.finditer(text), *_WORD_CENTURY.finditer(text)]:
        n = m.group(1)
        number = str(_ORDINAL_WORDS[n.lower()]) if n.lower() in _ORDINAL_WORDS else n
        out.append(Constraint("number", m.group(0), f"{number}:{m.group(2).lower()}"))
        taken.append(m.span())
    for m in _FIGURE.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        value = m.group(1).replace(",", "")
        suffix = (m.group(2) or "").lower().lstrip("'’")  # "1950's" is "1950s"
        if _REFERENCE.search(text[: m.start()]):  # "clause 2.3": where, not a figure
            out.append(Constraint("name", m.group(0), value))
            continue
        key = f"{value}:ordinal" if suffix in ("st", "nd", "rd", "th") else value
        if suffix == "s" and len(value) == 4:
            key = f"{value}:decade"
        out.append(Constraint("number", m.group(0), key))
    return out


def _years(text: str) -> set[int]:
    return {int(m.group(1)) for m in re.finditer(r"(?<![\w.])(\d{3,4})(?![\w.]*\d)", text)}


#: A thousands separator that typesetting leaves inside a figure: a comma followed by a
#: blank ("200, 000" in a PDF's extracted text, where the comma's thin space became a
#: blank) or a thin / narrow no-break / no-break space ("1\u2009000" in standards and
#: reports). A figure is looked for with and without them (a list "64, 128" still holds
#: 64); a plain space between digits is never one ("in 2010 500 people").
_GROUP_BREAK = re.compile(r"(?<=\d)(?:,\s+|[\u00a0\u2009\u202f])(?=\d{3}(?!\d))")


def number_found(c: Constraint, text: str) -> bool:
    """Whether ``text`` names the figure of ``c`` or a compatible form of it."""
    value, _, mode = c.key.partition(":")
    low = text.lower()
    if mode in ("century", "millennium"):
        return _era_found(int(value), mode, text, low)
    if mode == "ordinal":
        n = int(value)
        word = next((w for w, i in _ORDINAL_WORDS.items() if i == n), None)
        return bool(re.search(rf"\b(?:{n}(?:st|nd|rd|th)|{word or '#'})\b", low))
    if mode == "decade":
        return _decade_found(int(value), text, low)
    plain = re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w]*\d)")
    if plain.search(text.replace(",", "")):
        return True
    if plain.search(_GROUP_BREAK.sub("", text).replace(",", "")):  # "200, 000" too,
        return True  # besides the list "64, 128" read above
    number = int(value) if value.isdigit() else -1
    if 0 < number <= 20:
        word = next(w for w, i in NUMBER_WORDS.items() if i == number)
        if re.search(rf"\b{word}\b", low):
            return True
    if value.isdigit() and len(value) == 4:  # a year inside a named decade, century, range
        return _year_within(int(value), text, low)
    return False


def _era_found(n: int, mode: str, text: str, low: str) -> bool:
    """The ``n``th century or millennium by name ("19th century", "third millennium"), or
    any year inside it."""
    word = next((w for w, i in _ORDINAL_WORDS.items() if i == n), None)
    pat = rf"\b(?:{n}(?:st|nd|rd|th)|{word or '#'})[ -]{mode}"
    if re.search(pat, low):
        return True
    span = 100 if mode == "century" else 1000
    return any((n - 1) * span < y <= n * span for y in _years(text))


def _decade_found(start: int, text: str, low: str) -> bool:
    """A decade ("the 1950s") by name or by any year in it; a century-round one ("the
    1700s") is a century: any year in it, or the century by name."""
    if re.search(rf"\b{start}['’]?s\b", low):
        return True
    span = 100 if start % 100 == 0 else 10
    if span == 100 and number_found(Constraint("number", "", f"{start // 100 + 1}:century"), text):
        return True
    return any(start <= y < start + span for y in _years(text))


def _year_within(y: int, text: str, low: str) -> bool:
    """Year ``y`` named through its decade ("the 1950s"), a year range that holds it
    ("1939–45"), or its century by name."""
    if re.search(rf"\b{y // 10}0s\b", low):
        return True
    for m in _RANGE.finditer(text):
        a, b = int(m.group(1)), int(m.group(2))
        if b < 100:
            b += a - a % 100
        if a <= y <= b:
            return True
    for m in _CENTURY.finditer(text):
        if (
            m.group(2).lower() == "century"
            and (int(m.group(1)) - 1) * 100 < y <= int(m.group(1)) * 100
        ):
            return True
    return False
