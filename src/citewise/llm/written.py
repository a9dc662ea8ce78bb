"""From the frozen set to the released answer, shared by the live LLM route and replay.

:func:`build_payload` picks the minimal evidence set and freezes it (the model's only
input); :func:`write_answer` turns the model's sentences into a cited, reviewed answer.
Both are deterministic: given the same pack and the same sentences, replay rebuilds the
same payload hash and the same answer without calling any model.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from citewise.analysis.question import Question
from citewise.answer.admission import admission, question_gate
from citewise.answer.candidate import Candidate
from citewise.answer.citations import cite_claims
from citewise.answer.clean import clean_sentence
from citewise.answer.composition.compose import compose, fragment_spans
from citewise.answer.composition.coverage import with_coverage
from citewise.answer.composition.procedure import merge_procedures
from citewise.answer.finish import finish
from citewise.answer.markup import strip_markup
from citewise.answer.models import Answer, AnswerTrace, Claim
from citewise.answer.ranking import units_reader
from citewise.answer.relevance import dense_scorer
from citewise.answer.review import release_review
from citewise.answer.support import support_score
from citewise.answer.units.structure import Unit, refers_back
from citewise.core.records import Node
from citewise.core.search import SearchFilters
from citewise.evidence.nodes import NodeReader, spans_by_version
from citewise.evidence.sentences import Span
from citewise.llm.frozen import FrozenPayload, _candidates, freeze, minimal_set, unit_items
from citewise.llm.models import ModelSentence, SetLimits
from citewise.sufficiency.constraints import UnitGate
from citewise.sufficiency.gates import GateInput
from citewise.sufficiency.models import ConstraintJSON, Reason, Sufficiency
from citewise.sufficiency.verdict import refused

if TYPE_CHECKING:
    from citewise.context import StageContext
    from citewise.evidence.models import Fragment
    from citewise.sufficiency.models import ConflictNote


def build_payload(
    kb: StageContext,
    question: Question,
    g: GateInput,
    suff: Sufficiency,
    stale: tuple[str, ...],
    filters: SearchFilters | None,
    limits: SetLimits,
) -> tuple[FrozenPayload, Sufficiency]:
    """The frozen payload and its set's gate review; raises ``EvidenceDoesNotFit``."""
    frags = _candidates(g.pack, stale)
    reader = NodeReader(kb.store, kb.name)
    near = spans_by_version((f.path, f.version_id, f.char_start, f.char_end) for f in frags)

    def nodes_of(path: str, vid: int) -> list[Node]:
        return reader.near(path, vid, near[(path, vid)])

    if g.intent.kind == "how_to":
        # a procedure is sent whole, as one item, so the item limit never cuts steps off
        frags = merge_procedures(frags, nodes_of)
    # the same answer units, relevance and constraint gate as the extractive answer
    # decide what is required (when the gate admits no unit, the model's sentences are
    # refused after it answers: see write_answer)
    gate = question_gate(question, g.intent.kind, g.profile)
    lead_of = partial(
        compose,
        question,
        g.intent.kind,
        frags,
        units_of=units_reader(nodes_of),
        scorer=dense_scorer(kb.index),
        needed=g.profile.needed if g.profile is not None else (),
    )
    lead = lead_of(admit=admission(gate, reader, near)) or lead_of()
    spans = [(c.fragment, c.span.start, c.span.end, c.span.text) for c in lead]
    frags, required = unit_items(frags, spans, nodes_of, limits.item_chars)
    chosen, set_review = minimal_set(
        g,
        suff,
        required=required,
        pool=frags,
        max_items=limits.max_items,
        item_chars=limits.item_chars,
        total_chars=limits.total_chars,
    )
    return freeze(question, g.pack, chosen, g.intent.kind, filters), set_review


def _best_span(frag: Fragment, sentence: str) -> Any:
    spans = [
        s for s in fragment_spans(frag) if s.kind != "heading" and clean_sentence(s.text).strip()
    ]
    if not spans:
        return None
    return max(spans, key=lambda s: (support_score(sentence, [s.text]).score, -s.start))


def _heading_context(units: list[Unit], span: Span, sentence: str) -> tuple[Span, str] | None:
    """The section heading (line span, text) a model sentence cited at ``span`` refers back
    to without naming it ("If this variable is set ..."), or None."""
    for u in units:
        if u.start <= span.start and span.end <= u.end and u.section_line is not None:
            return (u.section_line, u.section) if refers_back(sentence, u.section) else None
    return None


