"""The composer's hook for relation questions (see :mod:`citewise.answer.relation.graph`).

``ask`` calls, in order: :func:`relation_pass` (which relation, which documented edges),
:func:`with_relations` (their edge spans and neighbour sentences go first among the chosen
units), :func:`relation_claims` (each pair of claims becomes a statement of the relation
citing both, then the neighbour's sentence) and, after review, :func:`relation_verdict`
(the graph-support gate and the weak-neighbour limitation).
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import TYPE_CHECKING

from citewise.analysis.question import Question
from citewise.analysis.tokenize import tokenize
from citewise.answer.candidate import Candidate
from citewise.answer.models import AnswerTrace, Citation, Claim
from citewise.answer.relation.graph import (
    Found,
    asked_relation,
    documented,
    gate,
    kinds_stated,
    named_parts,
    subject_of,
)
from citewise.answer.relation.words import oriented
from citewise.core.access import visible_chunks
from citewise.core.search import SearchFilters
from citewise.evidence.models import EvidencePack
from citewise.graph.models import Point
from citewise.graph.select import GraphDiagnostics
from citewise.sufficiency.models import Reason, Sufficiency
from citewise.sufficiency.presence import TermProfile
from citewise.sufficiency.verdict import partial, refused, relation_documented, restated

if TYPE_CHECKING:
    from citewise.context import StageContext


def relation_pass(
    kb: StageContext,
    question: Question,
    pack: EvidencePack,
    diag: GraphDiagnostics | None,
    filters: SearchFilters | None,
) -> Found | None:
    """The documented relations a relation question asks about; None for other questions."""
    asked = asked_relation(question)
    if asked is None:
        return None
    index = kb.index
    scope = filters or SearchFilters()
    kg = index.graph_for(scope.principal)  # only what this principal may read
    if kinds_stated(kg).isdisjoint(asked.kinds):
        return None  # the documents state no such relation as an edge: prose answers it
    allowed = set(
        index.scoped(scope, lambda: frozenset(visible_chunks(index.chunks.values(), scope)))
    )
    anchor = diag.anchor.key if diag is not None and diag.anchor is not None else None
    subject, named = subject_of(kg, question, anchor)

    def at(point: Point | None, is_named: bool) -> Found:
        seen = oriented(asked, question, point.title) if point and is_named else asked
        return documented(
            index,
            kg,
            question,
            seen,
            point,
            revision=pack.revision,
            allowed=allowed,
            named=is_named,
        )

    found = at(subject, True) if named else None
    if found is not None and found.statements:
        return found
    for part in named_parts(kg, question):  # a relation drawn between parts of a document
        if named and subject is not None and len(part.norm_title) < len(subject.norm_title):
            break  # the document's own, longer title names the subject
        got = at(part, True)
        if got.statements:
            return got
    if found is not None:
        return found  # the named document states no such relation: the gate decides
    if subject is None and pack.direct:  # no anchor: the best passage's document
        doc = kg.doc_keys.get(pack.direct[0].path)
        subject = kg.points.get(doc) if doc else None
    return at(subject, False)


def relation_sufficiency(found: Found | None, suff: Sufficiency) -> Sufficiency:
    """A relation of a subject the question names, documented by an edge with readable
    neighbour text, answers the question even when its relation word ("successor",
    "require") occurs in no passage or recall found nothing else."""
    if found is None or not found.named or suff.status != "insufficient":
        return suff
    strong = [s for s in found.statements if not s.weak]
    if not strong:
        return suff
    told = ", ".join(s.text for s in strong)
    return relation_documented(told, suff)


def relation_profile(found: Found | None, profile: TermProfile) -> TermProfile:
    """The question's terms that a relation statement covers (the relation words, the
    subject's and the neighbours' names) are no longer required of the cited text: the
    statement cites the edge that states them."""
    if found is None or not found.named or not any(not s.weak for s in found.statements):
        return profile
    words = [found.asked.phrase, *(s.text for s in found.statements)]
    words += [s.neighbour.title for s in found.statements]
    if found.subject is not None:
        words.append(found.subject.title)
    covered = {t for w in words for t in tokenize(w)}
    terms = tuple(replace(t, required=False) if t.key in covered else t for t in profile.terms)
    return replace(profile, terms=terms)


def from_graph(found: Found | None, trace: AnswerTrace) -> bool:
    """A relation question about a subject it names is answered here, not by an LLM route:
    the edge spans a statement cites are not items of the route's frozen evidence set."""
    if found is None or not found.named:
        return False
    trace["llm_skipped"] = "relation question: answered from the graph's documented edges"
    return True


