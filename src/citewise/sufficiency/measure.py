"""Whether a unit gives a duration or a length: the answer type of "how long", "how far"
and "up to what length".

Any figure is no answer to "For how long may a record be kept?": "section 4 amends
section 12" holds figures and no duration, while "retain for up to six months" holds
one. A *measure* is a number (digits or a number word, or
"a" / "an") with a unit of time or length after it ("six months", "200 feet", "a
decade", "5-year", "1,280 km"), a span of years ("from 1914 to 1918", "1337-1453"), or a
count (not a reference or a year, :func:`answer_type.gives_quantity`) in a unit the text
names apart ("time in seconds ... Defaults to 600").
Pure functions; :mod:`citewise.sufficiency.constraints` applies :func:`gives_measure`.
"""

from __future__ import annotations

import re

from citewise.sufficiency.answer_type import gives_quantity

__all__ = ["MEASURE_Q", "asks_measure", "gives_measure"]

#: Questions whose answer is a measure ("how long", "up to what length").
MEASURE_Q = re.compile(
    r"\bhow (?:long|far)\b|\bwhat (?:length|distance|duration|period of time|period)\b", re.I
)

_NUMBER = (
    r"(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|several|few|many)"
)
_UNIT = (
    r"(?:years?|yrs?|months?|weeks?|days?|nights?|hours?|hrs?|minutes?|mins?|seconds?|secs?|"
    r"decades?|centur(?:y|ies)|millenni(?:um|a)|generations?|feet|foot|ft|inch(?:es)?|"
    r"miles?|mi|met(?:er|re)s?|m|km|kilomet(?:er|re)s?|yards?|yd|cm|mm|leagues?)"
)
_MEASURE = re.compile(rf"\b{_NUMBER}(?:[\s-]+[a-z]+)?[\s-]+{_UNIT}\b", re.I)
_YEAR_SPAN = re.compile(
    r"\b(?:1\d{3}|20\d\d)\s*(?:-|–|—|to|until|till|and)\s*(?:1\d{3}|20\d\d|\d\d)\b", re.I
)


def asks_measure(said: str) -> bool:
    """Whether the question's answer-type words (``"how long"``) ask for a measure."""
    return bool(MEASURE_Q.search(said))


_UNIT_WORD = re.compile(rf"\b{_UNIT}\b")


def gives_measure(text: str) -> bool:
    """Whether ``text`` holds a duration or length (see the module docstring), or a count
    with the unit said apart from it ("a maximum time in seconds ... Defaults to 600")."""
    if _MEASURE.search(text) or _YEAR_SPAN.search(text):
        return True
    return bool(_UNIT_WORD.search(text.lower())) and gives_quantity(text)
