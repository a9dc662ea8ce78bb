"""The evidence steps of ``ask``: analyse, recall, assemble, judge and recover.

They read the question once analysed, search, assemble the evidence pack, review it (the
gates and, on an LLM route, the model's judge) and at most once read more of the
documents when the review says more would help. Each writes its trace sections in the
order the trace keeps them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace

from citewise.analysis.conditions import ConditionSet
from citewise.analysis.question import Question, analyse
from citewise.analysis.tokenize import tokenize
from citewise.answer.models import Answer, RecoveryTrace, new_trace_id
from citewise.answer.steps import sections
from citewise.answer.steps.state import AskState
from citewise.answer.units.context import document_contexts
from citewise.evidence.assemble import assemble
from citewise.evidence.models import EvidenceConfig, EvidencePack
from citewise.recall.search import RecallSettings, search, search_summary
from citewise.sufficiency.conflicts_adapter import detect_conflicts, stale_paths
from citewise.sufficiency.descriptors import soften_descriptors
from citewise.sufficiency.gates import GateInput, review
from citewise.sufficiency.models import ConflictNote, Reason, Sufficiency
from citewise.sufficiency.named import absent_terms
from citewise.sufficiency.presence import weigh
from citewise.sufficiency.resolutions import (
    awaiting_review,
    settle,
    with_conflict_sides,
    without_overruled,
)
from citewise.sufficiency.spelling import respelt_text
from citewise.sufficiency.verdict import greeting, ranked_higher, with_reason

NON_KB_REPLY = (
    "Hello! I answer questions from the documents in this knowledge base, and every "
    "sentence I give carries a citation you can check. Ask about a topic the documents "
    'cover, for example: "What is ...?" or "How do I ...?"'
)
#: The evidence budget of the first assembly, and of the one recovery pass (deeper).
FIRST = EvidenceConfig()
WIDER = EvidenceConfig(top_k=40, adjacent_window=8)


def analyse_step(s: AskState) -> AskState:
    """The trace's header (the question, its intent and stated conditions, the caller's
    lineage and rewrite), the revision as the principal sees the KB, and the fixed reply
    to a greeting or help request."""
    q = s.question
    trace = s.trace
    trace["question"] = q.text
    trace["intent"] = sections.intent(q)
    if q.conditions.conditions:
        trace["conditions"] = sections.stated(q)
    if s.lineage:
        trace["lineage"] = dict(sorted(s.lineage.items()))
    if s.rewrite:
        trace["rewrite"] = sections.rewrite(s.rewrite)
    if s.caller_lineage:
        trace["caller_lineage"] = dict(sorted(s.caller_lineage.items()))
    index = s.kb.index
    index.sync()
    revision = index.visible_revision(s.who)  # numbered as this principal sees the KB
    if q.intent.kind != "non_kb":
        return replace(s, revision=revision)
    rid = _digest({"q": q.text.strip().lower(), "outcome": "non_kb_reply"})
    answer = Answer(
        outcome="non_kb_reply",
        answer=NON_KB_REPLY,
        citations=(),
        degradation="none",
        sufficiency=greeting(),
        replay_id=rid,
        trace_id=new_trace_id(),
        intent=q.intent.kind,
        kb=s.kb.name,
        revision=revision,
        trace=trace,
    )
    return replace(s, revision=revision, answer=answer)


def recall_step(s: AskState) -> AskState:
    """The question's weighed terms, a slip respelt as the knowledge base spells it, and
    the recall of the question as searched."""
    q = s.question
    profile = weigh(_without_conditions(q), s.kb.index, s.who)
    profile = soften_descriptors(q, profile)  # "the diarist": not the subject
    text = respelt_text(q, profile)  # a typing slip searched as the KB spells it
    searched = q if text == q.text else analyse(text, s.given_conditions)
    if text != q.text:
        s.trace["respelt"] = {t.surface: t.key for t in profile.terms if t.asked}
    recall = search(
        s.kb.index,
        text,
        filters=s.filters,
        top_k=FIRST.top_k,
        settings=RecallSettings(per_doc_cap=FIRST.per_doc_cap),
        question=searched,
    )
    return replace(s, profile=profile, searched=searched, recall=recall)


def assemble_step(s: AskState) -> AskState:
    """The evidence pack of the recall, its conflicts and stale editions, and the named
    terms no document the principal may read holds."""
    q, searched = s.question, s.need(s.searched, "searched")
    recall, profile = s.need(s.recall, "recall"), s.need(s.profile, "profile")
    pack = assemble(
        s.kb,
        searched.text,
        filters=s.filters,
        config=FIRST,
        search_result=recall,
        question=searched,
    )
    s.trace["retrieval"] = sections.retrieval(search_summary(recall))
    conflicts, pack = settled(s, detect_conflicts(s.kb, q, pack, s.who, recall.hits), pack)
    stale = stale_paths(s.kb, pack, s.who)
    unknown = _not_conditions(absent_terms(s.kb, q.named_terms, s.who), q.conditions)
    unknown = tuple(t for t in unknown if t not in profile.respelt)  # a slip read as the KB's word
    s.trace["terms"] = sections.terms(profile.terms)
    return replace(s, pack=pack, conflicts=conflicts, stale=stale, unknown=unknown)


def judge_step(s: AskState) -> AskState:
    """The gates' review of the pack; on an LLM route, the model's judge of a borderline
    or deep pack (its reason joins the verdict; "insufficient" asks for a recovery)."""
    pack = s.need(s.pack, "pack")
    verdict = review(gate_input(s, pack, s.conflicts, s.stale))
    s.trace["recovery"] = None
    if s.llm is None or not (verdict.status == "borderline" or pack.profile == "deep"):
        return replace(s, verdict=verdict)
    gi = gate_input(s, pack, s.conflicts, s.stale)
    judged = s.llm.judge(s.kb, s.question, gi, s.question.intent.kind, s.filters)
    if judged is None:
        return replace(s, verdict=verdict)
    s.trace["llm_judge"] = judged
    verdict = with_reason(verdict, Reason.parse(str(judged["reason"])))
    return replace(s, verdict=verdict, judge_wants_more=judged.get("verdict") == "insufficient")


def recover_step(s: AskState) -> AskState:
    """One extra, wider assembly when the review (or the judge) says more text would
    help, kept when its verdict ranks higher; never a loop. Then the stale editions set
    aside, and the pack, verdict and conflicts in the trace."""
    verdict = s.need(s.verdict, "verdict")
    if verdict.recoverable or s.judge_wants_more:
        s = _second_pass(s, verdict)
    pack, verdict = s.need(s.pack, "pack"), s.need(s.verdict, "verdict")
    set_aside = tuple(p for p in stale_paths(s.kb, pack, s.who) if not stale_used(pack, (p,)))
    if set_aside and verdict.status != "insufficient":
        note = f"{', '.join(set_aside)} (superseded; current editions used)"
        verdict = with_reason(verdict, Reason("stale_set_aside", note))
    verdict = awaiting_review(verdict, s.conflicts, s.kb.rules())  # policy needs_review
    s.trace["pack"] = sections.pack(with_conflict_sides(pack, s.conflicts))
    s.trace["sufficiency"] = verdict.to_json()
    s.trace["conflicts"] = sections.conflicts(s.conflicts)
    return replace(s, verdict=verdict)


def settled(
    s: AskState, notes: list[ConflictNote], pack: EvidencePack
) -> tuple[list[ConflictNote], EvidencePack]:
    """The conflicts still open, and the pack without the overruled sides of those a
    recorded resolution settles (named in the trace; sufficiency/resolutions.py)."""
    done = settle(notes, s.kb.rules())
    if not done.applied:
        return notes, pack
    s.trace["conflict_resolutions"] = done.trace()
    return done.open, without_overruled(pack, done)


def _second_pass(s: AskState, first: Sufficiency) -> AskState:
    """The recovery pass: read more of the documents once, under the deep profile."""
    searched = s.need(s.searched, "searched")
    second = assemble(
        s.kb, searched.text, filters=s.filters, config=WIDER, profile="deep", question=searched
    )
    conflicts, second = settled(s, detect_conflicts(s.kb, s.question, second, s.who), second)
    stale = stale_paths(s.kb, second, s.who)
    again = review(gate_input(s, second, conflicts, stale))
    better = ranked_higher(again, first)
    s.trace["recovery"] = RecoveryTrace(
        attempted=True, improved=better, first=first.to_json(), second=again.to_json()
    )
    if not better:
        return s
    s.trace["retrieval"] = None  # the recovery pass ran its own, wider recall
    return replace(s, pack=second, verdict=again, conflicts=conflicts)


def gate_input(
    s: AskState, pack: EvidencePack, conflicts: Sequence[ConflictNote], stale: tuple[str, ...]
) -> GateInput:
    """What the gates review: the question, the pack, its conflicts and stale editions."""
    q = s.question
    return GateInput(
        q,
        q.intent,
        pack,
        len(conflicts),
        stale_used(pack, stale),
        s.unknown,
        s.need(s.profile, "profile"),
        tuple(document_contexts(s.kb.index, (f.path for f in pack.direct)).items()),
    )


def stale_used(pack: EvidencePack, stale: tuple[str, ...]) -> tuple[str, ...]:
    """Stale editions count against the evidence only when no current direct evidence is
    left once they are set aside (they are then set aside from the answer)."""
    current = [f for f in pack.direct if f.path not in stale]
    return () if current else stale


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


def _digest(obj: object) -> str:
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:32]
