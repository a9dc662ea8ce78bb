"""The last steps of ``ask``: review the composed units and finish the answer.

``review`` checks that the quoted units answer by meaning, notes the parts of the
question's profile they lack, and cites and release-reviews each sentence; ``finish``
applies a relation question's graph-support gate and builds the public answer
(:func:`citewise.answer.finish.finish`).
"""

from __future__ import annotations

from dataclasses import replace

from citewise.analysis.tokenize import has_cjk
from citewise.answer.citations import cite_claims
from citewise.answer.composition.coverage import with_coverage
from citewise.answer.editions_aside import set_aside_in
from citewise.answer.finish import INSUFFICIENT, finish, human_reason, refusal
from citewise.answer.meaning.answer import NO_CHINESE_READER, judged
from citewise.answer.meaning.check import checked
from citewise.answer.meaning.titled import title_reader
from citewise.answer.models import Answer
from citewise.answer.relation.answer import relation_claims, relation_verdict, with_relations
from citewise.answer.review import release_review
from citewise.answer.steps.state import AskState, Reviewed
from citewise.sufficiency.models import Reason, Sufficiency
from citewise.sufficiency.verdict import refused


def review_step(s: AskState) -> AskState:
    """The meaning check of the quoted units (a refusal when none answers), the profile
    parts they lack, the gate's refusal when nothing was admitted, then each sentence
    cited and release-reviewed."""
    q, trace = s.question, s.trace
    composed, verdict = s.need(s.composed, "composed"), s.need(s.verdict, "verdict")
    chosen, gate = composed.chosen, composed.gate
    best = max((c.score for c in chosen), default=0.0)
    if chosen and has_cjk(q.text):  # no shipped model reads Chinese (meaning_answer.py)
        trace["meaning"] = {"skipped": NO_CHINESE_READER}
    if checked(q, q.intent.kind, bool(gate.constraints), best) and s.found is None and chosen:
        # the quoted units must answer by meaning, not only share the words (meaning.py);
        # a misspelt word is read as the knowledge base spells it
        searched = s.need(s.searched, "searched")
        titles = title_reader(composed.reader)  # a unit read under its document's title
        chosen, why = judged(
            searched, q, chosen, composed.ranked, trace, s.profile, composed.units_of, titles
        )
        if why is not None:
            return _refused(s, refused(why))
    verdict, lacking = with_coverage(q.intent.kind, q, q.intent.subject, chosen, verdict)
    if lacking:  # a required part of the profile is missing (answer/coverage.py)
        trace["profile_missing"] = lacking
    if not chosen and gate.failures and s.found is None:  # relation questions: graph verdict
        return _refused(s, refused(Reason.parse(gate.refusal())))
    citations, claims = cite_claims(s.kb, with_relations(s.found, chosen), s.conflicts)
    claims = release_review(relation_claims(s.found, claims), citations)
    trace["claims"] = [c.to_json() for c in claims]
    return replace(s, verdict=verdict, reviewed=Reviewed(claims=claims, citations=citations))


def finish_step(s: AskState) -> AskState:
    """A relation question's graph-support gate (an undocumented relation is refused at
    stage ``graph_evidence``), then the public answer from the reviewed claims."""
    q, pack, trace = s.question, s.need(s.pack, "pack"), s.trace
    reviewed, verdict = s.need(s.reviewed, "reviewed"), s.need(s.verdict, "verdict")
    claims, citations = reviewed.claims, reviewed.citations
    kept = [c for c in claims if c.kept]
    verdict, not_documented = relation_verdict(s.found, kept, citations, verdict, trace)
    if not_documented:
        trace["failure_stage"] = "graph_evidence"
        text = f"{INSUFFICIENT} ({human_reason(verdict)})"
        answer = refusal(
            pack, s.kb.name, q.intent.kind, verdict, text, "graph_evidence", trace, claims
        )
        return replace(s, answer=answer)
    answer = finish(
        s.kb,
        q.intent.kind,
        pack,
        verdict,
        claims,
        citations,
        trace,
        failed_why=None if kept else "no sentence passed review",
        profile=s.profile,
    )
    if answer.outcome == "answered":
        _editions_set_aside(s, answer)
    return replace(s, answer=answer)


def _editions_set_aside(s: AskState, answer: Answer) -> None:
    """Older editions of a cited document that recall reached or that speak to the
    question, in the trace (answer/editions_aside.py): said, not silently left out."""
    cited = (c.path for c in answer.citations)
    terms = s.question.intent.subject_terms
    aside = set_aside_in(s.kb.index, s.filters, cited, terms, s.recall)
    if aside:
        s.trace["set_aside"] = aside


def _refused(s: AskState, verdict: Sufficiency) -> AskState:
    """The review refuses the composed units: an answer with no claim that says why."""
    s.trace["sufficiency"] = verdict.to_json()
    answer = finish(
        s.kb,
        s.question.intent.kind,
        s.need(s.pack, "pack"),
        verdict,
        [],
        [],
        s.trace,
        failed_why=human_reason(verdict),
        profile=None,
    )
    return replace(s, answer=answer)
