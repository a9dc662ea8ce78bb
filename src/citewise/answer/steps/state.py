"""The frozen state the steps of ``ask`` pass along (answer/steps/runner.py).

Each step reads the fields the steps before it set and returns a copy with its own
(:func:`dataclasses.replace`); none mutates another step's value, except the answer's
trace, the record every step (and the writers it calls) appends its section to in the
order the JSON keeps. A field a step reads before the step that sets it has run is a
wrong step order, reported as such (:meth:`AskState.need`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from citewise.analysis.conditions import ConditionSet
from citewise.analysis.question import Question
from citewise.answer.candidate import Candidate
from citewise.answer.models import Answer, AnswerTrace, Citation, Claim
from citewise.answer.relation.graph import Found
from citewise.core.search import SearchFilters, SearchResult
from citewise.evidence.models import EvidencePack, Fragment
from citewise.evidence.nodes import NodeReader, Span
from citewise.sufficiency.constraints import UnitGate
from citewise.sufficiency.models import ConflictNote, Sufficiency
from citewise.sufficiency.presence import TermProfile

if TYPE_CHECKING:
    from citewise.answer.units.structure import Unit
    from citewise.answer.writer import LLMWriter
    from citewise.context import StageContext

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class Composed:
    """The extractive composer's result (step ``compose``): the units chosen and ranked,
    the gate they passed, and how units are read (the review re-reads them)."""

    chosen: list[Candidate]
    ranked: list[Candidate]
    gate: UnitGate
    units_of: Callable[[Fragment], list[Unit]]
    reader: NodeReader
    near: dict[tuple[str, int], list[Span]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Reviewed:
    """The released claims and their citations (step ``review``)."""

    claims: list[Claim]
    citations: list[Citation]


@dataclass(frozen=True, slots=True, kw_only=True)
class AskState:
    """One ask between two steps. ``question`` is the question as asked, analysed once;
    ``searched`` the question as searched (a slip respelt as the knowledge base spells it;
    ``question`` itself when nothing was respelt)."""

    kb: StageContext
    question: Question
    #: The caller's (or a conversation's) conditions; those the question states win.
    given_conditions: ConditionSet | None = None
    filters: SearchFilters | None = None
    llm: LLMWriter | None = None
    lineage: Mapping[str, str] | None = None
    rewrite: Mapping[str, Any] | None = None
    #: Ids a caller sent that the server's lineage overrode, kept apart from ``lineage``.
    caller_lineage: Mapping[str, str] | None = None
    trace: AnswerTrace = field(default_factory=lambda: AnswerTrace())
    revision: int = 0
    # recall
    searched: Question | None = None
    profile: TermProfile | None = None
    recall: SearchResult | None = None
    # assemble, judge, recover
    pack: EvidencePack | None = None
    conflicts: list[ConflictNote] = field(default_factory=list)
    stale: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    verdict: Sufficiency | None = None
    judge_wants_more: bool = False
    # conditions
    fragments: list[Fragment] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    found: Found | None = None
    # compose, review
    composed: Composed | None = None
    reviewed: Reviewed | None = None
    #: Set by the step that settles the answer; the runner stops there.
    answer: Answer | None = None

    @property
    def who(self) -> str | None:
        """The principal the ask reads as (None: no access scope)."""
        return self.filters.principal if self.filters else None

    @property
    def respelt(self) -> bool:
        """True when a slip in the question was searched as the knowledge base spells it."""
        return self.need(self.searched, "searched").text != self.question.text

    def need(self, value: T | None, name: str) -> T:
        """``value``, a field an earlier step sets; a step order that skips that step is
        a programming error."""
        if value is None:
            raise RuntimeError(f"ask: {name} is read before the step that sets it ran")
        return value
