"""The steps of ``ask`` that choose what the answer may quote: conditions and compose.

``conditions`` keeps the fragments under the question's stated conditions (a condition
the evidence does not answer ends the ask), completes a how-to's procedure and reads a
relation question's documented edges. ``compose`` ends an insufficient ask (a passage
that answers by meaning, else a refusal naming the failing stage), hands a route's
question to its LLM writer, or composes the answer's units extractively.
"""

from __future__ import annotations

from dataclasses import replace

from citewise.analysis.conditions import ConditionSet
from citewise.answer.admission import admission, question_gate
from citewise.answer.composition.compose import compose_ranked
from citewise.answer.composition.procedure import complete_procedures
from citewise.answer.conditions import (
    ConditionOutcome,
    apply_conditions,
    best_excluded,
    fragments_under,
    heading_split,
)
from citewise.answer.failure import classify
from citewise.answer.finish import INSUFFICIENT, human_reason, refusal
from citewise.answer.meaning.answer import answer_by_meaning, rescued
from citewise.answer.models import Answer, AnswerTrace
from citewise.answer.relation.answer import (
    from_graph,
    relation_pass,
    relation_profile,
    relation_sufficiency,
)
from citewise.answer.relevance import dense_scorer
from citewise.answer.review import removed_orchestration
from citewise.answer.steps import sections
from citewise.answer.steps.evidence import gate_input
from citewise.answer.steps.state import AskState, Composed
from citewise.answer.units.cache import fragment_reader, units_of_fragments, version_units
from citewise.answer.units.context import document_facts, in_scope
from citewise.evidence.models import EvidencePack
from citewise.recall.identifiers import clause_refs
from citewise.sufficiency.answerability import answerable_min
from citewise.sufficiency.gates import procedure_mismatch
from citewise.sufficiency.models import Reason
from citewise.sufficiency.resolutions import awaits_review
from citewise.sufficiency.verdict import refused, with_reason


def conditions_step(s: AskState) -> AskState:
    """The fragments the answer may quote: current editions, under the stated conditions
    (none of which the evidence answers: the ask ends), a how-to's procedure completed,
    and a relation question's documented edges with the verdict they give."""
    q, pack, verdict = s.question, s.need(s.pack, "pack"), s.need(s.verdict, "verdict")
    trace = s.trace
    fragments = [f for f in (*pack.direct, *pack.augmentation) if f.path not in s.stale] or list(
        pack.direct
    )
    fragments, outside = in_scope(fragments, q.scope, document_facts(s.kb.index))
    if outside:  # no fragment is of the edition or file kind the question names
        return replace(s, answer=scope_answer(s, outside, pack, trace))
    fragments, dropped = fragments_under(fragments, q.conditions)
    if dropped:  # a section under another condition than the question states
        trace["conditions"] = sections.conditions(
            trace.get("conditions"), {"sections_excluded": dropped}
        )
        unanswered = best_excluded(pack.direct, fragments, q.conditions)
        if unanswered:
            applied = ConditionOutcome([], tuple(dropped), unanswered=unanswered)
            answer = condition_answer(s, q.conditions, applied, pack, trace)
            return replace(s, answer=answer)
    if q.intent.kind == "how_to" and verdict.status != "insufficient":
        before = len(fragments)
        reader, near = fragment_reader(s.kb, fragments)
        fragments = complete_procedures(
            fragments, lambda path, vid: reader.near(path, vid, near[(path, vid)])
        )
        trace["procedure_steps_added"] = len(fragments) - before
        mismatch = procedure_mismatch(q.intent, fragments)
        if mismatch:
            verdict = refused(mismatch)
            trace["sufficiency"] = verdict.to_json()
    recall = s.need(s.recall, "recall")
    found = relation_pass(s.kb, q, pack, recall.graph, s.filters)  # relation questions
    verdict = relation_sufficiency(found, verdict)
    profile = relation_profile(found, s.need(s.profile, "profile"))
    trace["sufficiency"] = verdict.to_json()
    return replace(
        s, fragments=fragments, dropped=dropped, found=found, verdict=verdict, profile=profile
    )


def compose_step(s: AskState) -> AskState:
    """An insufficient verdict ends the ask (:func:`_insufficient`); a route writes the
    answer when it may; else the extractive composer chooses the answer's units."""
    verdict = s.need(s.verdict, "verdict")
    if verdict.status == "insufficient":
        return replace(s, answer=_insufficient(s))
    written = _by_llm(s)
    if written is not None:
        return replace(s, answer=written)
    return _extractive(s)


def _insufficient(s: AskState) -> Answer:
    """A passage that answers by meaning what the words missed, unless a name, identifier
    or labelled number no document holds, or a stated condition, bars it; else the
    refusal, with the stage that failed."""
    q, pack, trace = s.question, s.need(s.pack, "pack"), s.trace
    verdict, profile = s.need(s.verdict, "verdict"), s.need(s.profile, "profile")
    if s.found is None and not awaits_review(verdict):  # a person must decide first
        barred = bool(s.unknown or profile.labels or q.conditions.conditions) or any(
            t.kind != "word" and t.df == 0 for t in profile.terms
        )  # a name, identifier or labelled number no document holds, or a stated
        # condition (answered per condition only): never overturned by meaning
        searched = s.need(s.searched, "searched")
        saved = rescued(s.kb, q, searched, s.fragments, verdict, barred, trace)
        if saved is not None:  # a passage answers by meaning what the words missed
            return answer_by_meaning(s.kb, q.intent.kind, pack, verdict, saved, s.conflicts, trace)
    failed = classify(s.kb, q, pack, s.recall, s.filters)
    if failed.reason is not None:
        verdict = with_reason(verdict, failed.reason)
        trace["sufficiency"] = verdict.to_json()
    missing = "; ".join(verdict.reason_texts)
    text = f"{INSUFFICIENT} ({human_reason(verdict)})"
    trace["failure_stage"] = failed.stage
    return refusal(
        pack, s.kb.name, q.intent.kind, verdict, text, failed.stage, trace | {"missing": missing}
    )


