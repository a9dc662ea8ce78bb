"""The parts of a how-to or causal answer that are easy to lose: failure handling that
follows a procedure ("If the upgrade fails, run ... to roll back") and the consequence of
a cause ("As a result, ..."). Cues and the pure selection of failure handling; the
profiles (:mod:`citewise.answer.profiles`) keep them, :mod:`citewise.answer.coverage`
reports them missing when the question asks for them."""

from __future__ import annotations

import re

from citewise.answer.candidate import Candidate, inside

__all__ = ["CONSEQUENCE", "FAILURE", "FAILURE_UNITS", "SIDE_PROCEDURE", "failure_handling"]

#: A section or question about a side procedure (rolling back, reverting, troubleshooting).
SIDE_PROCEDURE = re.compile(r"roll(?:ing)? ?back|revert|undo|troubleshoot|回滚|撤销", re.I)
#: Failure handling: what to do when the procedure fails, or how to undo it.
FAILURE = re.compile(
    r"\bif\b[^.。]{0,80}?\b(?:fails?|failed|misbehaves|breaks|does not (?:start|work))\b|"
    r"\broll(?:ing|s)? ?back\b|\brevert\b|\bundo\b|\brestore the previous\b|"
    r"失败|回滚|回退|撤销",
    re.I,
)
#: A consequence: what a cause leads to ("As a result, ...", "..., so the batch is lost").
CONSEQUENCE = re.compile(
    r"\b(?:as a result|consequently|therefore|thus|so that|leads? to|led to|results? in|"
    r"which means|otherwise)\b|导致|因此|所以|结果|从而|以致|后果",
    re.I,
)

#: At most this many units of failure handling follow a how-to's steps.
FAILURE_UNITS = 2


def failure_handling(
    question: str, same_doc: list[Candidate], steps: list[Candidate], taken: list[Candidate]
) -> list[Candidate]:
    """What the document says to do when the procedure fails, or how to undo it ("If the
    upgrade fails, run ... to roll back"): units after the first step, in the procedure's
    own section or in a rollback/failure section, in document order. Kept with the steps
    (a how-to answer that drops its rollback line is incomplete); none when the question
    asks for the rollback itself (its steps are then the procedure)."""
    if not steps or (SIDE_PROCEDURE.search(question) and SIDE_PROCEDURE.search(steps[0].section)):
        return []
    first = min(c.span.start for c in steps)
    here = {c.section for c in steps}
    found = [
        c
        for c in same_doc
        if c not in steps + taken
        and c.span.start > first
        and c.kind not in ("table", "code")
        and FAILURE.search(c.clean)
        and (c.section in here or FAILURE.search(c.section) or SIDE_PROCEDURE.search(c.section))
    ]
    found = [c for c in found if not any(inside(c, o) for o in found)]
    return sorted(found, key=lambda c: c.span.start)[:FAILURE_UNITS]
