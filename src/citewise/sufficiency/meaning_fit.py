"""The meaning term of the answerability score, as a calibrated probability (issue 34).

An unanswerable question is most often answered by a unit on the right topic that holds
nearly all its words but does not state the asked slot for the asked subject or
qualifier: another entity, year or condition; a negated or hypothetical statement; a
neighbouring attribute. Word overlap (the relevance the score starts from) is high for
such a unit by construction. The cross-encoder reads question and unit together
(:mod:`citewise.answer.unit_meaning` gives its log-odds); :func:`meaning_probability`
turns the log-odds into the probability that the unit answers, by Platt scaling
``p = 1 / (1 + exp(-(SLOPE * logit + BIAS)))``, and :func:`meaning_factor` weighs the
unit's score by its odds against the prior: ``(1 - w) + w * min(1, p / PRIOR)`` with the
weight ``w`` of ``CITEWISE_ANSWERABLE_MEANING`` (0 turns the term off; no reading, None,
is factor 1). ``PRIOR`` is the share of right answers among the answered questions the
fit read: a unit read at least as likely to answer as an answer of the pool keeps its
score (the abstain threshold was set without this term), one read less likely loses the
share it falls short by (a unit that answers at ``p = 0.56`` keeps 92 % of its score;
multiplying by ``p`` itself lowered every answer, and refused right ones whose word
overlap was modest).
The factor rises with the log-odds and never exceeds 1: the term lowers a score, never
raises it. Pure but for reading the weight's variable.
"""

from __future__ import annotations

import math
import os

from citewise.errors import UsageError

__all__ = [
    "BIAS",
    "MEANING_WEIGHT",
    "PRIOR",
    "SLOPE",
    "meaning_factor",
    "meaning_probability",
    "meaning_weight",
]

#: Platt coefficients fitted by ``bench/answerability_fit.py`` on the development pool's
#: answered English questions of squad2 (pool sample, seed 34) and typer (right = 1,
#: overreach = 0; best quoted excerpt's log-odds), main at 2f20331, 2026-12-07: 44 right, 28
#: overreach; p = 0.5 at log-odds 4.57.
SLOPE = 0.2704
BIAS = -1.2348
#: The share of right answers among those rows (44 of 72).
PRIOR = 0.611
#: The term's default weight (``CITEWISE_ANSWERABLE_MEANING``): off. On squad2 and typer
#: the pool chooses 1 (overreach 51.9 -> 42.3 %, typer unchanged) but at 1 the left-out
#: documents corpus loses a right answer (dc-022) and a test-suite fixture its answer; at
#: 0.5 (one squad2 overreach refused) two test-suite fixtures still lose theirs (a
#: relation word from the subsection's introduction; an acronym's subject answering "how
#: long"), so by the project's rule the term is not yet progress (docs/benchmarks.md,
#: "Answerability by meaning"). ``CITEWISE_ANSWERABLE_MEANING=1`` turns it on.
MEANING_WEIGHT = 0.0
_ENV = "CITEWISE_ANSWERABLE_MEANING"


def meaning_weight() -> float:
    """The term's weight from ``CITEWISE_ANSWERABLE_MEANING`` (0..1), else the default;
    another value is a :class:`UsageError` naming the variable."""
    raw = os.environ.get(_ENV, "").strip()
    if not raw:
        return MEANING_WEIGHT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise UsageError(
            f"{_ENV}={raw!r} is not a number between 0 and 1.",
            hint=f"Set {_ENV} to a weight such as {MEANING_WEIGHT} (the default; 0 turns "
            "the meaning term off), or unset it.",
        )
    return value


def meaning_probability(logit: float) -> float:
    """The calibrated probability that a unit read at cross-encoder ``logit`` answers."""
    z = SLOPE * logit + BIAS
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def meaning_factor(logit: float | None, weight: float | None = None) -> float:
    """The factor on a unit's answerability: ``(1 - w) + w * min(1, p / PRIOR)`` (``w``
    the weight, ``p`` :func:`meaning_probability`); 1 when the unit was not read (None)."""
    if logit is None:
        return 1.0
    w = meaning_weight() if weight is None else weight
    return (1.0 - w) + w * min(1.0, meaning_probability(logit) / PRIOR)
