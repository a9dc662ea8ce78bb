"""What metrics and traces may say about one ask run: per-step times and counts, no text.

:func:`step_records` turns the runner's record (:class:`~citewise.answer.steps.runner.Run`)
and the final state into one :class:`StepRecord` per step that ran, in order, with its
wall time (the runner's own, never measured again), its offset from the start of the run
and a few counts and labels (hits, fragments, gate verdict, claims kept). Recall's routes
come as :class:`RouteRecord` children with their own times from the route diagnostics.

The rule: attributes are numbers, booleans and labels from closed sets (step, route,
status, outcome, degradation, intent kind, gate kinds); never document or question text,
which a caller opts into separately (:mod:`citewise.answer.otel`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citewise.answer.steps.record import Run
    from citewise.answer.steps.state import AskState

__all__ = ["Attrs", "RouteRecord", "StepRecord", "run_attributes", "step_records"]

Attrs = dict[str, str | int | float | bool]


@dataclass(frozen=True, slots=True)
class RouteRecord:
    """One recall route as the recall step's diagnostics report it."""

    route: str
    ms: float
    attributes: Attrs


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One step of a run: its name, offset from the run's start, wall time and counts."""

    step: str
    start_ms: float
    ms: float
    attributes: Attrs
    routes: tuple[RouteRecord, ...] = field(default=())


def _analyse(s: AskState) -> Attrs:
    q = s.question
    return {"intent": str(q.intent.kind), "conditions": len(q.conditions.conditions)}


def _recall(s: AskState) -> Attrs:
    if s.recall is None:
        return {}
    r = s.recall
    return {
        "hits": len(r.hits),
        "routes": ",".join(r.routes),
        "criterion": r.criterion,
        "outcome": str(r.outcome),
        "respelt": s.searched is not None and s.searched.text != s.question.text,
    }


def _assemble(s: AskState) -> Attrs:
    if s.pack is None:
        return {}
    p = s.pack
    return {
        "fragments.direct": len(p.direct),
        "fragments.augmentation": len(p.augmentation),
        "fragments.graph": len(p.graph_neighbors),
        "conflicts": len(s.conflicts),
        "stale": len(s.stale),
        "pack.outcome": str(p.outcome),
    }


def _judge(s: AskState) -> Attrs:
    if s.verdict is None:
        return {}
    v = s.verdict
    kinds = sorted({r.kind for r in v.reasons})
    return {
        "status": str(v.status),
        "degradation": str(v.degradation),
        "gates": ",".join(kinds),
        "recoverable": v.recoverable,
        "wants_more": s.judge_wants_more,
    }


def _recover(s: AskState) -> Attrs:
    return {"revision": s.revision}


def _conditions(s: AskState) -> Attrs:
    return {"fragments": len(s.fragments), "dropped": len(s.dropped)}


def _compose(s: AskState) -> Attrs:
    if s.composed is None:
        return {}
    return {"chosen": len(s.composed.chosen), "ranked": len(s.composed.ranked)}


def _review(s: AskState) -> Attrs:
    if s.reviewed is None:
        return {}
    kept = sum(1 for c in s.reviewed.claims if c.kept)
    return {
        "claims.kept": kept,
        "claims.dropped": len(s.reviewed.claims) - kept,
        "citations": len(s.reviewed.citations),
    }


def _finish(s: AskState) -> Attrs:
    a = s.answer
    return {} if a is None else {"outcome": a.outcome, "degradation": a.degradation}


_COUNTS: dict[str, Callable[[AskState], Attrs]] = {
    "analyse": _analyse,
    "recall": _recall,
    "assemble": _assemble,
    "judge": _judge,
    "recover": _recover,
    "conditions": _conditions,
    "compose": _compose,
    "review": _review,
    "finish": _finish,
}


def _routes(s: AskState) -> tuple[RouteRecord, ...]:
    if s.recall is None:
        return ()
    return tuple(
        RouteRecord(
            str(d.route),
            float(d.ms),
            {"status": str(d.status), "candidates": d.candidates, "dropped": d.dropped},
        )
        for d in s.recall.diagnostics
    )


def step_records(state: AskState, run: Run) -> tuple[StepRecord, ...]:
    """One record per step that ran, in order (see the module docstring)."""
    out: list[StepRecord] = []
    start = 0.0
    for t in run.times:
        counts = _COUNTS.get(t.step)
        attrs = counts(state) if counts is not None else {}
        routes = _routes(state) if t.step == "recall" else ()
        out.append(StepRecord(t.step, start, t.ms, attrs, routes))
        start += t.ms
    return tuple(out)


def run_attributes(state: AskState, run: Run) -> Attrs:
    """The whole run: knowledge base, outcome, degradation, the step that answered."""
    a = run.answer
    return {
        "kb": a.kb,
        "outcome": a.outcome,
        "degradation": a.degradation,
        "ended_at": run.ended_at,
        "citations": len(a.citations),
        "revision": a.revision,
    }
