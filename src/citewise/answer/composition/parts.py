"""The parts of a how-to or causal answer that are easy to lose: failure handling that
follows a procedure ("If the upgrade fails, run ... to roll back") and the consequence of
a cause ("As a result, ..."). Cues and the pure selection of failure handling; the
profiles (:mod:`citewise.answer.composition.profiles`) keep them,
:mod:`citewise.answer.composition.coverage`
reports them missing when the question asks for them."""

from __future__ import annotations

import re

from citewise.analysis.question import Question
from citewise.answer.candidate import Candidate, inside

__all__ = [
    "CONSEQUENCE",
    "FAILURE",
    "FAILURE_UNITS",
    "MECHANISM",
    "SIDE_PROCEDURE",
    "failure_handling",
    "paired",
]

#: A section or question about a side procedure (rolling back, reverting, troubleshooting).
SIDE_PROCEDURE = re.compile(r"roll(?:ing)? ?back|revert|undo|troubleshoot|回滚|撤销", re.I)
#: Failure handling: what to do when the procedure fails, or how to undo it.
FAILURE = re.compile(
    r"\bif\b[^.。]{0,80}?\b(?:fails?|failed|misbehaves|breaks|does not (?:start|work))\b|"
    r"\broll(?:ing|s)? ?back\b|\brevert\b|\bundo\b|\brestore the previous\b|"
    r"失败|回滚|回退|撤销",
    re.I,
)
#: A mechanism or reason: a causal word, a purpose ("to prevent ...") or the condition
#: something depends on ("only available if ..."). Broader than the profiles' ``CAUSAL``
#: (which ranks units): this one only tells whether an answer says why.
MECHANISM = re.compile(
    r"\b(?:because|since|due to|caused by|causes?|leads? to|results? in|triggers?|"
    r"to (?:prevent|avoid|ensure|protect|keep)|in order to|so that|otherwise|unless|"
    r"only (?:\w+ )?(?:if|when|after|while))\b|因为|由于|导致|造成|引起|为了|以免|只有",
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
    question: Question, same_doc: list[Candidate], steps: list[Candidate], taken: list[Candidate]
) -> list[Candidate]:
    """What the document says to do when the procedure fails, or how to undo it ("If the
    upgrade fails, run ... to roll back"): units after the first step, in the procedure's
    own section or in a rollback/failure section, in document order. Kept with the steps
    (a how-to answer that drops its rollback line is incomplete); none when the question
    asks for the rollback itself (its steps are then the procedure)."""
    if not steps or (
        SIDE_PROCEDURE.search(question.text) and SIDE_PROCEDURE.search(steps[0].section)
    ):
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


#: A consequence sentence opens with its connective ("As a result, ...", "因此，...").
_CONSEQUENCE_OPENER = re.compile(
    r"^\W*(?:as a result|consequently|therefore|thus|hence|so\b|this (?:leads to|means|"
    r"causes|results in))|^\W*(?:因此|所以|结果|从而|于是)",
    re.I,
)
#: How far (characters) the paired unit may be from the unit it completes.
PAIR_GAP = 400


def paired(chosen: list[Candidate], pool: list[Candidate]) -> list[Candidate]:
    """The unit that completes a causal answer: when ``chosen`` states a mechanism but no
    consequence, the consequence that follows it closely in its section and opens with its
    connective ("As a result, the motor shuts down ..."); when it states a consequence but
    no mechanism, the causal sentence just before it. At most one unit; none when
    ``chosen`` states neither (nothing to pair with)."""
    mech = [c for c in chosen if MECHANISM.search(c.clean)]
    cons = [c for c in chosen if CONSEQUENCE.search(c.clean)]
    if (mech and cons) or not (mech or cons):
        return []

    def near(c: Candidate, o: Candidate, after: bool) -> bool:
        gap = c.span.start - o.span.end if after else o.span.start - c.span.end
        return (
            c.fragment.doc_id == o.fragment.doc_id
            and c.section == o.section
            and 0 <= gap <= PAIR_GAP
        )

    free = [
        c for c in pool if c not in chosen and not any(inside(c, o) or inside(o, c) for o in chosen)
    ]
    if mech:
        found = [
            c
            for c in free
            if _CONSEQUENCE_OPENER.search(c.clean) and any(near(c, m, True) for m in mech)
        ]
    else:
        found = [
            c for c in free if MECHANISM.search(c.clean) and any(near(c, k, False) for k in cons)
        ]
    return sorted(found, key=lambda c: c.span.start)[:1]
