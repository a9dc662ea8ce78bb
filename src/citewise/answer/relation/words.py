"""The words of relation questions and statements (:mod:`citewise.answer.relation.graph`).

:func:`asked_relation` reads which relation a question asks about and from which side
(English and Chinese); :func:`wording` says a documented relation in words, source first;
:func:`stated_in_prose` tells whether a cited sentence states the relation itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from citewise.analysis.question import Question
from citewise.analysis.relations import BY_KIND, find_relations, relation_name
from citewise.analysis.tokenize import is_cjk_char, stems, tokenize
from citewise.graph.models import Edge, Point, RelationKind
from citewise.graph.text import label_kind, norm_title

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
    inverse: bool = False  # the phrase states the relation from its target's side


#: The relation types a question may ask about, and the edge kinds that answer each: the
#: edition family answers "what replaced X?" from either edition kind, a cause question also
#: from the edges that say how one thing degrades another. Amendments, repeals, contrasts,
#: likeness and references are read in labels but asked through other routes (editions,
#: comparison), so their words never make a question a relation question.
_FAMILIES: dict[str, tuple[RelationKind, ...]] = {
    "supersedes": ("supersedes", "replaces"),
    "replaces": ("supersedes", "replaces"),
    "requires": ("requires",),
    "uses": ("uses",),
    "configures": ("configures",),
    "causes": ("causes", "degrades"),
    "degrades": ("degrades",),
    "precedes": ("precedes",),
    "part_of": ("part_of",),
}
#: What the English question looks like when its wh-word is the relation's first end
#: ("What replaced X?", "Which module requires X?", "What are the parts of X?"): the
#: wh-word, at most one noun, then only auxiliaries, modals and determiners.
_WH = re.compile(r"^\s*(?:what|which|who)\b(?:\s+(?P<noun>[a-z][\w-]*))?(?P<rest>(?:\s+\w+)*)\s*$")
_WH_START = re.compile(r"\s*(?:what|which|who)\b")
_FUNCTION = frozenset(
    {"is", "are", "was", "were", "be", "been", "the", "a", "an", "can", "could", "will"}
    | {"would", "might", "may", "must", "should", "shall", "else", "usually", "typically"}
    | {"often", "also", "then"}
)
#: Prose that states a relation without one of its relation words ("X must be calibrated
#: before use", "fails because of drift", "the successor model").
_PROSE_EXTRA: dict[str, tuple[str, ...]] = {
    "requires": ("must", "before", "prerequisit"),
    "causes": ("becaus", "due"),
    "degrades": ("becaus", "due"),
    "supersedes": ("successor", "predecessor"),
    "replaces": ("successor", "predecessor"),
}


def _wh_first(prefix: str) -> bool:
    """Whether the words before the relation phrase are a wh-word the phrase starts from."""
    m = _WH.match(prefix.casefold())
    if m is None:
        return False
    noun, rest = m.group("noun"), m.group("rest").split()
    if noun is not None and noun in _FUNCTION:
        rest = [noun, *rest]  # "what is/are ..." (an auxiliary, not a noun)
    return all(w in _FUNCTION for w in rest)


def _wh_verb(text: str, end: int, first: bool) -> bool:
    """Whether a what/which/who question has the phrase as its own verb: right after the
    wh-word ("What configures X?") or last ("What does X use?"), not a participle inside
    a noun phrase ("the pooler used during failover")."""
    last = not text[end:].strip(" ?？.!。")
    return bool(_WH_START.match(text.casefold())) and (first or last)


def _name(family: str, direction: Direction) -> str:
    if family in ("supersedes", "replaces"):
        # the edition family is named by the asked side: its predecessor, its successor
        return "predecessor" if direction == "out" else "successor"
    return relation_name(family, inverse=direction == "in").removeprefix("is ")


def asked_relation(question: Question) -> Asked | None:
    """The relation ``question`` asks about, or None: its first vocabulary phrase that a
    question may ask with (:mod:`citewise.analysis.relations`), oriented by where the
    wh-word stands (English; :func:`oriented` re-reads it from the named subject)."""
    text = question.text
    chinese = sum(is_cjk_char(c) for c in text) > len(text) / 4
    for hit in find_relations(text):
        if not (hit.asked and hit.inflected) or hit.kind not in _FAMILIES:
            continue
        first = _wh_first(text[: hit.start])
        if BY_KIND[hit.kind].wh_only and not _wh_verb(text, hit.end, first):
            continue  # "How do I configure X?" asks for steps, not for what configures X
        phrase = text[hit.start : hit.end]
        direction: Direction = "any" if chinese else ("in" if first != hit.inverse else "out")
        name = _name(hit.kind, direction)
        return Asked(name, _FAMILIES[hit.kind], direction, chinese, phrase, hit.inverse)
    return None


def oriented(asked: Asked, question: Question, subject: str) -> Asked:
    """``asked`` seen from a subject the question names: the subject written before the
    relation phrase is its first end ("X requires what?", "X被什么取代"), after it its
    second ("what replaced X?", "什么会降低X"); unchanged when either is not found."""
    q, name, phrase = norm_title(question.text), norm_title(subject), norm_title(asked.phrase)
    at = q.find(name)
    where = q.find(phrase)
    if at >= 0 and at <= where < at + len(name):  # the phrase inside the subject's title
        where = q.find(phrase, at + len(name))
    if at < 0 or where < 0 or not phrase:
        return asked
    direction: Direction = "out" if (at < where) != asked.inverse else "in"
    family = next(k for k, v in _FAMILIES.items() if v == asked.kinds)
    return replace(asked, direction=direction, name=_name(family, direction))


def wording(e: Edge, src: Point, dst: Point, chinese: bool) -> str:
    """The relation in words, source first: the author's own diagram label when it names
    this kind of relation forwards ("degrades", "leads to"), else the type's name."""
    verb = relation_name(e.kind, chinese=chinese)
    label = e.label.strip()
    if e.origin == "mermaid" and label and len(label) <= 40:
        last = re.split(r"[,;:，；：]", label)[-1].strip()
        head = last.split(" ")[0].lower()
        is_verb = any(is_cjk_char(c) for c in head) or (head.endswith("s") and head != "is")
        if is_verb and label_kind(last) == (e.kind, False):
            verb = last
    if chinese:
        return f"{src.title}{verb}{dst.title}。"
    return f"{src.title} {verb} {dst.title}."


