"""The runner's record of one ask run (:mod:`citewise.answer.steps.runner`): the answer,
the step that gave it and each step's wall time in order; what listeners
(:mod:`citewise.answer.steps.observe`) are handed."""

from __future__ import annotations

from dataclasses import dataclass

from citewise.answer.models import Answer

__all__ = ["Run", "StepTime"]


@dataclass(frozen=True, slots=True)
class StepTime:
    step: str
    ms: float


@dataclass(frozen=True, slots=True)
class Run:
    """The answer, the step that gave it, and each step's wall time in order."""

    answer: Answer
    ended_at: str
    times: tuple[StepTime, ...]
