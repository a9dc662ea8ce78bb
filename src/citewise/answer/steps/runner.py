"""The runner of ``ask``: the steps in their order, each timed, until one answers.

A step is a function from :class:`~citewise.answer.steps.state.AskState` to the next
state; the first that sets ``answer`` ends the run. The timings are the runner's own
record (:class:`Run`), never part of the answer's trace, replay id or ledger entry, so an
answer replays to the same ids however long its steps took. Listeners
(:mod:`citewise.answer.steps.observe`: metrics, traces) get the record after each run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from citewise.answer.steps import observe
from citewise.answer.steps.cells import cell_step
from citewise.answer.steps.evidence import (
    analyse_step,
    assemble_step,
    judge_step,
    recall_step,
    recover_step,
)
from citewise.answer.steps.quote import compose_step, conditions_step
from citewise.answer.steps.record import Run, StepTime
from citewise.answer.steps.release import finish_step, review_step
from citewise.answer.steps.state import AskState

Step = Callable[[AskState], AskState]

#: The order of ``ask``'s steps (docs/architecture.md, "The answer pipeline").
STEPS: tuple[tuple[str, Step], ...] = (
    ("analyse", analyse_step),
    ("recall", recall_step),
    ("assemble", assemble_step),
    ("table_cell", cell_step),  # one table cell answers the question (issue 36)
    ("judge", judge_step),
    ("recover", recover_step),
    ("conditions", conditions_step),
    ("compose", compose_step),
    ("review", review_step),
    ("finish", finish_step),
)


def run(state: AskState, steps: tuple[tuple[str, Step], ...] = STEPS) -> Run:
    """Run ``steps`` on ``state`` in order until one sets the answer."""
    times: list[StepTime] = []
    for name, step in steps:
        t0 = time.perf_counter()
        state = step(state)
        times.append(StepTime(name, (time.perf_counter() - t0) * 1000))
        if state.answer is not None:
            done = Run(state.answer, name, tuple(times))
            observe.notify(state, done)  # metrics and traces read these times
            return done
    raise RuntimeError(f"ask: no step answered (the last was {steps[-1][0]})")
