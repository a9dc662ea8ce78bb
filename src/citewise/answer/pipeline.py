"""``ask``: the one public answer. Intent, evidence, sufficiency (with at most one recovery
pass), conflicts and stale editions, extractive composition, release review, and a trace
that keeps what the answer hides.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from citewise.analysis.conditions import ConditionSet
from citewise.analysis.question import Question, analyse
from citewise.analysis.tokenize import tokenize
from citewise.answer.admission import admission, question_gate
from citewise.answer.citations import cite_claims
from citewise.answer.compose import compose_ranked
from citewise.answer.conditions import (
    ConditionOutcome,
    apply_conditions,
    best_excluded,
    fragments_under,
    heading_split,
)
from citewise.answer.coverage import with_coverage
from citewise.answer.failure import classify
from citewise.answer.finish import INSUFFICIENT, finish, human_reason, refusal
from citewise.answer.graph_answer import (
    from_graph,
    relation_claims,
    relation_pass,
    relation_profile,
    relation_sufficiency,
    relation_verdict,
    with_relations,
)
from citewise.answer.meaning import checked
from citewise.answer.meaning_answer import answer_by_meaning, judged, rescued
from citewise.answer.models import Answer, AnswerTrace, new_trace_id
from citewise.answer.procedure import complete_procedures
from citewise.answer.relevance import dense_scorer
from citewise.answer.review import release_review, removed_orchestration
from citewise.answer.unit_cache import fragment_reader, units_of_fragments, version_units
from citewise.core.search import SearchFilters
from citewise.evidence.assemble import assemble
from citewise.evidence.models import EvidenceConfig, EvidencePack
from citewise.index.ask_reads import ask_reads
from citewise.recall.identifiers import clause_refs
from citewise.recall.search import RecallSettings, search, search_summary
from citewise.sufficiency.conflicts_adapter import detect_conflicts, stale_paths
from citewise.sufficiency.descriptors import soften_descriptors
from citewise.sufficiency.floor import RELEVANCE_FLOOR
from citewise.sufficiency.gates import GateInput, procedure_mismatch, review
from citewise.sufficiency.models import Reason, Sufficiency
from citewise.sufficiency.named import absent_terms
from citewise.sufficiency.presence import weigh
from citewise.sufficiency.spelling import respelt_text

if TYPE_CHECKING:
    from citewise.answer.writer import LLMWriter
    from citewise.context import StageContext

NON_KB_REPLY = (
    "Hello! I answer questions from the documents in this knowledge base, and every "
    "sentence I give carries a citation you can check. Ask about a topic the documents "
    'cover, for example: "What is ...?" or "How do I ...?"'
)


@ask_reads()  # each version text an ask reads from the store is read once
def ask(
    kb: StageContext,
    question: str,
    *,
    filters: SearchFilters | None = None,
    llm: LLMWriter | None = None,
    conditions: ConditionSet | None = None,
    lineage: dict[str, str] | None = None,
    rewrite: Mapping[str, Any] | None = None,
    caller_lineage: dict[str, str] | None = None,
) -> Answer:
    """``llm`` is an LLM route's writer (the facade opens a named route before calling
    this; replay passes its recorded one); None keeps the extractive path.
    ``conditions`` are the caller's (or a conversation's) conditions, which those the
    question states override; ``lineage`` ids (conversation, turn, task, parent) are
    recorded as given, and ``caller_lineage`` (ids a caller sent that the server's
    overrode) apart from them."""
    llm_ctx = llm
    analysed = analyse(question, conditions)  # read once; every stage below takes it
    intent = analysed.intent
    trace: AnswerTrace = {"question": question, "intent": asdict(intent)}
    if analysed.conditions.conditions:
        trace["conditions"] = {"stated": analysed.conditions.to_json()}
    if lineage:
        trace["lineage"] = dict(sorted(lineage.items()))
    if rewrite:
        trace["rewrite"] = dict(rewrite)
    if caller_lineage:
        trace["caller_lineage"] = dict(sorted(caller_lineage.items()))
    who = filters.principal if filters else None
    index = kb.index
    index.sync()
    revision = index.visible_revision(who)  # numbered as this principal sees the KB
    if intent.kind == "non_kb":
        rid = _digest({"q": question.strip().lower(), "outcome": "non_kb_reply"})
        suff = Sufficiency(
            "sufficient", "none", (Reason("non_kb", "whitelisted greeting or help"),)
        )
        return Answer(
            outcome="non_kb_reply",
            answer=NON_KB_REPLY,
            citations=(),
            degradation="none",
            sufficiency=suff,
            replay_id=rid,
            trace_id=new_trace_id(),
            intent=intent.kind,
            kb=kb.name,
            revision=revision,
            trace=trace,
        )
    cfg = EvidenceConfig()
    profile = weigh(_without_conditions(analysed), kb.index, who)
    profile = soften_descriptors(question, profile)  # "the narrator": not the subject
    searched = respelt_text(question, profile)  # a typing slip searched as the KB spells it
    seen = analysed if searched == question else analyse(searched, conditions)
    if searched != question:
        trace["respelt"] = {t.surface: t.key for t in profile.terms if t.asked}
    recall = search(
        kb.index,
        searched,
        filters=filters,
        top_k=cfg.top_k,
        settings=RecallSettings(per_doc_cap=cfg.per_doc_cap),
        question=seen,
    )
    pack = assemble(kb, searched, filters=filters, config=cfg, search_result=recall, question=seen)
    trace["retrieval"] = search_summary(recall)
    conflicts = detect_conflicts(kb, analysed, pack, who, recall.hits)
    stale = stale_paths(kb, pack, who)
    unknown = _not_conditions(absent_terms(kb, analysed.named_terms, who), analysed.conditions)
    unknown = tuple(t for t in unknown if t not in profile.respelt)  # a KB word's slip
    trace["terms"] = [asdict(t) for t in profile.terms]
    suff = review(
        GateInput(
            question, intent, pack, len(conflicts), _stale_used(pack, stale), unknown, profile
        )
    )
    trace["recovery"] = None
    judge_wants_more = False
    if llm_ctx is not None and (suff.status == "borderline" or pack.profile == "deep"):
        gi = GateInput(
            question, intent, pack, len(conflicts), _stale_used(pack, stale), unknown, profile
        )
        verdict = llm_ctx.judge(kb, question, gi, intent.kind, filters)
        if verdict is not None:
            trace["llm_judge"] = verdict
            suff = replace(suff, reasons=(*suff.reasons, Reason.parse(str(verdict["reason"]))))
            judge_wants_more = verdict.get("verdict") == "insufficient"
    if suff.recoverable or judge_wants_more:
        # One extra assembly pass: read more of the documents. Never a loop.
        wider = EvidenceConfig(top_k=40, adjacent_window=8)
        second = assemble(
            kb, searched, filters=filters, config=wider, profile="deep", question=seen
        )
        conflicts2 = detect_conflicts(kb, analysed, second, who)
        stale2 = stale_paths(kb, second, who)
        again = review(
            GateInput(
                question,
                intent,
                second,
                len(conflicts2),
                _stale_used(second, stale2),
                unknown,
                profile,
            )
        )
        better = _rank(again) > _rank(suff)
        trace["recovery"] = {
            "attempted": True,
            "improved": better,
            "first": suff.to_json(),
            "second": again.to_json(),
        }
        if better:
            pack, suff, conflicts = second, again, conflicts2
            trace["retrieval"] = None  # the recovery pass ran its own, wider recall
    set_aside = tuple(p for p in stale_paths(kb, pack, who) if not _stale_used(pack, (p,)))
    if set_aside and suff.status != "insufficient":
        note = f"{', '.join(set_aside)} (superseded; current editions used)"
        suff = replace(suff, reasons=(*suff.reasons, Reason("stale_set_aside", note)))
    trace["pack"] = pack.to_json()
    trace["sufficiency"] = suff.to_json()
    trace["conflicts"] = [asdict(c) for c in conflicts]
    fragments = [f for f in (*pack.direct, *pack.augmentation) if f.path not in stale] or list(
        pack.direct
    )
    fragments, dropped = fragments_under(fragments, analysed.conditions)
    if dropped:  # a section under another condition than the question states
        trace["conditions"] = trace.get("conditions", {}) | {"sections_excluded": dropped}
        unanswered = best_excluded(pack.direct, fragments, analysed.conditions)
        if unanswered:
            applied = ConditionOutcome([], tuple(dropped), unanswered=unanswered)
            return _condition_answer(kb, analysed.conditions, applied, pack, intent.kind, trace)
    if intent.kind == "how_to" and suff.status != "insufficient":
        before = len(fragments)
        reader, near = fragment_reader(kb, fragments)
        fragments = complete_procedures(
            fragments, lambda path, vid: reader.near(path, vid, near[(path, vid)])
        )
        trace["procedure_steps_added"] = len(fragments) - before
        mismatch = procedure_mismatch(intent, fragments)
        if mismatch:
            suff = Sufficiency("insufficient", "insufficient_evidence", (mismatch,))
            trace["sufficiency"] = suff.to_json()
    found = relation_pass(kb, question, pack, recall.graph, filters)  # relation questions
    suff, profile = relation_sufficiency(found, suff), relation_profile(found, profile)
    trace["sufficiency"] = suff.to_json()
    if suff.status == "insufficient" and found is None:
        barred = bool(unknown or profile.labels or analysed.conditions.conditions) or any(
            t.kind != "word" and t.df == 0 for t in profile.terms
        )  # a name, identifier or labelled number no document holds, or a stated
        # condition (answered per condition only): never overturned by meaning
        saved = rescued(kb, question, searched, intent.kind, fragments, suff, barred, trace)
        if saved is not None:  # a passage answers by meaning what the words missed
            return answer_by_meaning(kb, intent.kind, pack, suff, saved, conflicts, trace)
    if suff.status == "insufficient":
        failed = classify(kb, question, pack, recall, filters)
        if failed.reason is not None:
            suff = replace(suff, reasons=(*suff.reasons, failed.reason))
            trace["sufficiency"] = suff.to_json()
        missing = "; ".join(suff.reason_texts)
        text = f"{INSUFFICIENT} ({human_reason(suff)})"
        trace["failure_stage"] = failed.stage
        return refusal(
            pack, kb.name, intent.kind, suff, text, failed.stage, trace | {"missing": missing}
        )
    split = heading_split(
        [f.heading_path[-1] for f in pack.direct if f.heading_path], analysed.conditions
    )
    if llm_ctx is not None and (analysed.conditions.conditions or dropped or split):
        # the route's frozen evidence set does not carry condition scopes yet: a question
        # under stated conditions is composed extractively, and the trace says why
        trace["llm_skipped"] = "conditions: the answer is composed per condition, extractively"
        llm_ctx = None
    if llm_ctx is not None and not from_graph(found, trace):
        gi = GateInput(
            question, intent, pack, len(conflicts), _stale_used(pack, stale), unknown, profile
        )
        generated = llm_ctx.answer(
            kb,
            question=question,
            g=gi,
            suff=suff,
            stale=stale,
            conflicts=conflicts,
            filters=filters,
            trace=trace,
        )
        if generated is not None:
            return generated
    trace["removed_orchestration"] = removed_orchestration(fragments)
    unit_reader, unit_near = fragment_reader(kb, fragments)
    # a clause the question names ("What does clause 2.3 say?") is its answer, however
    # few of the question's words it holds; a misspelt word (a typing slip) is missing from
    # every unit as the composer scores the question typed: no relevance floor then
    floor = 0.0 if clause_refs(question) or searched != question else RELEVANCE_FLOOR
    gate = question_gate(question, intent.kind, profile, floor)
    units_of = units_of_fragments(version_units(kb.index, unit_reader, unit_near))
    chosen, ranked = compose_ranked(
        question,
        intent.kind,
        fragments,
        units_of=units_of,
        scorer=dense_scorer(kb.index),
        needed=profile.needed,
        admit=admission(gate, unit_reader, unit_near),
    )
    if analysed.conditions.conditions or chosen:
        heads = [f.heading_path[-1] for f in pack.direct if f.heading_path]
        applied = apply_conditions(chosen, analysed.conditions, heads)
        if applied.excluded or applied.per_condition or applied.missing:
            trace["conditions"] = trace.get("conditions", {}) | applied.to_json()
        if applied.missing or (applied.excluded and not applied.kept):
            return _condition_answer(kb, analysed.conditions, applied, pack, intent.kind, trace)
        chosen = applied.kept
    trace["constraints"] = [asdict(c) for c in gate.constraints]
    trace["unit_scores"] = [round(c.score, 3) for c in chosen]
    best = max((c.score for c in chosen), default=0.0)
    if checked(question, intent.kind, bool(gate.constraints), best) and found is None and chosen:
        # the quoted units must answer by meaning, not only share the words (meaning.py);
        # a misspelt word is read as the knowledge base spells it
        chosen, why = judged(searched, question, chosen, ranked, trace, profile, units_of)
        if why is not None:
            suff = Sufficiency("insufficient", "insufficient_evidence", (why,))
            trace["sufficiency"] = suff.to_json()
            return finish(
                kb,
                intent.kind,
                pack,
                suff,
                [],
                [],
                trace,
                failed_why=human_reason(suff),
                profile=None,
            )
    suff, lacking = with_coverage(intent.kind, question, intent.subject, chosen, suff)
    if lacking:  # a required part of the profile is missing (answer/coverage.py)
        trace["profile_missing"] = lacking
    if not chosen and gate.failures and found is None:  # relation questions: graph verdict
        suff = Sufficiency("insufficient", "insufficient_evidence", (Reason.parse(gate.refusal()),))
        trace["sufficiency"] = suff.to_json()
        return finish(
            kb, intent.kind, pack, suff, [], [], trace, failed_why=human_reason(suff), profile=None
        )
    citations, claims = cite_claims(kb, with_relations(found, chosen), conflicts)
    claims = release_review(relation_claims(found, claims), citations)
    kept = [c for c in claims if c.kept]
    trace["claims"] = [c.to_json() for c in claims]
    suff, not_documented = relation_verdict(found, kept, citations, suff, trace)
    if not_documented:
        trace["failure_stage"] = "graph_evidence"
        text = f"{INSUFFICIENT} ({human_reason(suff)})"
        return refusal(pack, kb.name, intent.kind, suff, text, "graph_evidence", trace, claims)
    return finish(
        kb,
        intent.kind,
        pack,
        suff,
        claims,
        citations,
        trace,
        failed_why=None if kept else "no sentence passed review",
        profile=profile,
    )


def _without_conditions(q: Question) -> Question:
    """``q`` as the presence check reads it: a stated condition's words ("Linux" in
    "... on Linux?") are not the subject; the condition check answers for them."""
    if not q.conditions.conditions:
        return q
    words = {t for c in q.conditions.conditions for t in tokenize(c.text)}
    named = {w.lower() for c in q.conditions.conditions for w in (c.value, *c.text.split())}
    subject = tuple(t for t in q.intent.subject_terms if t not in words)
    return replace(
        q,
        intent=replace(q.intent, subject_terms=subject),
        named_terms=tuple(t for t in q.named_terms if t.lower() not in named),
    )


def _not_conditions(terms: tuple[str, ...], stated: ConditionSet) -> tuple[str, ...]:
    """Absent terms other than the words of a stated condition ("macOS" in "... on
    macOS?"): a condition no document names is answered by the condition check."""
    words = {w.lower() for c in stated.conditions for w in (c.value, *c.text.split())}
    return tuple(t for t in terms if t.lower() not in words)


def _condition_answer(
    kb: StageContext,
    stated: ConditionSet,
    applied: ConditionOutcome,
    pack: EvidencePack,
    intent: str,
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
    suff = Sufficiency("insufficient", "insufficient_evidence", (reason,))
    trace["sufficiency"] = suff.to_json()
    trace["missing"] = str(reason)
    return refusal(pack, kb.name, intent, suff, text, "context_assembly", trace)


def _stale_used(pack: EvidencePack, stale: tuple[str, ...]) -> tuple[str, ...]:
    """Stale editions count against the evidence only when no current direct evidence is
    left once they are set aside (they are then set aside from the answer)."""
    current = [f for f in pack.direct if f.path not in stale]
    return () if current else stale


def _rank(s: Sufficiency) -> int:
    return {"insufficient": 0, "borderline": 1, "sufficient": 2}[s.status]


def _digest(obj: object) -> str:
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:32]
