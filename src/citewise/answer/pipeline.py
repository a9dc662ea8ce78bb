"""``ask``: the one public answer. Intent, evidence, sufficiency (with at most one recovery
pass), conflicts and stale editions, extractive composition, release review, and a trace
that keeps what the answer hides.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace
from typing import TYPE_CHECKING

from citewise.answer.citations import cite_claims
from citewise.answer.compose import compose
from citewise.answer.graph_answer import (
    from_graph,
    relation_claims,
    relation_pass,
    relation_profile,
    relation_sufficiency,
    relation_verdict,
    with_relations,
)
from citewise.answer.models import (
    Answer,
    AnswerTrace,
    Citation,
    Claim,
    FailureStage,
    new_trace_id,
)
from citewise.answer.procedure import complete_procedures
from citewise.answer.ranking import units_reader
from citewise.answer.relevance import dense_scorer
from citewise.answer.review import release_review, removed_orchestration
from citewise.evidence.assemble import assemble
from citewise.evidence.intent import classify_intent
from citewise.evidence.models import EvidenceConfig, EvidencePack
from citewise.evidence.nodes import NodeReader, spans_by_version
from citewise.recall.models import SearchFilters, SearchResult
from citewise.recall.search import RecallSettings, search, search_summary
from citewise.sufficiency.conflicts_adapter import detect_conflicts, stale_paths
from citewise.sufficiency.gates import GateInput, procedure_mismatch, review
from citewise.sufficiency.models import Reason, Sufficiency, TermProfile
from citewise.sufficiency.named import absent_terms, named_terms
from citewise.sufficiency.presence import judge, weigh

if TYPE_CHECKING:
    from citewise.kb import KnowledgeBase
    from citewise.llm.written import LLMWriter

NON_KB_REPLY = (
    "Hello! I answer questions from the documents in this knowledge base, and every "
    "sentence I give carries a citation you can check. Ask about a topic the documents "
    'cover, for example: "What is ...?" or "How do I ...?"'
)
INSUFFICIENT = "The knowledge base does not hold enough evidence to answer this question."


def ask(
    kb: KnowledgeBase,
    question: str,
    *,
    filters: SearchFilters | None = None,
    llm: str | LLMWriter | None = None,
) -> Answer:
    """``llm`` names an activated route (opened here, so an unknown or never-activated
    route is refused before any work), or is a writer such as replay's recorded one."""
    llm_ctx: LLMWriter | None = None
    if isinstance(llm, str):
        from citewise.llm.generate import open_route

        llm_ctx = open_route(kb.home.settings.home, llm)
    else:
        llm_ctx = llm
    intent = classify_intent(question)
    trace: AnswerTrace = {"question": question, "intent": asdict(intent)}
    who = filters.principal if filters else None
    index = kb.home.index(kb.name)
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
    recall = search(
        kb.home.index(kb.name),
        question,
        filters=filters,
        top_k=cfg.top_k,
        settings=RecallSettings(per_doc_cap=cfg.per_doc_cap),
    )
    pack = assemble(kb, question, filters=filters, config=cfg, search_result=recall)
    trace["retrieval"] = search_summary(recall)
    conflicts = detect_conflicts(kb, question, pack, who, recall.hits)
    stale = stale_paths(kb, pack, who)
    unknown = absent_terms(kb, named_terms(question), who)
    profile = weigh(question, intent.subject_terms, kb.home.index(kb.name), who)
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
        second = assemble(kb, question, filters=filters, config=wider, profile="deep")
        conflicts2 = detect_conflicts(kb, question, second, who)
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
    if intent.kind == "how_to" and suff.status != "insufficient":
        before = len(fragments)
        reader = NodeReader(kb.store, kb.name)
        near = spans_by_version((f.path, f.version_id, f.char_start, f.char_end) for f in fragments)
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
    if suff.status == "insufficient":
        missing = "; ".join(suff.reason_texts)
        text = f"{INSUFFICIENT} ({_human(suff)})"
        trace["failure_stage"] = _failure_stage(pack, recall)
        return Answer(
            outcome="insufficient_evidence",
            answer=text,
            citations=(),
            degradation="insufficient_evidence",
            sufficiency=suff,
            replay_id=pack.replay_id,
            trace_id=new_trace_id(),
            intent=intent.kind,
            kb=kb.name,
            revision=pack.revision,
            failure_stage=_failure_stage(pack, recall),
            trace=trace | {"missing": missing},
        )
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
    unit_reader = NodeReader(kb.store, kb.name)
    unit_near = spans_by_version(
        (f.path, f.version_id, f.char_start, f.char_end) for f in fragments
    )
    chosen = compose(
        question,
        intent.kind,
        fragments,
        units_of=units_reader(
            lambda path, vid: unit_reader.near(path, vid, unit_near[(path, vid)])
        ),
        scorer=dense_scorer(kb.home.index(kb.name)),
    )
    citations, claims = cite_claims(kb, with_relations(found, chosen), conflicts)
    claims = release_review(relation_claims(found, claims), citations)
    kept = [c for c in claims if c.kept]
    trace["claims"] = [c.to_json() for c in claims]
    suff, not_documented = relation_verdict(found, kept, citations, suff, trace)
    if not_documented:
        trace["failure_stage"] = "graph_evidence"
        return Answer(
            outcome="insufficient_evidence",
            answer=f"{INSUFFICIENT} ({_human(suff)})",
            citations=(),
            degradation="insufficient_evidence",
            sufficiency=suff,
            replay_id=pack.replay_id,
            trace_id=new_trace_id(),
            intent=intent.kind,
            kb=kb.name,
            revision=pack.revision,
            claims=tuple(claims),
            failure_stage="graph_evidence",
            trace=trace,
        )
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