def _states(kinds: tuple[RelationKind, ...], text: str) -> bool:
    """Whether ``text`` holds a phrase of one of ``kinds`` (either direction) or a word that
    states such a relation in prose (``_PROSE_EXTRA``)."""
    if any(h.kind in kinds for h in find_relations(text)):
        return True
    extra = {w for k in kinds for w in _PROSE_EXTRA.get(k, ())}
    return bool(extra) and not extra.isdisjoint(stems(re.findall(r"[a-z]+", text.casefold())))


def stated_in_prose(asked: Asked, texts: list[str], subject: Point | None) -> bool:
    """A cited sentence states the asked relation itself (and names the subject, when
    there is one)."""
    plain = asked.kinds == _FAMILIES["causes"] and (
        stems([asked.phrase.strip().casefold()]) == ["caus"] or asked.phrase in ("导致", "引起")
    )
    if plain and texts:
        return True  # "what causes X?": the causal composer answers from mechanism sentences
    kinds = asked.kinds + (("causes",) if "degrades" in asked.kinds else ())
    words = set(tokenize(subject.title)) if subject is not None else set()
    return any(_states(kinds, t) and (not words or words & set(tokenize(t))) for t in texts)


__all__ = ["Asked", "Direction", "asked_relation", "oriented", "stated_in_prose", "wording"]
