"""Relation questions answered from the knowledge graph.

"What does X require?", "What replaced X?", "What degrades X?", "What is X part of?":
:func:`asked_relation` (:mod:`citewise.answer.relation.words`) reads which relation a
question asks about (English and Chinese), :func:`documented` finds the edges of that kind
at the question's subject, and for each one reads the neighbour's own text (its block that
best answers the question). An answer then states the relation in words ("Thermal creep
degrades Helix-7.") citing both the edge's source span (the front-matter entry, the
diagram line, the link) and the neighbour's text, and quotes the neighbour's sentence.

The graph-support gate (:func:`gate`): an answer about a relation needs such an edge with
a readable neighbour text, or a cited sentence that states the relation in prose;
otherwise it says the relation is not documented (``graph_neighbor_evidence_missing``).
A neighbour text that shares no word with the question is named as a limitation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from citewise.analysis.question import Question
from citewise.analysis.tokenize import has_cjk, key_terms, tokenize
from citewise.answer.candidate import Candidate
from citewise.answer.composition.compose import sentence_candidates
from citewise.answer.relation.words import Asked, asked_relation, stated_in_prose, wording
from citewise.evidence.models import Fragment
from citewise.evidence.neighbors import best_block
from citewise.evidence.sentences import Span
from citewise.evidence.tokens import estimate_tokens
from citewise.evidence.whole import node_fragment
from citewise.graph.build import KnowledgeGraph
from citewise.graph.models import Edge, Point
from citewise.graph.rollup import rolled_up
from citewise.graph.text import norm_title
from citewise.index.manager import KBIndex
from citewise.sufficiency.models import Reason


@dataclass(frozen=True, slots=True)
class Statement:
    """One documented relation: the edge, its ends and the neighbour's chosen text."""

    edge: Edge
    source: Point
    target: Point
    neighbour: Point
    direction: Literal["out", "in"]
    text: str  # "Thermal drift degrades Lumen-7."
    edge_candidate: Candidate
    neighbour_candidate: Candidate
    weak: bool  # the neighbour's text shares no key term with the question


@dataclass(frozen=True, slots=True)
class Found:
    asked: Asked
    subject: Point | None
    statements: tuple[Statement, ...]
    #: Edges of the asked kind whose neighbour has no readable text for this caller.
    textless: tuple[str, ...] = ()
    #: The question names the subject by its title (the gate applies only then: without a
    #: named subject there is no relation "of X" to call undocumented).
    named: bool = False


def subject_of(
    kg: KnowledgeGraph, question: Question, anchor_key: str | None
) -> tuple[Point | None, bool]:
    """The document the question names by title (the longest title it contains) and True,
    else the recall stage's graph anchor and False."""
    q = norm_title(question.text)
    named = [kg.points[k] for k in _named_keys(_title_lookup(kg), q)]
    if named:
        return max(named, key=lambda p: (len(p.norm_title), p.path)), True
    if anchor_key and anchor_key in kg.points:
        return kg.points[anchor_key], False
    return None, False


@dataclass(frozen=True, slots=True)
class _Titles:
    """Document titles a question can name, built once per graph: whole-word titles by
    their text (looked up by the question's word runs instead of walking every document),
    CJK titles and any other title as a list checked by substring."""

    words: dict[str, list[tuple[int, str]]]  # title -> (position, key) in doc_keys order
    longest: int  # words in the longest title of ``words``
    others: list[tuple[int, str, str]]  # (position, key, title): checked one by one


def _title_lookup(kg: KnowledgeGraph, kinds: str = "document") -> _Titles:
    """The titles a question can name: the documents' (``kinds="document"``), or the
    sections' and diagram concepts' (``kinds="part"``)."""
    memo = "named-titles" if kinds == "document" else f"named-titles:{kinds}"
    got = kg.memo.get(memo)
    if isinstance(got, _Titles):
        return got
    if kinds == "document":
        keys = [k for k in kg.doc_keys.values() if k in kg.points]
    else:
        keys = [k for k, p in kg.points.items() if p.kind in ("section", "concept")]
    words: dict[str, list[tuple[int, str]]] = {}
    others: list[tuple[int, str, str]] = []
    longest = 0
    for pos, k in enumerate(keys):
        title = kg.points[k].norm_title
        cjk = has_cjk(title)
        if len(title) < 2 or (len(title) < 3 and not cjk):
            continue
        parts = title.split(" ")
        if cjk or "" in parts:
            others.append((pos, k, title))
        else:
            words.setdefault(title, []).append((pos, k))
            longest = max(longest, len(parts))
    built = _Titles(words, longest, others)
    kg.memo[memo] = built
    return built