def finish(
    kb: KnowledgeBase,
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
    if failed_why is None and profile is not None and profile.checks:
        cited = judge(profile, _cited_texts(pack, kept, citations), cited=True)
        trace["cited_presence"] = cited.to_json()
        if cited.verdict == "absent" and cited.reason is not None:
            suff = Sufficiency("insufficient", "insufficient_evidence", (cited.reason,))
            trace["sufficiency"] = suff.to_json()
            failed_why = _human(suff)
        elif (
            cited.verdict == "partial"
            and cited.reason is not None
            and not _already_partial(suff, cited.missing)
        ):
            worst = "partial_coverage" if suff.degradation == "none" else suff.degradation
            suff = replace(suff, degradation=worst, reasons=(*suff.reasons, cited.reason))
    if failed_why is not None:
        trace["failure_stage"] = "citation_verification"
        return Answer(
            outcome="insufficient_evidence",
            answer=f"{INSUFFICIENT} ({failed_why})",
            citations=(),
            degradation="insufficient_evidence",
            sufficiency=replace(suff, status="insufficient", degradation="insufficient_evidence"),
            replay_id=pack.replay_id,
            trace_id=new_trace_id(),
            intent=intent,
            kb=kb.name,
            revision=pack.revision,
            claims=tuple(claims),
            failure_stage="citation_verification",
            trace=trace,
        )
    used = sorted({n for c in kept for n in c.citations})
    renumber = {old: new for new, old in enumerate(used, start=1)}
    final_cites = tuple(replace(citations[n - 1], number=renumber[n]) for n in used)
    text = _render(
        intent, [replace(c, citations=tuple(renumber[n] for n in c.citations)) for c in kept]
    )
    degradation = suff.degradation
    if len(kept) < len([c for c in claims if c.verdict != "notice"]) and degradation == "none":
        degradation = "partial_coverage"
    if suff.status == "borderline" and degradation == "none":
        degradation = "partial_coverage"  # a borderline answer says so in the field
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
        trace=trace,
    )


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


def _stale_used(pack: EvidencePack, stale: tuple[str, ...]) -> tuple[str, ...]:
    """Stale editions count against the evidence only when no current direct evidence is
    left once they are set aside (they are then set aside from the answer)."""
    current = [f for f in pack.direct if f.path not in stale]
    return () if current else stale


def _rank(s: Sufficiency) -> int:
    return {"insufficient": 0, "borderline": 1, "sufficient": 2}[s.status]


def _human(s: Sufficiency) -> str:
    first = s.reasons[0] if s.reasons else Reason("no evidence")
    gate, detail = first.kind, first.detail or ""
    if gate == "subject_absent":
        return f"the documents do not mention: {detail}"
    if gate == "subject_missing":
        return f"the passages found do not mention: {detail}"
    if gate == "near_miss":
        return detail
    if gate == "no_direct_evidence":
        return f"nothing relevant was found: {detail}"
    return f"{gate.replace('_', ' ')}: {detail}" if detail else gate.replace("_", " ")


def _failure_stage(pack: EvidencePack, recall: SearchResult | None = None) -> FailureStage:
    if not pack.direct and recall is not None and recall.criterion == "rerank_threshold":
        return "reranking"  # the reranker scored every candidate under its threshold
    if any(x.kind == "source_window_unavailable" for x in pack.limitations):
        return "parsing_source"
    return "retrieval" if not pack.direct else "context_assembly"


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


def _digest(obj: object) -> str:
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:32]