def _by_llm(s: AskState) -> Answer | None:
    """The LLM route's answer, when a route is open and may write it: never under stated
    conditions (the route's frozen evidence set carries no condition scopes yet) nor for
    a relation the graph answers. None: compose extractively."""
    q, pack, trace = s.question, s.need(s.pack, "pack"), s.trace
    split = heading_split([f.heading_path[-1] for f in pack.direct if f.heading_path], q.conditions)
    llm = s.llm
    if llm is not None and (q.conditions.conditions or s.dropped or split):
        # the route's frozen evidence set does not carry condition scopes yet: a question
        # under stated conditions is composed extractively, and the trace says why
        trace["llm_skipped"] = "conditions: the answer is composed per condition, extractively"
        llm = None
    if llm is None or from_graph(s.found, trace):
        return None
    return llm.answer(
        s.kb,
        question=q,
        g=gate_input(s, pack, s.conflicts, s.stale),
        suff=s.need(s.verdict, "verdict"),
        stale=s.stale,
        conflicts=s.conflicts,
        filters=s.filters,
        trace=trace,
    )


def _extractive(s: AskState) -> AskState:
    """The answer's units, chosen by the composer from the fragments (each admitted by
    the question's gate) and kept under the stated conditions (a condition they do not
    settle ends the ask)."""
    q, pack, trace, fragments = s.question, s.need(s.pack, "pack"), s.trace, s.fragments
    profile = s.need(s.profile, "profile")
    trace["removed_orchestration"] = sections.removed(removed_orchestration(fragments))
    unit_reader, unit_near = fragment_reader(s.kb, fragments)
    # a clause the question names ("What does clause 2.3 say?") is its answer, however
    # few of the question's words it holds; a misspelt word is missing from
    # every unit as the composer scores the question typed: no relevance floor then
    floor = 0.0 if clause_refs(q.text) or s.respelt else answerable_min()
    gate = question_gate(q, q.intent.kind, profile, floor)
    facts = document_facts(s.kb.index)
    units_of = units_of_fragments(version_units(s.kb.index, unit_reader, unit_near))
    answerable: dict[tuple[str, int, int], float] = {}  # filled by the admission
    chosen, ranked = compose_ranked(
        q,
        q.intent.kind,
        fragments,
        units_of=units_of,
        scorer=dense_scorer(s.kb.index),
        needed=profile.needed,
        admit=admission(gate, unit_reader, unit_near, facts, q.scope, answerable, asked=q),
        answerable=answerable,
    )
    if q.conditions.conditions or chosen:
        heads = [f.heading_path[-1] for f in pack.direct if f.heading_path]
        applied = apply_conditions(chosen, q.conditions, heads)
        if applied.excluded or applied.per_condition or applied.missing:
            trace["conditions"] = sections.conditions(trace.get("conditions"), applied.to_json())
        if applied.missing or (applied.excluded and not applied.kept):
            return replace(s, answer=condition_answer(s, q.conditions, applied, pack, trace))
        chosen = applied.kept
    trace["constraints"] = sections.constraints(gate.constraints)
    trace["unit_scores"] = [round(c.score, 3) for c in chosen]
    composed = Composed(
        chosen=chosen,
        ranked=ranked,
        gate=gate,
        units_of=units_of,
        reader=unit_reader,
        near=unit_near,
    )
    return replace(s, composed=composed)


def scope_answer(
    s: AskState, outside: tuple[str, ...], pack: EvidencePack, trace: AnswerTrace
) -> Answer:
    """No passage found stands in the edition or file the question names
    (:func:`citewise.answer.units.context.in_scope`): refused, naming it."""
    said = " and ".join(outside)
    reason = Reason("constraint_unmet", f"no passage found in {said}")
    verdict = refused(reason)
    trace["sufficiency"] = verdict.to_json()
    trace["missing"] = str(reason)
    text = f"{INSUFFICIENT} ({human_reason(verdict)})"
    return refusal(
        pack, s.kb.name, s.question.intent.kind, verdict, text, "context_assembly", trace
    )


def condition_answer(
    s: AskState,
    stated: ConditionSet,
    applied: ConditionOutcome,
    pack: EvidencePack,
    trace: AnswerTrace,
) -> Answer:
    """No answer under the question's conditions: the deciding condition is missing, or
    the stated one has no evidence (another condition's answer is never given as its)."""
    if applied.missing:
        kind = applied.missing
        values = ", ".join(applied.missing_values)
        reason = Reason("condition_missing", f" {kind}", (kind,))  # as the issue spells it
        text = (
            f"The answer depends on the {kind}, which the question does not state: the "
            f"documents answer differently for {values}. Ask again naming one."
        )
    else:
        said = "; ".join(c.text for c in stated.conditions if c.kind in applied.unanswered)
        covered = "; ".join(f"{k}: {', '.join(v)}" for k, v in applied.unanswered.items())
        reason = Reason("condition_unanswered", f" {said} (the documents cover {covered})")
        text = (
            f"The knowledge base holds no evidence for this {said}; the documents answer it "
            f"only for other conditions ({covered})."
        )
    verdict = refused(reason)
    trace["sufficiency"] = verdict.to_json()
    trace["missing"] = str(reason)
    return refusal(
        pack, s.kb.name, s.question.intent.kind, verdict, text, "context_assembly", trace
    )
