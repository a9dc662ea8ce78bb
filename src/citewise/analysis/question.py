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

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypedDict

from citewise.analysis.conditions import Condition, ConditionKind, ConditionSet, conditions_in
from citewise.analysis.graph_intent import graph_deep, graph_intent
from citewise.analysis.intent import Intent, IntentKind, classify_intent
from citewise.analysis.named import named_terms
from citewise.analysis.scope import Scope, scope_of
from citewise.analysis.tokenize import Coverage, key_terms, terms_in, tokenize

__all__ = [
    "Condition",
    "ConditionJSON",
    "ConditionKind",
    "ConditionSet",
    "IntentJSON",
    "Question",
    "Scope",
    "analyse",
    "english_letters",
]


class IntentJSON(TypedDict):
    """The trace form of :class:`~citewise.analysis.intent.Intent` (``asdict``)."""

    kind: IntentKind
    deep: bool
    cue: str
    subject: str
    subject_terms: list[str]


class ConditionJSON(TypedDict):
    """One condition of the query condition set as the trace keeps it
    (:meth:`~citewise.analysis.conditions.ConditionSet.to_json`)."""

    kind: str
    value: str
    text: str
    source: str


@dataclass(frozen=True)
class Question:
    """A question as the stages read it.

    ``intent`` is the pipeline's classification (kind, depth, cue, subject and its key
    terms); ``graph_intent``/``graph_deep`` are the graph's own reading
    (:mod:`citewise.analysis.graph_intent`; it differs from ``intent`` on some questions,
    and each keeps the results it had). ``key_terms`` are the question's key terms
    (:func:`~citewise.analysis.tokenize.key_terms`), ``named_terms`` the names and
    identifiers it relies on (:func:`~citewise.analysis.named.named_terms`).
    ``conditions`` is the query condition set: the conditions the text states
    (:func:`~citewise.analysis.conditions.conditions_in`) over any the caller passes or
    a conversation carries over. ``scope`` is the edition, year, file kind, document or
    section the question names (:func:`~citewise.analysis.scope.scope_of`), matched
    against each candidate's context, not demanded from the sentence.
    """

    text: str
    intent: Intent
    key_terms: tuple[str, ...]
    named_terms: tuple[str, ...]
    graph_intent: str
    graph_deep: bool
    conditions: ConditionSet = field(default_factory=ConditionSet)
    scope: Scope = field(default_factory=Scope)

    # Readings a later stage needs, each computed from ``text`` on first use and kept
    # (``cached_property``: no slots, so the value holds them); a copy made with
    # ``dataclasses.replace`` reads them again from its own text.

    @cached_property
    def tokens(self) -> tuple[str, ...]:
        """Every index token of the text (:func:`~citewise.analysis.tokenize.tokenize`)."""
        return tuple(tokenize(self.text))

    def coverage(self, texts: str | Iterable[str]) -> Coverage:
        """Which of the question's ``key_terms`` occur in ``texts``
        (:func:`~citewise.analysis.tokenize.term_coverage` of the text, its terms read once)."""
        return terms_in(self.key_terms, texts)

    @cached_property
    def english(self) -> bool:
        """Whether the text is written in English letters (:func:`english_letters`)."""
        return english_letters(self.text)


def english_letters(text: str) -> bool:
    """Whether ``text`` is written in English letters: at least 90 % of its letters are
    ASCII (a text without letters is not)."""
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum(ch.isascii() for ch in letters) >= 0.9 * len(letters)


def analyse(text: str, given: ConditionSet | None = None) -> Question:
    """Every reading of ``text`` the stages need, each done once; ``given`` are the
    caller's (or a conversation's) conditions, which the text's own override."""
    return Question(
        text=text,
        intent=classify_intent(text),
        key_terms=tuple(key_terms(text)),
        named_terms=named_terms(text),
        graph_intent=graph_intent(text),
        graph_deep=graph_deep(text),
        conditions=conditions_in(text).over(given or ConditionSet()),
        scope=scope_of(text),
    )
