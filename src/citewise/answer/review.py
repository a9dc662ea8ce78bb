"""Release review: every answer sentence must be supported by the spans it cites.

A sentence is scored against the exact excerpts of its own citations
(:func:`citewise.answer.support.support_score`): ``unsupported`` sentences are dropped,
``weak`` ones are kept and flagged (the answer is then marked degraded by the caller), and
any sentence that leaks orchestration text, prompts, raw scores or internal ids is dropped.
Notices (a conflict statement naming both cited values) are checked for their values only.
"""

from __future__ import annotations

from dataclasses import replace

from citewise.answer.models import Citation, Claim
from citewise.answer.support import contains_orchestration, support_score


def release_review(claims: list[Claim], citations: list[Citation]) -> list[Claim]:
    out: list[Claim] = []
    for claim in claims:
        cited = [citations[n - 1].excerpt for n in claim.citations]
        if contains_orchestration(claim.text):
            out.append(
                replace(
                    claim,
                    kept=False,
                    verdict="unsupported",
                    reason="orchestration text or internal id",
                )
            )
            continue
        if not cited:
            out.append(replace(claim, kept=False, verdict="unsupported", reason="no citation"))
            continue
        if claim.verdict == "notice":
            # A notice is system wording built from exact spans (one per side); what must
            # hold is that it cites every side it names.
            ok = len(cited) >= 2 and all(cited)
            reason = claim.reason if ok else "notice without both sides"
            out.append(replace(claim, support=1.0 if ok else 0.0, kept=ok, reason=reason))
            continue
        score = support_score(claim.text, cited)
        kept = score.verdict != "unsupported"
        missing = ", ".join((*score.missing_literals, *score.missing_terms)[:5])
        out.append(
            replace(
                claim,
                support=round(score.score, 3),
                verdict=score.verdict,
                kept=kept,
                reason="" if kept else f"missing: {missing}",
            )
        )
    return out
