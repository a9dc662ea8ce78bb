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

The typed recogniser (issue 34) names the answer type a question expects and the types a
text holds, one :class:`AnswerType` each:

* :func:`expected` - the type the analysed question asks for: *when* a time (a date, a
  clock time, a weekday, a frequency, a duration, or the circumstance it happens in:
  "after the response is sent", "if no route matches"); *how many / how much / what
  percentage* a number; *who* a person or organisation; *where* a place, location or
  path; an auxiliary-first question yes/no; "what is X" a definition;
* :func:`present` - the types a text (a unit an answer would quote) holds.

Both choose their reader by the question's or text's script (:data:`READERS`): English
is registered here; another language's reader plugs in as one :class:`Reader` under its
script's name (``"han"``), not as branches inside the English one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from citewise.analysis.tokenize import has_cjk
from citewise.sufficiency.legal_time import states_period
from citewise.sufficiency.zh_answer_type import expected_type as zh_expected_type
from citewise.sufficiency.zh_answer_type import present_types as zh_present_types

if TYPE_CHECKING:
    from citewise.analysis.question import Question

__all__ = [
    "DATE_Q",
    "QUANTITY_Q",
    "READERS",
    "REQUIRED",
    "AnswerType",
    "Reader",
    "expected",
    "expected_of",
    "figures_of",
    "gives_date",
    "gives_quantity",
    "gives_time",
    "present",
    "script_of",
]

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


def figures_of(question: Question) -> tuple[str, ...]:
    """The question's own figures, as digits without separators ("1598", "40000")."""
    return tuple(m.group(1).replace(",", "") for m in _FIGURE.finditer(question.text))


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


class AnswerType(StrEnum):
    """What kind of value answers a question."""

    TIME = "time"
    NUMBER = "number"
    AGENT = "agent"  # a person or an organisation
    PLACE = "place"
    YES_NO = "yes_no"
    DEFINITION = "definition"


#: The types a unit must hold to answer at all: a text without a time does not say when,
#: one without a number does not say how many (a hard gate, not a weight).
REQUIRED = frozenset({AnswerType.TIME, AnswerType.NUMBER})

_WEEKDAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekdays?|weekends?|nightly"
_TIME_UNITS = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|ms)"
#: A time that is no calendar date: a clock time ("10:00", "5 pm", "noon"), a weekday, a
#: frequency ("every Monday", "weekly", "twice a day", "always"), a duration or delay
#: ("after 30 days", "within 2 hours", "immediately").
_CLOCK_OR_FREQUENCY = re.compile(
    r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b(?:noon|midnight|"
    rf"{_WEEKDAYS}|hourly|daily|weekly|fortnightly|monthly|quarterly|yearly|annually|"
    r"always|never|usually|often|sometimes|rarely|immediately|instantly|"
    r"(?:every|each|per|once|twice|once a|twice a) (?:other )?"
    rf"(?:\w+ )?(?:{_TIME_UNITS}|{_WEEKDAYS}|morning|evening|night|time|run|request|call))\b|"
    rf"\b(?:\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
    rf"fifteen|twenty|thirty|sixty|ninety|several|few)[\s-]+{_TIME_UNITS}\b",
    re.I,
)
#: The circumstance a thing happens in, which answers "when does X happen?" in prose
#: ("after the response has been sent", "if no route matches", "on startup").
_CIRCUMSTANCE = re.compile(
    r"\b(?:when|whenever|once|after|before|until|till|while|during|upon|unless|if|"
    r"as soon as|at (?:startup|shutdown|the (?:start|end|beginning|same time))|"
    r"on (?:startup|shutdown|exit|start|each|every|the first)|then|first|later|"
    r"effective|expires?|takes? effect)\b",
    re.I,
)
#: A person or an organisation: a capitalised name after the sentence's first word
#: ("written by Jerome Saltzer"), a company or body suffix, a role noun.
_AGENT = re.compile(
    r"(?<=[a-z,;] )[A-Z][a-z]+(?:[ -][A-Z][a-z.]+)*|\b(?:Inc|Ltd|LLC|GmbH|Corp|Corporation|"
    r"Company|Foundation|University|Institute|Agency|Bureau|Board|Commission|Council|"
    r"Department|Ministry|Committee|Office)\b|\b(?:he|she|they|who|author|authors|engineer|"
    r"maintainers?|developers?|team|administrator|owner|user|staff|manager|editor|"
    r"inventor|founder|president|officer|director)\b"
)
#: A place, location or path: a preposition of place before a name or a figure ("in room
#: 4B", "at Xerox PARC"), a file path or URL, a location noun.
_PLACE = re.compile(
    r"\b(?:in|at|from|to|near|under|inside|into|on) (?:the )?(?:[A-Z0-9][\w.-]*)|"
    r"(?:^|\s)[~.]?/[\w./-]+|\b[\w-]+\.(?:py|md|txt|json|toml|ya?ml|cfg|ini|conf)\b|"
    r"https?://|\b(?:director(?:y|ies)|folders?|files?|paths?|rooms?|office|building|"
    r"city|country|state|region|headquarters|located|location|site)\b",
    re.I,
)
#: A definition: "X is a ...", "X means ...", "X refers to ...", "X: a ...".
_DEFINITION = re.compile(
    r"\b(?:is|are|was|were)\s+(?:an?|the|one|any|used|what|how|called|known)\b|"
    r"\b(?:means?|refers? to|stands? for|denotes?|defines?|describes?|is defined as|"
    r"consists? of|represents?|provides?|lets?|allows?)\b",
    re.I,
)


def gives_time(text: str, asked: Iterable[str] = ()) -> bool:
    """Whether ``text`` says when: a date (:func:`gives_date`), a clock time, weekday,
    frequency or duration, the circumstance of an event, or a period as legal text
    writes it (:func:`~citewise.sufficiency.legal_time.states_period`)."""
    return bool(
        gives_date(text, asked)
        or _CLOCK_OR_FREQUENCY.search(text)
        or _CIRCUMSTANCE.search(text)
        or states_period(text)  # "within ten (10) working days" (legal_time.py)
    )


#: A calendar date asked ("when did", "what year"): a past event's date, not its occasion.
DATE_Q = re.compile(
    r"^\s*(?:when (?:did|was|were|had)\b)|\b(?:what|which) (?:years?|century|"
    r"centuries|decades?|dates?|day|month|era)\b|\bsince when\b",
    re.I,
)
#: Any time asked: a date, "when does", "what time", "how often".
_WHEN_Q = re.compile(
    r"^\s*(?:since |until |by |and |so |then |but )?when\b|\b(?:what|at what) time\b|"
    r"\bhow (?:often|soon|frequently)\b",
    re.I,
)
#: A number asked: a count, an amount, a measure, a share.
QUANTITY_Q = re.compile(
    r"\bhow (?:many|much|long|old|far|large|big|tall|high|often|fast|wide|deep)\b|"
    r"\bwhat (?:percentage|percent|proportion|fraction|share|number|amount)\b",
    re.I,
)
_AGENT_Q = re.compile(
    r"^\s*(?:who|whom|whose)\b|\b(?:which|what) (?:company|organi[sz]ation|person|people|"
    r"team|body|agency|author|authors)\b",
    re.I,
)
_PLACE_Q = re.compile(
    r"^\s*where\b|\b(?:in |at )?(?:which|what) (?:file|directory|folder|module|country|"
    r"city|state|place|location|region)\b",
    re.I,
)
_YES_NO_Q = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|should|shall|will|would|may|might|must|"
    r"has|have|had)\b",
    re.I,
)
_DEFINITION_Q = re.compile(
    r"^\s*(?:what(?: i|\')s|what are|define|what does \S+(?: \S+)? mean)\b", re.I
)


