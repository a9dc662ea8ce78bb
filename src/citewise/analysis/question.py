"""The question, analysed once: one typed value that every stage reads.

:func:`analyse` runs each reading of the question exactly once, and the stages take the
result instead of re-reading the text: recall's graph route (``graph_intent``,
``graph_deep``), the evidence stage (``intent`` picks the budget profile), sufficiency
(the gates read ``intent``, the presence check ``intent.subject_terms`` and
``named_terms``, the conflict check ``key_terms``) and the answer composer
(``intent.kind``).
Pure and deterministic: the same text gives the same value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from citewise.analysis.graph_intent import graph_deep, graph_intent
from citewise.analysis.intent import Intent, classify_intent
from citewise.analysis.named import named_terms
from citewise.analysis.tokenize import key_terms

__all__ = ["Condition", "ConditionKind", "Question", "analyse"]

#: What a stated condition constrains ("on Windows", "for version 2.x", "as of 2023").
ConditionKind = Literal["environment", "version", "platform", "time", "region", "filter"]


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition the question states, with the words that state it (``text``)."""

    kind: ConditionKind
    value: str
    text: str


@dataclass(frozen=True, slots=True)
class Question:
    """A question as the stages read it.

    ``intent`` is the pipeline's classification (kind, depth, cue, subject and its key
    terms); ``graph_intent``/``graph_deep`` are the graph's own reading
    (:mod:`citewise.analysis.graph_intent`; it differs from ``intent`` on some questions,
    and each keeps the results it had). ``key_terms`` are the question's key terms
    (:func:`~citewise.analysis.tokenize.key_terms`), ``named_terms`` the names and
    identifiers it relies on (:func:`~citewise.analysis.named.named_terms`).
    ``conditions`` is empty until conditions are read from questions (issue 22).
    """

    text: str
    intent: Intent
    key_terms: tuple[str, ...]
    named_terms: tuple[str, ...]
    graph_intent: str
    graph_deep: bool
    conditions: tuple[Condition, ...] = ()


def analyse(text: str) -> Question:
    """Every reading of ``text`` the stages need, each done once."""
    return Question(
        text=text,
        intent=classify_intent(text),
        key_terms=tuple(key_terms(text)),
        named_terms=named_terms(text),
        graph_intent=graph_intent(text),
        graph_deep=graph_deep(text),
    )