def named_parts(kg: KnowledgeGraph, question: Question, limit: int = 6) -> list[Point]:
    """The sections and diagram concepts ``question`` names by title, longest title first:
    a relation drawn between two parts of one document ("Ledger Classic -->|succeeded by|
    Ledger Nova" in a diagram) is asked about by the part's name, not the document's."""
    q = norm_title(question.text)
    named = [kg.points[k] for k in _named_keys(_title_lookup(kg, "part"), q)]
    named.sort(key=lambda p: (-len(p.norm_title), p.kind != "section", p.path, p.line_start))
    return named[:limit]


def kinds_stated(kg: KnowledgeGraph) -> frozenset[str]:
    """The relation kinds some edge of ``kg`` states (containment is structure, not a
    statement). A relation question is read as one only where the documents state its kind
    as edges; elsewhere it is an ordinary question that prose answers, and no
    "relation not documented" refusal can arise from words alone."""
    got = kg.memo.get("kinds-stated")
    if isinstance(got, frozenset):
        return got
    edges = (d["edge"] for _, _, d in kg.g.edges(data=True))
    kinds = frozenset(e.kind for e in edges if e.origin != "containment")
    kg.memo["kinds-stated"] = kinds
    return kinds


def _own_points(kg: KnowledgeGraph, subject: Point) -> set[str]:
    """The points a relation of ``subject`` may start or end at: a document's every section,
    a section's own subsections, a concept alone."""
    if subject.kind == "concept":
        return {subject.key}
    depth = len(subject.heading_path)
    return {
        p.key
        for p in kg.of_path(subject.path)
        if p.kind in ("document", "section")
        and (subject.kind == "document" or p.heading_path[:depth] == subject.heading_path)
        and (subject.kind == "document" or len(p.heading_path) >= depth)
    }


def _named_keys(titles: _Titles, q: str) -> list[str]:
    """Keys of the documents whose title ``q`` names, in ``doc_keys`` order: a CJK title
    anywhere in it, any other title as whole words (`` title `` within `` q ``)."""
    found: list[tuple[int, str]] = []
    for pos, k, title in titles.others:
        if title in q if has_cjk(title) else f" {title} " in f" {q} ":
            found.append((pos, k))
    tokens = q.split(" ")
    if "" in tokens:  # not a normalised question: fall back to the substring test
        found.extend(
            hit for t, hits in titles.words.items() if f" {t} " in f" {q} " for hit in hits
        )
    else:
        for i in range(len(tokens)):
            for j in range(i + 1, min(len(tokens), i + titles.longest) + 1):
                found.extend(titles.words.get(" ".join(tokens[i:j]), ()))
    return [k for _, k in sorted(set(found))]


