"""The public answer from reviewed claims, shared by the extractive pipeline
(:mod:`citewise.answer.pipeline`) and the LLM writers (:mod:`citewise.llm.written`).

It sits below both, so the LLM route never imports the pipeline that calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from citewise.analysis.question import Question, analyse
from citewise.analysis.tokenize import tokenize
from citewise.answer.composition.coverage import NO_STEPS
from citewise.answer.copies import copies_note, with_conflict
from citewise.answer.degraded import degraded_stage
from citewise.answer.models import (
    Answer,
    AnswerTrace,
    Citation,
    Claim,
    FailureStage,
    new_trace_id,
)
from citewise.answer.table_rows import absent_row, asked_terms
from citewise.answer.units.context import document_contexts
from citewise.evidence.models import EvidencePack
from citewise.sufficiency.asked import asked_attribute, attribute_cited
from citewise.sufficiency.compounds import sibling_compound
from citewise.sufficiency.models import Reason, Sufficiency, TermProfile
from citewise.sufficiency.presence import ABSENT_ZIPF, english_zipf, judge
from citewise.sufficiency.verdict import as_refusal, partial, refused, restated

if TYPE_CHECKING:
    from citewise.context import StageContext

INSUFFICIENT = "The knowledge base does not hold enough evidence to answer this question."


def finish(
    kb: StageContext,
    intent: str,
    pack: EvidencePack,
    suff: Sufficiency,
    claims: list[Claim],
    citations: list[Citation],
    trace: AnswerTrace,
    *,
    failed_why: str | None,
    profile: TermProfile | None = None,
) -> Answer:
    """The public answer from reviewed claims (shared by the extractive and LLM writers):
    citations renumbered in order of use, or ``insufficient_evidence`` when the review
    left nothing (``failed_why``) or when the text actually cited lacks the question's
    distinctive terms (``profile``; some missing words make the answer partial)."""
    kept = [c for c in claims if c.kept]
    why = _near_miss(pack, kept, citations, profile) if failed_why is None and kept else None
    if why is not None:
        suff, failed_why = _insufficient((why,), trace)
    if failed_why is None and kept:
        suff = _truthful(suff, _cited_texts(pack, kept, citations))
    if failed_why is None and profile is not None and profile.checks:
        where = document_contexts(kb.index, (c.path for c in citations)).values()
        suff, failed_why = _cited_presence(
            intent, pack, kept, citations, profile, suff, trace, list(where)
        )
    if failed_why is not None:
        trace["failure_stage"] = "citation_verification"
        return refusal(
            pack,
            kb.name,
            intent,
            as_refusal(suff),
            f"{INSUFFICIENT} ({failed_why})",
            "citation_verification",
            trace,
            claims,
        )
    return _answered(kb, intent, pack, suff, claims, kept, citations, trace)


def _near_miss(
    pack: EvidencePack, kept: list[Claim], citations: list[Citation], profile: TermProfile | None
) -> Reason | None:
    """Why the cited text answers a question next to the asked one: it speaks of a sibling
    compound of the asked one, it does not say which asked attribute it
    gives, or it is all table content without the asked row."""
    query = pack.question or analyse(pack.query)  # a pack built outside assemble: read here
    sibling = sibling_compound(query, _cited_texts(pack, kept, citations))
    attribute = asked_attribute(query)
    if sibling is not None:
        said = f"the cited text speaks of '{sibling.cited}', not '{sibling.asked}'"
        return Reason("near_miss", said)
    if attribute and not attribute_cited(attribute, _cited_texts(pack, kept, citations)):
        return Reason("near_miss", f"the cited text does not say which {attribute} is asked for")
    return _row_reason(query, profile, [c.text for c in kept])


def _insufficient(reasons: tuple[Reason, ...], trace: AnswerTrace) -> tuple[Sufficiency, str]:
    """The insufficient verdict for ``reasons``, written to the trace, and its first reason
    in words."""
    suff = refused(*reasons)
    trace["sufficiency"] = suff.to_json()
    return suff, human_reason(suff)


def _cited_presence(
    intent: str,
    pack: EvidencePack,
    kept: list[Claim],
    citations: list[Citation],
    profile: TermProfile,
    suff: Sufficiency,
    trace: AnswerTrace,
    where: list[str] | None = None,
) -> tuple[Sufficiency, str | None]:
    """The question's distinctive terms judged on the text actually cited with the
    context of its documents (``where``: title, path, kind, edition, date), traced as
    ``cited_presence``: the verdict and why it fails (``None`` when it stands)."""
    texts = _cited_texts(pack, kept, citations) + (where or [])
    cited = judge(profile, texts, cited=True)
    trace["cited_presence"] = cited.to_json()
    beside = _beside(profile, texts) if _no_steps(intent, suff) else ()
    if beside:
        # no step of the procedure, and the cited text misses part of what is asked:
        # the passages are about something next to the question, not an answer to it
        why = Reason(
            "partial_coverage", "the cited text does not mention: " + ", ".join(beside), beside
        )
        return _insufficient((why,), trace)
    if cited.verdict == "absent" and cited.reason is not None:
        return _insufficient((cited.reason,), trace)
    if (
        cited.verdict == "partial"
        and cited.reason is not None
        and not _already_partial(suff, cited.missing)
    ):
        suff = partial(suff, cited.reason)
    return suff, None


def _answered(
    kb: StageContext,
    intent: str,
    pack: EvidencePack,
    suff: Sufficiency,
    claims: list[Claim],
    kept: list[Claim],
    citations: list[Citation],
    trace: AnswerTrace,
) -> Answer:
    """The answer from the kept claims, their citations renumbered in order of use; partial
    when the review dropped a claim or the verdict was borderline."""
    used = sorted({n for c in kept for n in c.citations})
    renumber = {old: new for new, old in enumerate(used, start=1)}
    final_cites = tuple(replace(citations[n - 1], number=renumber[n]) for n in used)
    text = _render(
        intent, [replace(c, citations=tuple(renumber[n] for n in c.citations)) for c in kept]
    )
    note = copies_note(pack, (c.path for c in final_cites))  # identical documents answer once
    text = f"{text} {note}" if note else text
    suff = with_conflict(suff, kept)  # a cited disagreement is never answered as clean
    degradation = suff.degradation
    if len(kept) < len([c for c in claims if c.verdict != "notice"]) and degradation == "none":
        degradation = "partial_coverage"
    if suff.status == "borderline" and degradation == "none":
        degradation = "partial_coverage"  # a borderline answer says so in the field
    routes = (trace.get("retrieval") or {}).get("diagnostics") or ()
    stage = degraded_stage(degradation, routes)  # issue 38: a degraded answer names its stage
    if stage is not None:
        trace["failure_stage"] = stage
    return Answer(
        outcome="answered",
        answer=text,
        citations=final_cites,
        degradation=degradation,
        sufficiency=suff,
        replay_id=pack.replay_id,
        trace_id=new_trace_id(),
        intent=intent,
        kb=kb.name,
        revision=pack.revision,
        claims=tuple(claims),
        failure_stage=stage,
        trace=trace,
    )


def refusal(
    pack: EvidencePack,
    kb: str,
    intent: str,
    suff: Sufficiency,
    text: str,
    stage: FailureStage,
    trace: AnswerTrace,
    claims: Sequence[Claim] = (),
) -> Answer:
    """The ``insufficient_evidence`` answer: ``text`` and no citations, with the pack's
    replay id and the failure stage (one shape for every refusal of the pipeline)."""
    return Answer(
        outcome="insufficient_evidence",
        answer=text,
        citations=(),
        degradation="insufficient_evidence",
        sufficiency=suff,
        replay_id=pack.replay_id,
        trace_id=new_trace_id(),
        intent=intent,
        kb=kb,
        revision=pack.revision,
        claims=tuple(claims),
        failure_stage=stage,
        trace=trace,
    )


def _no_steps(intent: str, suff: Sufficiency) -> bool:
    """A how-to answer whose evidence gives no steps (:data:`coverage.NO_STEPS`)."""
    return intent == "how_to" and any(
        r.kind == "partial_coverage" and NO_STEPS in (r.detail or "") for r in suff.reasons
    )


def _truthful(suff: Sufficiency, texts: list[str]) -> Sufficiency:
    """``suff`` without the evidence gate's "not found: X" reasons whose words the cited
    text does hold (a table's header row the gate read without: "not found: calories"
    under an answer showing "Calories per portion"); a reason must be true of the answer."""
    held: set[str] = set()
    for t in texts:
        held.update(tokenize(t))

    def untrue(r: Reason) -> bool:
        return (
            r.kind == "partial_coverage"
            and bool(r.words)
            and all(k in held for w in r.words for k in tokenize(w))
        )

    kept = tuple(r for r in suff.reasons if not untrue(r))
    if len(kept) == len(suff.reasons):
        return suff
    still = any(r.kind == "partial_coverage" for r in kept)
    degradation = (
        "none" if suff.degradation == "partial_coverage" and not still else suff.degradation
    )
    # borderline for that reason alone: nothing is left that makes the answer borderline
    status = "sufficient" if suff.status == "borderline" and not kept else suff.status
    return restated(suff, status, degradation, kept)


def _beside(profile: TermProfile, texts: list[str]) -> tuple[str, ...]:
    """The question's content words (known to the knowledge base, not function words) that
    ``texts`` do not hold: what a how-to without steps was asked about and does not cite."""
    held: set[str] = set()
    for t in texts:
        held.update(tokenize(t))
    return tuple(
        t.surface
        for t in profile.terms
        if t.key not in held and t.df > 0 and not t.soft and english_zipf(t.surface) < ABSENT_ZIPF
    )


def _row_reason(
    question: Question, profile: TermProfile | None, claims: list[str]
) -> Reason | None:
    """``subject_missing`` when the answer is all table content without the asked row
    (:func:`citewise.answer.table_rows.absent_row`)."""
    if profile is not None and profile.terms:
        asked = [(t.key, t.surface) for t in profile.terms]
    else:
        asked = asked_terms(question)
    asked = [(k, w) for k, w in asked if english_zipf(w) < ABSENT_ZIPF]  # not "have", "many"
    missing = absent_row(asked, claims)
    if not missing:
        return None
    return Reason("subject_missing", ", ".join(missing), missing)


def _already_partial(suff: Sufficiency, words: tuple[str, ...]) -> bool:
    """Whether an earlier partial-coverage reason already names every one of ``words``."""
    earlier = [
        str(r) for r in suff.reasons if r.kind == "partial_coverage" and r.detail is not None
    ]
    return any(all(w in r for w in words) for r in earlier)


def _cited_texts(pack: EvidencePack, kept: list[Claim], citations: list[Citation]) -> list[str]:
    """The excerpts the kept claims cite, and the heading paths of the pack fragments they
    sit in (a heading names what "this option" in a cited sentence is)."""
    used = [citations[n - 1] for c in kept for n in c.citations]
    texts = [c.excerpt for c in used]
    for c in used:
        texts += [
            " ".join(f.heading_path)
            for f in pack.fragments
            if f.doc_id == c.doc_id and f.char_start < c.char_end and c.char_start < f.char_end
        ][:1]
    return texts


def human_reason(s: Sufficiency) -> str:
    """The first reason of ``s`` in words, for the answer text."""
    first = s.reasons[0] if s.reasons else Reason("no evidence")
    gate, detail = first.kind, first.detail or ""
    if gate == "subject_absent":
        return f"the documents do not mention: {detail}"
    if gate == "subject_missing":
        return f"the passages found do not mention: {detail}"
    if gate in ("near_miss", "constraint_unmet"):
        return detail
    if gate == "no_direct_evidence":
        return f"nothing relevant was found: {detail}"
    return f"{gate.replace('_', ' ')}: {detail}" if detail else gate.replace("_", " ")


def _render(intent: str, claims: list[Claim]) -> str:
    """Claims with their citation marks (at the end of a claim's first line, so a quoted
    code block stays a valid fence); a how-to as a list, other answers as running text, or
    one claim per line when any claim spans several lines."""
    parts = []
    for c in claims:
        marks = "".join(f"[{n}]" for n in c.citations)
        first, nl, rest = c.text.partition("\n")
        parts.append(f"{first} {marks}{nl}{rest}")
    if intent == "how_to":
        return "\n".join("- " + p.replace("\n", "\n  ") for p in parts)
    if any("\n" in p for p in parts):
        return "\n".join(parts)
    return " ".join(parts)
