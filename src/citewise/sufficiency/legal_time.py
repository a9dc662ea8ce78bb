"""Periods as regulations, statutes and contracts write them (issue 34).

Legal drafting writes a period with a qualifier between the count and the unit, and often
repeats the count in figures: "within ten (10) working days", "thirty (30) days",
"20 business days", "15 calendar days". A "how soon"/"when" question is answered by such a
period (a deadline); the plain-duration reading of :mod:`citewise.sufficiency.answer_type`
("30 days", "2 hours") does not see it when a word or a figure in brackets stands
between the count and the unit. :func:`states_period` does; it is one more way a unit
gives a time (:func:`citewise.sufficiency.answer_type.gives_time`).

Chosen on cfr14 (14 CFR chapter V): the pattern is the drafting convention, checked on a
U.S. regulation and a contract-style sentence in tests/test_legal_time.py.
"""

from __future__ import annotations

import re

__all__ = ["states_period"]

_COUNT_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|"
    r"twenty|thirty|forty|forty-five|fifty|sixty|ninety|hundred|a hundred"
)
#: Words legal text puts between a count and its unit: the kind of day counted.
_QUALIFIERS = r"working|work|calendar|business|consecutive|full|school|banking|court"
_UNITS = r"days?|weeks?|months?|years?|hours?"

_PERIOD = re.compile(
    rf"(?<![\w.])(?:\d{{1,4}}|{_COUNT_WORDS})"  # the count, in figures or words
    r"(?:\s*\(\d{1,4}\))?"  # the same count repeated in figures: "ten (10)"
    rf"[\s-]+(?:(?:{_QUALIFIERS})[\s-]+)?(?:{_UNITS})\b",
    re.IGNORECASE,
)


def states_period(text: str) -> bool:
    """Whether ``text`` states a period as legal text writes it ("ten (10) working
    days", "20 business days", "30 calendar days", "three years")."""
    return _PERIOD.search(text) is not None
