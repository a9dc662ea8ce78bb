"""The words of relation questions and statements (:mod:`citewise.answer.relation`).

:func:`asked_relation` reads which relation a question asks about and from which side
(English and Chinese); :func:`wording` says a documented relation in words, source first;
:func:`stated_in_prose` tells whether a cited sentence states the relation itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from citewise.analysis.tokenize import is_cjk_char, tokenize
from citewise.graph.models import Edge, Point, RelationKind
from citewise.graph.text import label_kind

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


__all__ = ["Asked", "Direction", "asked_relation", "stated_in_prose", "wording"]
