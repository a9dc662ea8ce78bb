"""Relation questions answered from the knowledge graph.

"What does X require?", "What replaced X?", "What degrades X?", "What is X part of?":
:func:`asked_relation` reads which relation a question asks about (English and Chinese),
:func:`documented` finds the edges of that kind at the question's subject, and for each
one reads the neighbour's own text (its block that best answers the question). An answer
then states the relation in words ("Thermal drift degrades Lumen-7.") citing both the
edge's source span (the front-matter entry, the diagram line, the link) and the
neighbour's text, and quotes the neighbour's sentence.

The graph-support gate (:func:`gate`): an answer about a relation needs such an edge with
a readable neighbour text, or a cited sentence that states the relation in prose;
otherwise it says the relation is not documented (``graph_neighbor_evidence_missing``).
A neighbour text that shares no word with the question is named as a limitation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from citewise.answer.compose import Candidate, candidates
from citewise.evidence.models import Fragment
from citewise.evidence.neighbors import best_block
from citewise.evidence.sentences import Span
from citewise.evidence.tokens import estimate_tokens
from citewise.evidence.whole import node_fragment
from citewise.graph.build import KnowledgeGraph
from citewise.graph.models import Edge, Point, RelationKind
from citewise.graph.rollup import rolled_up
from citewise.graph.text import label_kind, norm_title
from citewise.index.manager import KBIndex
from citewise.index.tokenize import is_cjk_char, key_terms, tokenize

Direction = Literal["out", "in", "any"]


@dataclass(frozen=True, slots=True)
class Asked:
    """A relation a question asks about. ``direction`` is seen from the subject: "out"
    wants edges subject -> neighbour (what X requires), "in" neighbour -> subject (what
    replaced X)."""

    name: str
    kinds: tuple[RelationKind, ...]
    direction: Direction
    chinese: bool
    phrase: str = ""  # the question's own words for it


_EDITION: tuple[RelationKind, ...] = ("supersedes", "replaces")
# (pattern, name, kinds, direction) - the first that matches wins; specific before general.
_RULES: tuple[tuple[str, str, tuple[RelationKind, ...], Direction], ...] = (
    (
        r"\bpredecessor\b|\bwhat (?:did|does) .+ (?:replace|supersede)\b|前身|前代",
        "predecessor",
        _EDITION,
        "out",
    ),
    (
        r"\bsuccessor\b|\b(?:replaced|superseded) by\b|\bwhat (?:replaced|replaces|superseded|"
        r"supersedes)\b|后继|接替|取代|替代",
        "successor",
        _EDITION,
        "in",
    ),
    (
        r"\bwhat (?:else )?(?:requires|needs|depends on)\b|\bdepend(?:s|ent)? on (?:it|this)\b",
        "required by",
        ("requires",),
        "in",
    ),
    (
        r"\brequires?\b|\bneeds?\b|\bdepends? on\b|\bdependenc(?:y|ies)\b|\bprerequisites?\b|"
        r"需要|依赖|前提|先决",
        "requires",
        ("requires",),
        "out",
    ),
    (
        r"\bwhat (?:does|did|can|will) .+ (?:cause|degrade|affect|damage)\b|会导致什么|导致了什么",
        "causes",
        ("causes",),
        "out",
    ),
    (
        r"\bcause[sd]?\b|\bdegrad\w*|\baffects?\b|\bdamages?\b|导致|引起|降低|劣化|影响",
        "degrades",
        ("causes",),
        "in",
    ),
    (
        r"\bwhat (?:precedes|comes before)\b|\bbefore which\b|之前是",
        "preceded by",
        ("precedes",),
        "in",
    ),
    (
        r"\bprecedes?\b|\bwhat (?:\w+ )?(?:follows|comes (?:after|next))\b|\bcomes? after\b|"
        r"\bnext (?:step|stage)\b|之后|下一步|下一阶段",
        "precedes",
        ("precedes",),
        "out",
    ),
    (
        r"\b(?:parts|components|members) of\b|\bconsists? of\b|\bmade up of\b|包含|由.+组成",
        "has part",
        ("part_of",),
        "in",
    ),
    (
        r"\b(?:is|are|was|were)\b.*\bpart of\b|\bpart of (?:what|which)\b|\bbelongs? to\b|"
        r"\bcomponent of\b|\bmember of\b|属于|组成部分|隶属",
        "part of",
        ("part_of",),
        "out",
    ),
)
_COMPILED = tuple((re.compile(p, re.I), n, k, d) for p, n, k, d in _RULES)

#: How a statement names each kind (source first): English, Chinese.
_VERB: dict[str, tuple[str, str]] = {
    "requires": ("requires", "需要"),
    "precedes": ("precedes", "先于"),
    "causes": ("causes", "导致"),
    "part_of": ("is part of", "属于"),
    "supersedes": ("supersedes", "取代"),
    "replaces": ("replaces", "替代"),
}
#: A cited sentence that states the relation in prose (the gate accepts it instead).
_PROSE: dict[str, re.Pattern[str]] = {
    "requires": re.compile(
        r"\b(?:requires?|required|needs?|depends? on|prerequisite|must|before)\b|"
        r"需要|依赖|前提|必须",
        re.I,
    ),
    "precedes": re.compile(
        r"\b(?:before|after|then|next|follows?|precedes?)\b|之前|之后|然后", re.I
    ),
    "causes": re.compile(
        r"\b(?:because|causes?|caused|leads? to|results? in|degrades?|due to|triggers?)\b|"
        r"导致|引起|造成|降低",
        re.I,
    ),
    "part_of": re.compile(r"\b(?:part of|belongs? to|component of|consists? of)\b|属于|组成", re.I),
    "supersedes": re.compile(
        r"\b(?:supersed\w+|replac\w+|successor|predecessor)\b|取代|替代", re.I
    ),
    "replaces": re.compile(r"\b(?:supersed\w+|replac\w+|successor|predecessor)\b|取代|替代", re.I),
}


#: A plain causal question ("what causes X?", "什么导致X"): prose mechanisms answer it.
_PLAIN_CAUSE = re.compile(r"cause[sd]?|导致|引起")


def asked_relation(question: str) -> Asked | None:
    """The relation ``question`` asks about, or None."""
    for pattern, name, kinds, direction in _COMPILED:
        m = pattern.search(question)
        if m:
            chinese = sum(is_cjk_char(c) for c in question) > len(question) / 4
            return Asked(name, kinds, "any" if chinese else direction, chinese, m.group(0))
    return None


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
    kg: KnowledgeGraph, question: str, anchor_key: str | None
) -> tuple[Point | None, bool]:
    """The document the question names by title (the longest title it contains) and True,
    else the recall stage's graph anchor and False."""
    q = norm_title(question)

    def names(title: str) -> bool:
        if len(title) < 2 or (len(title) < 3 and not any(is_cjk_char(c) for c in title)):
            return False
        if any(is_cjk_char(c) for c in title):
            return title in q
        return f" {title} " in f" {q} "

    named = [
        kg.points[k]
        for k in kg.doc_keys.values()
        if k in kg.points and names(kg.points[k].norm_title)
    ]
    if named:
        return max(named, key=lambda p: (len(p.norm_title), p.path)), True
    if anchor_key and anchor_key in kg.points:
        return kg.points[anchor_key], False
    return None, False


