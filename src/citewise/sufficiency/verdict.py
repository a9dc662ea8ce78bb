"""Every verdict the answer path reaches after the gates' review, built here.

The review (:func:`citewise.sufficiency.gates.review`) gives the first verdict; a later
check that refuses the answer, adds a reason or lowers its degradation asks for the new
verdict by name, so a ``Sufficiency`` is constructed only inside this package.
"""

from __future__ import annotations

from dataclasses import replace

from citewise.sufficiency.models import Degradation, Reason, Status, Sufficiency

__all__ = [
    "as_refusal",
    "degraded",
    "greeting",
    "partial",
    "ranked_higher",
    "refused",
    "relation_documented",
    "restated",
    "unchecked_by_words",
    "with_reason",
]

_RANK = {"insufficient": 0, "borderline": 1, "sufficient": 2}


def greeting() -> Sufficiency:
    """A whitelisted greeting or help request: answered without evidence."""
    return Sufficiency("sufficient", "none", (Reason("non_kb", "whitelisted greeting or help"),))


def refused(*reasons: Reason) -> Sufficiency:
    """Not enough evidence, for ``reasons`` (a check after the review refuses)."""
    return Sufficiency("insufficient", "insufficient_evidence", reasons)


def as_refusal(suff: Sufficiency) -> Sufficiency:
    """``suff`` with its reasons kept, turned into a refusal (nothing survived a later
    check, such as citation verification)."""
    return replace(suff, status="insufficient", degradation="insufficient_evidence")


def with_reason(suff: Sufficiency, reason: Reason) -> Sufficiency:
    """``suff`` with one more reason, its status and degradation unchanged."""
    return replace(suff, reasons=(*suff.reasons, reason))


def degraded(suff: Sufficiency, degradation: Degradation, reason: Reason) -> Sufficiency:
    """``suff`` at ``degradation`` with one more reason."""
    return replace(suff, degradation=degradation, reasons=(*suff.reasons, reason))


def partial(suff: Sufficiency, reason: Reason) -> Sufficiency:
    """``suff`` with one more reason, at least ``partial_coverage`` (a worse degradation
    it already has stays)."""
    worst: Degradation = "partial_coverage" if suff.degradation == "none" else suff.degradation
    return degraded(suff, worst, reason)


def restated(
    suff: Sufficiency, status: Status, degradation: Degradation, reasons: tuple[Reason, ...]
) -> Sufficiency:
    """``suff`` as a later check restates it (its status, degradation and reasons)."""
    return replace(suff, status=status, degradation=degradation, reasons=reasons)


def unchecked_by_words(refusal: Sufficiency, why: Reason) -> Sufficiency:
    """A word-presence refusal overturned by meaning: a partial answer that keeps the
    refusal's reasons and says why it was answered."""
    return Sufficiency("borderline", "partial_coverage", (*refusal.reasons, why))


def relation_documented(told: str, suff: Sufficiency) -> Sufficiency:
    """A relation the graph documents: sufficient, with the review's reasons after it."""
    return Sufficiency("sufficient", "none", (Reason("graph_relation", told), *suff.reasons))


def ranked_higher(a: Sufficiency, b: Sufficiency) -> bool:
    """True when ``a``'s status is better than ``b``'s (insufficient < borderline <
    sufficient); degradation and reasons do not count."""
    return _RANK[a.status] > _RANK[b.status]