def with_relations(found: Found | None, chosen: list[Candidate]) -> list[Candidate]:
    """Each statement's edge span and neighbour sentence, then the composer's own units
    (without the ones a statement already quotes)."""
    if found is None or not found.statements:
        return chosen
    head: list[Candidate] = []
    for s in found.statements:
        head += [s.edge_candidate, s.neighbour_candidate]
    keys = {c.key for c in head}
    return head + [c for c in chosen if c.key not in keys]


def relation_claims(found: Found | None, claims: list[Claim]) -> list[Claim]:
    """Replace the claims of :func:`with_relations`' leading pairs: the relation stated in
    words (a notice citing the edge's span and the neighbour's text), then the
    neighbour's sentence; when that text does not address the question, a notice says so."""
    if found is None or not found.statements:
        return claims
    out: list[Claim] = []
    n = len(found.statements)
    for i, s in enumerate(found.statements):
        edge, neighbour = claims[2 * i], claims[2 * i + 1]
        both = tuple(dict.fromkeys((*edge.citations, *neighbour.citations)))
        out.append(_notice(s.text, both, f"graph relation {s.edge.kind}"))
        out.append(neighbour)
        if s.weak:
            note = (
                f"The text of {s.neighbour.title} found for this relation does not address "
                "the question directly."
                if not found.asked.chinese
                else f"{s.neighbour.title}的原文未直接回答这个问题。"
            )
            out.append(_notice(note, both, "graph_neighbor_evidence_weak"))
    return out + claims[2 * n :]


def _notice(text: str, citations: tuple[int, ...], reason: str) -> Claim:
    return Claim(
        text=text, citations=citations, support=1.0, verdict="notice", kept=True, reason=reason
    )


def _stated_words(found: Found, suff: Sufficiency) -> Sufficiency:
    """``suff`` without the "not found: X" reasons whose words a relation statement says
    ("replaced" in "What replaced X?" answered by "Y replaces X.", citing the edge that
    states it): the statement is part of the answer, so the reason is no longer true."""
    if not found.statements or suff.degradation != "partial_coverage":
        return suff
    said = {t for s in found.statements for t in tokenize(s.text)} | set(
        tokenize(found.asked.phrase)
    )

    def untrue(r: Reason) -> bool:
        return (
            r.kind == "partial_coverage"
            and bool(r.words)
            and all(k in said for w in r.words for k in tokenize(w))
        )

    kept = tuple(r for r in suff.reasons if not untrue(r))
    if len(kept) == len(suff.reasons) or any(r.kind == "partial_coverage" for r in kept):
        return restated(suff, suff.status, suff.degradation, kept)
    status = "sufficient" if suff.status == "borderline" else suff.status
    return restated(suff, status, "none", kept)


def relation_verdict(
    found: Found | None,
    kept: list[Claim],
    citations: list[Citation],
    suff: Sufficiency,
    trace: AnswerTrace,
) -> tuple[Sufficiency, Reason | None]:
    """The sufficiency after the graph-support gate, and the reason when the relation is
    not documented (the answer is then ``insufficient_evidence``, stage graph_evidence)."""
    if found is None:
        return suff, None
    cited = [citations[n - 1].excerpt for c in kept for n in c.citations]
    missing = gate(found, [c.text for c in kept if c.verdict != "notice"] + cited)
    trace["relation"] = {
        "asked": asdict(found.asked),
        "subject": found.subject.title if found.subject is not None else None,
        "statements": [
            {
                "text": s.text,
                "relation": s.edge.kind,
                "direction": s.direction,
                "edge_span": s.edge.span.span_id,
                "edge_path": s.edge.span.path,
                "edge_chars": [s.edge.span.char_start, s.edge.span.char_end],
                "edge_origin": s.edge.origin,
                "neighbour": s.neighbour.title,
                "neighbour_path": s.neighbour.path,
                "weak": s.weak,
            }
            for s in found.statements
        ],
        "gate": None if missing is None else str(missing),
    }
    if missing:
        return refused(missing), missing
    suff = _stated_words(found, suff)
    weak = [s.neighbour.title for s in found.statements if s.weak]
    if weak and len(weak) == len(found.statements):
        reason = Reason("graph_neighbor_evidence_weak", ", ".join(weak))
        return partial(suff, reason), None
    return suff, None
