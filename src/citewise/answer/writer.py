"""What ``ask`` needs of an LLM route, as a protocol the answer stage owns.

The live route (:class:`citewise.llm.generate.LLMContext`) and replay's recorded one
(:class:`citewise.audit.llm_replay.RecordedLLM`) implement it; the pipeline sees only
this, so the answer stage never imports :mod:`citewise.llm` (which imports the answer
stage's :func:`~citewise.answer.finish.finish`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from citewise.analysis.question import Question
    from citewise.answer.models import Answer, AnswerTrace, JudgeTrace
    from citewise.context import StageContext
    from citewise.core.search import SearchFilters
    from citewise.sufficiency.gates import GateInput
    from citewise.sufficiency.models import ConflictNote, Sufficiency

__all__ = ["LLMWriter"]


class LLMWriter(Protocol):
    """What ``ask`` needs of an LLM route: the judge's recorded verdict (trace JSON with
    ``verdict`` and ``reason``, or None when no judge ran) and the written answer (None:
    give the extractive answer). The live route calls a model; replay reads the bundle."""

    def judge(
        self,
        kb: StageContext,
        question: Question,
        g: GateInput,
        intent: str,
        filters: SearchFilters | None,
    ) -> JudgeTrace | None: ...

    def answer(
        self,
        kb: StageContext,
        *,
        question: Question,
        g: GateInput,
        suff: Sufficiency,
        stale: tuple[str, ...],
        conflicts: list[ConflictNote],
        filters: SearchFilters | None,
        trace: AnswerTrace,
    ) -> Answer | None: ...