def documented(
    index: KBIndex,
    kg: KnowledgeGraph,
    question: Question,
    asked: Asked,
    subject: Point | None,
    *,
    revision: int,
    allowed: set[str] | None,
    named: bool = False,
    limit: int = 3,
) -> Found:
    """The edges of the asked kind at ``subject`` (its whole document, as ``citewise graph
    show`` lists them), each with the neighbour's text."""
    if subject is None:
        return Found(asked, None, (), named=named)
    mine = _own_points(kg, subject)
    seen: set[tuple[str, str, str]] = set()
    out: list[Statement] = []
    textless: list[str] = []
    rolled = sorted(
        rolled_up(kg, subject.path), key=lambda r: (-r.edge.confidence, r.other.path, r.edge.kind)
    )
    for r in rolled:
        e = r.edge
        if e.kind not in asked.kinds or e.origin == "containment":
            continue
        src, dst = kg.points[str(e.source)], kg.points[str(e.target)]
        if (src.key in mine) == (dst.key in mine):
            continue  # both ends (or neither) in the subject: not a relation to a neighbour
        direction: Literal["out", "in"] = "out" if src.key in mine else "in"
        if asked.direction not in ("any", direction):
            continue
        other = dst if direction == "out" else src
        key = (e.kind, other.key, direction)
        if key in seen:
            continue
        seen.add(key)
        hint = f"{question.text} {other.title}"
        block = best_block(index, kg.chunks_of(other.key), allowed, hint, prose=True)
        if block is None:
            textless.append(other.title)
            continue
        chunk = index.chunks[block.chunk_id]
        frag = node_fragment(
            block.node,
            role="graph_neighbor_support",
            doc_id=chunk.doc_id,
            path=chunk.path,
            revision=revision,
            version_id=chunk.version_id,
            reason=f"graph:{e.kind}:{direction}",
            relation=e.kind,
            direction=direction,
            path_to_anchor=(other.key, subject.key),
        )
        out.append(
            Statement(
                edge=e,
                source=src,
                target=dst,
                neighbour=other,
                direction=direction,
                text=wording(e, src, dst, asked.chinese),
                edge_candidate=_edge_candidate(e, revision, direction),
                neighbour_candidate=_best_sentence(hint, frag),
                weak=not _shares_terms(hint, block.node.text),
            )
        )
        if len(out) >= limit:
            break
    return Found(asked, subject, tuple(out), tuple(textless), named)


def _shares_terms(hint: str, text: str) -> bool:
    """Whether ``text`` holds a key term of ``hint`` (the question joined with a neighbour's
    title)."""
    return bool(set(key_terms(hint)) & set(tokenize(text)))


def _edge_candidate(e: Edge, revision: int, direction: str) -> Candidate:
    s = e.span
    frag = Fragment(
        role="graph_neighbor_support",
        doc_id=s.doc_id,
        path=s.path,
        revision=revision,
        version_id=s.version_id,
        node_ids=(s.node_id,),
        line_start=s.line_start,
        line_end=s.line_end,
        char_start=s.char_start,
        char_end=s.char_end,
        heading_path=(),
        text=s.text,
        tokens=estimate_tokens(s.text),
        truncated=False,
        citation_id=s.span_id,
        reason=f"graph_edge:{e.origin}",
        relation=e.kind,
        direction=direction,
    )
    span = Span(s.char_start, s.char_end, s.text)
    return Candidate(frag, span, " ".join(s.text.split()), 1.0, (-1, s.char_start))


def _best_sentence(hint: str, frag: Fragment) -> Candidate:
    """The neighbour block's sentence that best answers the question (its first one when
    none shares a word with it)."""
    pool = sentence_candidates(hint, [frag])
    if not pool:
        span = Span(frag.char_start, frag.char_end, frag.text)
        return Candidate(frag, span, " ".join(frag.text.split()), 0.0, (-1, frag.char_start))
    return max(pool, key=lambda c: (c.score, [-x for x in c.order]))


def gate(found: Found, cited_texts: list[str]) -> Reason | None:
    """``graph_neighbor_evidence_missing:...`` when the asked relation has no documented
    edge with neighbour text and no cited sentence states it; else None."""
    if not found.named or found.statements:
        return None
    if stated_in_prose(found.asked, cited_texts, found.subject):
        return None
    subject = found.subject.title if found.subject is not None else "the subject"
    if found.textless:
        return Reason(
            "graph_neighbor_evidence_missing",
            f"the {found.asked.name!r} relation of {subject} "
            f"leads to {', '.join(found.textless)}, whose own text is not readable here",
        )
    return Reason(
        "graph_neighbor_evidence_missing",
        f"no documented {found.asked.name!r} relation for {subject}",
    )


__all__ = [
    "Asked",
    "Found",
    "Statement",
    "asked_relation",
    "documented",
    "gate",
    "kinds_stated",
    "named_parts",
    "wording",
]