def documented(
    index: KBIndex,
    kg: KnowledgeGraph,
    question: str,
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
    mine = {p.key for p in kg.of_path(subject.path) if p.kind in ("document", "section")}
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
        hint = f"{question} {other.title}"
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


def _shares_terms(question: str, text: str) -> bool:
    return bool(set(key_terms(question)) & set(tokenize(text)))


def wording(e: Edge, src: Point, dst: Point, chinese: bool) -> str:
    """The relation in words, source first: the author's own diagram label when it names
    this kind of relation forwards ("degrades"), else the kind's verb."""
    verb = _VERB.get(e.kind, (e.kind.replace("_", " "), e.kind))[1 if chinese else 0]
    label = e.label.strip()
    if e.origin == "mermaid" and label and len(label) <= 40:
        last = re.split(r"[,;:，；：]", label)[-1].strip()
        head = last.split(" ")[0].lower()
        is_verb = any(is_cjk_char(c) for c in head) or (head.endswith("s") and head != "is")
        if is_verb and label_kind(last) == (e.kind, False):  # "degrades", "leads to", "降低"
            verb = last
    if chinese:
        return f"{src.title}{verb}{dst.title}。"
    return f"{src.title} {verb} {dst.title}."


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
    pool = candidates(hint, [frag])
    if not pool:
        span = Span(frag.char_start, frag.char_end, frag.text)
        return Candidate(frag, span, " ".join(frag.text.split()), 0.0, (-1, frag.char_start))
    return max(pool, key=lambda c: (c.score, [-x for x in c.order]))


def stated_in_prose(asked: Asked, texts: list[str], subject: Point | None) -> bool:
    """A cited sentence states the asked relation itself (and names the subject, when
    there is one)."""
    if _PLAIN_CAUSE.fullmatch(asked.phrase.strip().lower()) and texts:
        return True  # "what causes X?": the causal composer answers from mechanism sentences
    cues = [_PROSE[k] for k in asked.kinds if k in _PROSE]
    words = set(tokenize(subject.title)) if subject is not None else set()
    return any(
        any(c.search(t) for c in cues) and (not words or words & set(tokenize(t))) for t in texts
    )


def gate(found: Found, cited_texts: list[str]) -> str | None:
    """``graph_neighbor_evidence_missing:...`` when the asked relation has no documented
    edge with neighbour text and no cited sentence states it; else None."""
    if not found.named or found.statements:
        return None
    if stated_in_prose(found.asked, cited_texts, found.subject):
        return None
    subject = found.subject.title if found.subject is not None else "the subject"
    if found.textless:
        return (
            f"graph_neighbor_evidence_missing:the {found.asked.name!r} relation of {subject} "
            f"leads to {', '.join(found.textless)}, whose own text is not readable here"
        )
    return (
        f"graph_neighbor_evidence_missing:no documented {found.asked.name!r} relation for {subject}"
    )


__all__ = ["Asked", "Found", "Statement", "asked_relation", "documented", "gate", "wording"]
