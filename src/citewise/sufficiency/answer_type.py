"""Whether a quoted unit holds a value of the type a question asks for (issue 15 reject sets).

"When did Henry issue the Edict of Nantes?" asks for a date, "How many MSPs are there?"
for a count. A unit that shares the question's names can still hold no such value: it
answers a neighbouring question. The test is on values *other than the question's own*
(a year the question names is the subject, not the answer) and of the right type:

* **date** - a year ("1598", "the 1950s", "1950's", "AD 800", "300 BC"), a month, a
  century, decade or millennium, a season or a reign; not any digit (":116", "5 pm",
  "article 49" and "X.25" name no date);
* **quantity** - a figure or a number word ("twenty", "several", "twice"); a year of a
  date ("in 1944", "between 1621 and 1629") is no count, nor is a time of day or a
  numbered reference ("article 49", "X.25").

Pure functions of their text; :mod:`citewise.sufficiency.constraints` applies them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["figures_of", "gives_date", "gives_quantity"]

_MONTHS = (
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
#: A year: three or four digits standing alone ("1598", "1950s", "1950's", "800"),
#: not part of a decimal, a dotted reference or a larger figure ("1,500", "X.25", "3.14").
_YEAR = re.compile(r"(?<![\w.,:/§])(\d{3,4})(?:['’]?s)?(?![\w,]*\d)(?![.:]\d)")
_ERA_YEAR = re.compile(r"\b(?:AD|A\.D\.)\s*\d{1,4}\b|\b\d{1,4}\s*(?:BC|BCE|AD|CE|B\.C\.)(?!\w)")
_DATE_WORDS = re.compile(
    r"\b(?:"
    + "|".join(_MONTHS.split())
    + r"|centur(?:y|ies)|decades?|millenni(?:um|a)|spring|summer|autumn|winter|reign|era|"
    r"ago|today|yesterday)\b|\bMay\s+\d|\d\s+May\b",
    re.I,
)
#: A figure: "40,000", "3.5", "12", "4-cylinder" (the number).
_FIGURE = re.compile(r"(?<![\w.,:/§])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w,]*\d)(?![.:]\d)")
#: Words before a number that make it a reference ("article 49", "chapter 3"), not a count.
_REFERENCE_BEFORE = re.compile(
    r"\b(?:article|art|section|chapter|clause|paragraph|page|no|number|rule|step|table|figure|"
    r"fig|line|route|highway|flight)\.?\s*$",
    re.I,
)
#: Words right before a year that make it a date ("in 1944", "between 1621 and 1629").
_YEAR_BEFORE = re.compile(
    r"\b(?:in|since|until|till|from|between|during|by|of|and|to|after|before|around|circa|"
    r"c\.|ca\.|early|late|mid|year|years|" + "|".join(_MONTHS.split()) + r"),?\s*$",
    re.I,
)
_TIME_AFTER = re.compile(r"^\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)(?!\w)|^:\d\d", re.I)
_NUMBER_WORDS = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundreds?|thousands?|millions?|billions?|trillions?|dozens?|half|third|"
    r"quarter|twice|once|thrice|double|triple|several|majority|minority|every|daily|weekly|"
    r"monthly|annually|yearly|percent|per cent)\b",
    re.I,
)


def figures_of(question: str) -> tuple[str, ...]:
    """The question's own figures, as digits without separators ("1598", "40000")."""
    return tuple(m.group(1).replace(",", "") for m in _FIGURE.finditer(question))


def gives_date(text: str, asked: Iterable[str] = ()) -> bool:
    """Whether ``text`` names a date other than the question's own figures (``asked``)."""
    own = set(asked)
    if any(m.group(1) not in own for m in _YEAR.finditer(text)):
        return True
    return bool(_ERA_YEAR.search(text) or _DATE_WORDS.search(text))


def gives_quantity(text: str, asked: Iterable[str] = ()) -> bool:
    """Whether ``text`` gives a count or amount other than the question's own figures: a
    figure that is not a date's year, a time of day or a numbered reference, or a number
    word."""
    own = set(asked)
    for m in _FIGURE.finditer(text):
        value = m.group(1).replace(",", "")
        before, after = text[: m.start()], text[m.end() :]
        if value in own or _TIME_AFTER.match(after) or _REFERENCE_BEFORE.search(before):
            continue
        if re.fullmatch(r"1\d{3}|20\d\d", value) and (
            _YEAR_BEFORE.search(before) or re.match(r"['’]?s\b", after)
        ):
            continue  # "in 1944", "the 1950s": when, not how many
        return True
    return bool(_NUMBER_WORDS.search(text))
