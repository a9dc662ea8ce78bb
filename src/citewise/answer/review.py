"""Release review: every answer sentence must be supported by the spans it cites.

A sentence is scored against the exact excerpts of its own citations
(:func:`citewise.answer.support.support_score`): ``unsupported`` sentences are dropped,
``weak`` ones are kept and flagged (the answer is then marked degraded by the caller), and
any sentence that leaks orchestration text, prompts, raw scores or internal ids, or that
still holds raw markup (a model may echo ``<img onerror=...>``), is dropped with its reason.
Notices (a conflict statement naming both cited values) are checked for their values only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from citewise.answer.clean import MARKUP, clean_sentence
from citewise.answer.composition.compose import fragment_spans
from citewise.answer.markup import prose_only
from citewise.answer.models import Citation, Claim
from citewise.answer.orchestration import orchestration_markers
from citewise.answer.support import support_score
from citewise.evidence.models import TRUNCATION_MARKER, Fragment

#: Why flagged sentences are removed (recorded with each removal in the trace).
REMOVED_WHY = "looks like orchestration: document text addressed to the answering system"


def release_review(claims: list[Claim], citations: list[Citation]) -> list[Claim]:
    out: list[Claim] = []
    for claim in claims:
        cited = [citations[n - 1].excerpt for n in claim.citations]
        markers = orchestration_markers(claim.text)
        if markers:
            why = f"orchestration text or internal id ({', '.join(markers)})"
            out.append(replace(claim, kept=False, verdict="unsupported", reason=why))
            continue
        if claim.verdict != "notice" and MARKUP.search(prose_only(claim.text)):
            out.append(replace(claim, kept=False, verdict="unsupported", reason="raw markup"))
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


def flagged_units(frag: Fragment) -> list[tuple[int, int, list[str], str]]:
    """Sentence units of ``frag`` that look like orchestration: ``(start, end, markers,
    text)`` with offsets into ``frag.text`` (also across a truncation marker)."""
    out: list[tuple[int, int, list[str], str]] = []
    head_len = (frag.head_end or frag.char_end) - frag.char_start
    for span in fragment_spans(frag):
        markers = orchestration_markers(clean_sentence(span.text))
        if not markers:
            continue
        if frag.truncated and frag.tail_start is not None and span.start >= frag.tail_start:
            start = head_len + len(TRUNCATION_MARKER) + (span.start - frag.tail_start)
        else:
            start = span.start - frag.char_start
        out.append((start, start + len(span.text), markers, span.text))
    return out


def removed_orchestration(fragments: list[Fragment]) -> list[dict[str, Any]]:
    """Trace entries for the sentences of ``fragments`` no answer may use as such: where
    each is (path, document offsets), which patterns it matched, and its text."""
    out: list[dict[str, Any]] = []
    for f in fragments:
        for span in fragment_spans(f):
            markers = orchestration_markers(clean_sentence(span.text))
            if markers:
                out.append(
                    {
                        "path": f.path,
                        "char_start": span.start,
                        "char_end": span.end,
                        "markers": markers,
                        "reason": REMOVED_WHY,
                        "text": span.text[:200],
                    }
                )
    return out
