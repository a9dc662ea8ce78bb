"""The typed trace sections the steps write, each as its stage's contract declares it.

Stages emit their records as plain JSON (``asdict``, ``to_json``); these functions give
each the type of its section in :class:`~citewise.answer.models.AnswerTrace`, so the
steps write no untyped section. The values are the stages' own, unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any, cast

from citewise.analysis.question import ConditionJSON, IntentJSON, Question
from citewise.answer.models import ConditionsTrace, RemovedTrace, RewriteTrace
from citewise.core.search import RetrievalJSON
from citewise.evidence.models import EvidencePack, PackJSON
from citewise.sufficiency.constraints import Constraint
from citewise.sufficiency.models import (
    ConflictJSON,
    ConflictNote,
    ConstraintJSON,
    QuestionTerm,
    TermJSON,
)


def intent(q: Question) -> IntentJSON:
    return cast("IntentJSON", asdict(q.intent))


def stated(q: Question) -> ConditionsTrace:
    return ConditionsTrace(stated=cast("list[ConditionJSON]", q.conditions.to_json()))


def conditions(current: ConditionsTrace | None, more: Mapping[str, Any]) -> ConditionsTrace:
    """The ``conditions`` section with ``more`` of what the conditions did joined in."""
    return cast("ConditionsTrace", (current or {}) | dict(more))


def rewrite(given: Mapping[str, Any]) -> RewriteTrace:
    return cast("RewriteTrace", dict(given))


def retrieval(summary: dict[str, Any]) -> RetrievalJSON:
    return cast("RetrievalJSON", summary)


def terms(all_terms: Iterable[QuestionTerm]) -> list[TermJSON]:
    return [cast("TermJSON", asdict(t)) for t in all_terms]


def pack(p: EvidencePack) -> PackJSON:
    return cast("PackJSON", p.to_json())


def conflicts(notes: Iterable[ConflictNote]) -> list[ConflictJSON]:
    return [cast("ConflictJSON", asdict(c)) for c in notes]


def removed(entries: list[dict[str, Any]]) -> list[RemovedTrace]:
    return cast("list[RemovedTrace]", entries)


def constraints(found: Iterable[Constraint]) -> list[ConstraintJSON]:
    return [cast("ConstraintJSON", asdict(c)) for c in found]
