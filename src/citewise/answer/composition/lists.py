"""A question that asks for a counted list ("Which four kinds of ...?", "What are the
three steps ...?") is answered by the lead-in that announces that list with its items
("... falls into the following four kinds: 1. ... 4. ..."), even when a sentence that
merely mentions the number ("adds four new rules") shares more of the question's words."""

from __future__ import annotations

import re

from citewise.analysis.question import Question
from citewise.answer.candidate import Candidate
from citewise.sufficiency.constraints import NUMBER_WORDS

__all__ = ["LIST_SHARE", "asked_count", "counted_list"]

_VALUE = {w: i for w, i in NUMBER_WORDS.items() if i >= 2}  # a list has two items or more
#: "four categories", "three main types", "12 steps": a count before a plural noun (at
#: most two words between).
_COUNTED = re.compile(
    rf"\b({'|'.join(_VALUE)}|[2-9]|1\d|20)\s+(?:[a-z-]+\s+){{0,2}}?[a-z-]{{3,}}s\b", re.I
)
#: A lead-in's list may score this share of the best unit and still answer first.
LIST_SHARE = 0.5


def asked_count(question: Question) -> int | None:
    """The number of things the question asks for, or None."""
    m = _COUNTED.search(question.text)
    if m is None:
        return None
    word = m.group(1).lower()
    return _VALUE[word] if word in _VALUE else int(word)


def _announces(text: str, count: int) -> bool:
    words = {str(count)} | {w for w, v in _VALUE.items() if v == count}
    return any(re.search(rf"\b{w}\b", text, re.I) for w in words)


def counted_list(question: Question, pool: list[Candidate]) -> list[Candidate]:
    """The best lead-in unit (a sentence ending in ":" with the list it introduces) that
    names the question's count, when it scores at least :data:`LIST_SHARE` of the best
    unit; else nothing. ``pool`` is best first."""
    count = asked_count(question)
    if count is None or not pool:
        return []
    best = pool[0].score
    for c in pool:
        if c.score < LIST_SHARE * best:
            break
        if c.kind == "lead" and _announces(c.clean.split("\n", 1)[0], count):
            return [c]
    return []
