"""The meaning term of a unit's answerability: the cross-encoder's read of question × unit.

The answerability score (:mod:`citewise.sufficiency.answerability`) reads, besides word
overlap, how well the shipped cross-encoder (:mod:`citewise.recall.meaning_model`) finds
the unit, under its subsection heading (its context, as the meaning check reads it:
:func:`~citewise.answer.meaning.read.with_heading`; a clause under its part and section
titles), to answer the question. The score's probability comes from
:mod:`citewise.sufficiency.meaning_fit`; this module only decides whether a unit is read
and reads it.

A unit is read (:func:`reads`) for an English question that asks something (a question
mark or a wh-word) and is no procedure or comparison (their units each hold part of the
answer), names no clause (the clause is the answer), and only when the unit is prose (the
model was trained on passages; a table row or code reads as no answer,
:func:`~citewise.answer.meaning.check.tabular`), never a lead-in or a list
(:func:`introduces`): a sentence ending in a colon ("Typer will accept any string from
the following formats:") says what follows, and the items or code it introduces are what
answers; read alone, or with its items as bare lines, the model finds no answer in it (typer
docs). Without the model, with the term turned
off (``CITEWISE_ANSWERABLE_MEANING=0``) or past the time left, there is no reading (None)
and the score is as before.
"""

from __future__ import annotations

import re

from citewise.analysis.question import Question
from citewise.answer.meaning.check import TIMEOUT_S, UNCHECKED, asks, tabular, with_heading
from citewise.recall.identifiers import clause_refs
from citewise.recall.meaning_model import meaning_model, pair_score
from citewise.sufficiency.meaning_fit import meaning_weight

__all__ = ["introduces", "reads_meaning", "unit_meaning"]

#: A list item's opening on a line of its own: a bullet or a number ("* ", "- ", "2. ").
_ITEM = re.compile(r"^\s*(?:[*+\-•]|\d{1,3}[.)])\s+\S", re.M)


def introduces(text: str) -> bool:
    """Whether ``text`` is a lead-in (it ends with a colon) or holds list items: its
    answer is what it introduces, which the model does not read as a passage."""
    return text.rstrip().endswith((":", "：")) or _ITEM.search(text) is not None


def reads_meaning(question: Question) -> bool:
    """Whether the units of ``question`` are read by meaning (see the module)."""
    return (
        question.english
        and question.intent.kind not in UNCHECKED
        and asks(question.text)
        and not clause_refs(question.text)
    )


def unit_meaning(
    question: Question, kind: str, text: str, section: str = "", depth: int = 0
) -> float | None:
    """The cross-encoder's log-odds that the unit ``text`` (of ``kind``, under ``section``
    at heading ``depth``) answers ``question``; None when it is not read (see the
    module)."""
    if (
        meaning_weight() == 0.0
        or not reads_meaning(question)
        or tabular(kind, text)
        or introduces(text)
    ):
        return None
    model = meaning_model()
    if model is None:
        return None
    return pair_score(model, question.text, with_heading(text, section, depth), TIMEOUT_S)