def _expected_en(text: str) -> AnswerType | None:
    """The English reader: the first cue that names a type, the specific before the
    general (a "when" inside "what ... when ..." is a condition, not the type asked)."""
    for pattern, kind in (
        (DATE_Q, AnswerType.TIME),
        (_WHEN_Q, AnswerType.TIME),
        (QUANTITY_Q, AnswerType.NUMBER),
        (_AGENT_Q, AnswerType.AGENT),
        (_PLACE_Q, AnswerType.PLACE),
        (_YES_NO_Q, AnswerType.YES_NO),
        (_DEFINITION_Q, AnswerType.DEFINITION),
    ):
        if pattern.search(text):
            return kind
    return None


def _present_en(text: str) -> frozenset[AnswerType]:
    found = {AnswerType.YES_NO}  # any statement affirms or denies
    if gives_time(text):
        found.add(AnswerType.TIME)
    if gives_quantity(text) or re.search(r"\d", text):
        found.add(AnswerType.NUMBER)
    for pattern, kind in (
        (_AGENT, AnswerType.AGENT),
        (_PLACE, AnswerType.PLACE),
        (_DEFINITION, AnswerType.DEFINITION),
    ):
        if pattern.search(text):
            found.add(kind)
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class Reader:
    """One language's answer-type reader: the type a question's text expects, the types a
    text holds."""

    expected: Callable[[str], AnswerType | None]
    present: Callable[[str], frozenset[AnswerType]]


#: Readers by script (:func:`script_of`); a script without one expects no type.
READERS: dict[str, Reader] = {"latin": Reader(_expected_en, _present_en)}


def script_of(text: str) -> str:
    """``"han"`` when ``text`` holds a Chinese character, else ``"latin"``."""
    return "han" if has_cjk(text) else "latin"


def expected_of(text: str) -> AnswerType | None:
    """The answer type a question's ``text`` asks for, by its script's reader."""
    reader = READERS.get(script_of(text))
    return reader.expected(text) if reader else None


def expected(question: Question) -> AnswerType | None:
    """The answer type the analysed ``question`` asks for (None: no particular type)."""
    return expected_of(question.text)


def present(text: str) -> frozenset[AnswerType]:
    """The answer types ``text`` holds, by its script's reader and the Latin one (figures
    and Latin words stand in text of any script)."""
    found: frozenset[AnswerType] = frozenset()
    for script in dict.fromkeys(("latin", script_of(text))):
        reader = READERS.get(script)
        found |= reader.present(text) if reader else frozenset()
    return found


def _zh(kind: str) -> AnswerType:
    """A Chinese type as the recogniser's: an ordinal (第几) is a number asked."""
    return AnswerType.NUMBER if kind == "ordinal" else AnswerType(kind)


def _expected_zh(text: str) -> AnswerType | None:
    """The type a Chinese question asks for (:mod:`citewise.sufficiency.zh_answer_type`)."""
    kind = zh_expected_type(text)
    return None if kind is None else _zh(kind)


def _present_zh(text: str) -> frozenset[AnswerType]:
    """The types a Chinese text holds (:mod:`citewise.sufficiency.zh_answer_type`)."""
    return frozenset(_zh(k) for k in zh_present_types(text))


#: Chinese plugs in as its own reader (measured on laws-zh and CMRC seed 34 on 2026-12-07:
#: the same labels as without it; the score now reads one type vocabulary for both).
READERS["han"] = Reader(_expected_zh, _present_zh)
