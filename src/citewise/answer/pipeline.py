"""``ask``: the one public answer. Intent, evidence, sufficiency (with at most one recovery
pass), conflicts and stale editions, extractive composition, release review, and a trace
that keeps what the answer hides.

The question is analysed once; the steps of :mod:`citewise.answer.steps` (analyse →
recall → assemble → judge → recover → conditions → compose → review → finish) pass a
frozen state along, and the runner (:mod:`citewise.answer.steps.runner`) calls them in
order, times each, and stops at the first that answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from citewise.analysis.conditions import ConditionSet
from citewise.analysis.question import Question, analyse
from citewise.answer.models import Answer
from citewise.answer.steps.evidence import NON_KB_REPLY
from citewise.answer.steps.record import Run
from citewise.answer.steps.runner import run
from citewise.answer.steps.state import AskState
from citewise.core.search import SearchFilters
from citewise.index.ask_reads import ask_reads

if TYPE_CHECKING:
    from citewise.answer.writer import LLMWriter
    from citewise.context import StageContext

__all__ = ["NON_KB_REPLY", "ask", "ask_run"]


def ask(
    kb: StageContext,
    text: str,
    *,
    filters: SearchFilters | None = None,
    llm: LLMWriter | None = None,
    conditions: ConditionSet | None = None,
    lineage: dict[str, str] | None = None,
    rewrite: Mapping[str, Any] | None = None,
    caller_lineage: dict[str, str] | None = None,
) -> Answer:
    """Answer the user's ``text``: the one place in ``answer/`` that reads the raw question,
    analysing it once into the :class:`Question` every step takes (:func:`ask_run`).
    ``llm`` is an LLM route's writer (the facade opens a named route before calling
    this; replay passes its recorded one); None keeps the extractive path.
    ``conditions`` are the caller's (or a conversation's) conditions, which those the
    question states override; ``lineage`` ids (conversation, turn, task, parent) are
    recorded as given, and ``caller_lineage`` (ids a caller sent that the server's
    overrode) apart from them."""
    return ask_run(
        kb,
        analyse(text, conditions),  # read once; every step below takes it
        filters=filters,
        llm=llm,
        conditions=conditions,
        lineage=lineage,
        rewrite=rewrite,
        caller_lineage=caller_lineage,
    ).answer


@ask_reads()  # each version text an ask reads from the store is read once
def ask_run(
    kb: StageContext,
    question: Question,
    *,
    filters: SearchFilters | None = None,
    llm: LLMWriter | None = None,
    conditions: ConditionSet | None = None,
    lineage: dict[str, str] | None = None,
    rewrite: Mapping[str, Any] | None = None,
    caller_lineage: Mapping[str, str] | None = None,
) -> Run:
    """:func:`ask` of the analysed ``question`` (``conditions``: the caller's, which
    ``question`` already holds; a respelt question is analysed under them again), with the
    runner's record: the step that answered and each step's time."""
    state = AskState(
        kb=kb,
        question=question,
        given_conditions=conditions,
        filters=filters,
        llm=llm,
        lineage=lineage,
        rewrite=rewrite,
        caller_lineage=caller_lineage,
    )
    return run(state)