def write_answer(
    kb: StageContext,
    payload: FrozenPayload,
    sentences: list[ModelSentence],
    *,
    source: str,
    g: GateInput,
    suff: Sufficiency,
    conflicts: list[ConflictNote],
    trace: AnswerTrace,
) -> Answer:
    """The model's sentences, each cited at the item span that best supports it, through
    the release review; ``insufficient_evidence`` when no sentence survives. Item ids
    outside ``payload`` are ignored (the live path has already refused them)."""
    known = payload.by_id()
    cands: list[Candidate] = []
    groups: list[int] = []
    reader = NodeReader(kb.store, kb.name)
    near = spans_by_version(
        (i.fragment.path, i.fragment.version_id, i.fragment.char_start, i.fragment.char_end)
        for i in payload.items
    )
    units = units_reader(lambda path, vid: reader.near(path, vid, near.get((path, vid), [])))
    shown = [clean_sentence(strip_markup(s.text)) or s.text for s in sentences]
    evidence: list[list[Candidate]] = [[] for _ in sentences]  # what each sentence cites
    for n, s in enumerate(sentences):
        for item_id in s.items:
            if item_id not in known:
                continue
            frag = known[item_id].fragment
            span = _best_span(frag, s.text)
            if span is None:
                continue
            head = _heading_context(units(frag), span, shown[n])
            if head is not None and not shown[n].startswith(head[1]):
                # the same heading context as the extractive answer, cited at its line
                shown[n] = f"{head[1]}: {shown[n]}"
                cands.append(Candidate(frag, head[0], head[1], 0.0, (n, head[0].start)))
                groups.append(n)
            cands.append(Candidate(frag, span, s.text, 0.0, (n, span.start)))
            groups.append(n)
            context = (head[0],) if head is not None else ()
            cited = clean_sentence(strip_markup(span.text)) or span.text
            evidence[n].append(Candidate(frag, span, cited, 0.0, (n,), context))
    citations, per_cand = cite_claims(kb, cands, conflicts)
    claims: list[Claim] = []
    for n in range(len(sentences)):
        nums = tuple(
            dict.fromkeys(
                c.citations[0]
                for c, grp in zip(per_cand[: len(cands)], groups, strict=True)
                if grp == n
            )
        )
        claims.append(Claim(text=shown[n], citations=nums, support=0.0, verdict="", kept=True))
    claims += per_cand[len(cands) :]  # conflict notices
    claims = release_review(claims, citations)
    gate = question_gate(g.question, g.intent.kind, g.profile)
    refusal = _constraint_refusal(claims, evidence, gate, reader, near)
    kept = [c for c in claims if c.kept]
    trace["claims"] = [c.to_json() for c in claims]
    trace["answer_source"] = source
    if gate.constraints:
        trace["constraints"] = [cast("ConstraintJSON", asdict(c)) for c in gate.constraints]
    failed = not any(c.verdict != "notice" for c in kept)
    said = [  # the kept sentences, each in the section of the item it cites
        replace(c, section=" ".join(c.fragment.heading_path[-1:]))
        for c, n in zip(cands, groups, strict=True)
        if claims[n].kept
    ]
    suff, lacking = with_coverage(g.intent.kind, g.question, g.intent.subject, said, suff)
    if lacking:  # the same profile check as the extractive answer (answer/coverage.py)
        trace["profile_missing"] = lacking
    failed_why = "no generated sentence passed review" if failed else None
    if refusal is not None:  # every sentence the review kept cites a near miss
        suff = refused(Reason.parse(refusal))
        trace["sufficiency"] = suff.to_json()
        failed_why = refusal.partition(":")[2]
    return finish(
        kb,
        g.intent.kind,
        g.pack,
        suff,
        claims,
        citations,
        trace,
        failed_why=failed_why,
        profile=g.profile,
    )


def _constraint_refusal(
    claims: list[Claim],
    evidence: list[list[Candidate]],
    gate: UnitGate,
    reader: NodeReader,
    near: dict[tuple[str, int], list[tuple[int, int]]],
) -> str | None:
    """Why the model's answer fails the question's constraints (``constraint_unmet:...``),
    or None when it meets them: as the extractive answer quotes only units that meet every
    constraint, a written answer stands only when one kept sentence cites such a unit (its
    evidence, read with its headings and blocks, never the model's own words). Other
    sentences around it may give context, as the model wrote them."""
    if not gate.constraints:
        return None
    admit = admission(gate, reader, near)
    kept = [n for n, c in enumerate(claims[: len(evidence)]) if c.kept and evidence[n]]
    if not kept or any(admit(u) for n in kept for u in evidence[n]):
        return None
    return gate.refusal() or None
