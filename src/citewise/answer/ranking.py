"""Structural answer units as scored candidates, and the order an answer presents them.

:func:`unit_candidates` offers every unit (:mod:`citewise.answer.units.structure`) that a readable
evidence fragment touches, once, under the best role that touches it, scored by role
weight times relevance (term overlap blended with meaning, :mod:`citewise.answer.relevance`),
times two priors: the recall rank of the hit the fragment came from (:func:`rank_prior`)
and the document's role (a change record below the reference, :mod:`citewise.answer.doc_role`).
A lead-in that the fragment holds is offered with the block it introduces even when the
block itself lies outside the fragment: the document version is the boundary of what may
be read, and the block is the answer.

:func:`present` removes units that another chosen unit already quotes (a list item inside
the lead-in that carries the whole list) and orders the answer by relevance, then by
document order within one source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from citewise.analysis.question import Question
from citewise.answer.candidate import Candidate
from citewise.answer.doc_role import role_factor
from citewise.answer.relevance import Scorer, blend, encode_head, lexical_score
from citewise.answer.support import contains_orchestration
from citewise.answer.units.structure import Unit, document_units
from citewise.core.records import Node
from citewise.evidence.models import Fragment

__all__ = [
    "DENSE_MAX",
    "dense_inputs",
    "present",
    "unit_candidates",
    "units_reader",
    "version_dense_inputs",
]

#: At most this many units per question are encoded (the best by term overlap and role);
#: the rest are scored by term overlap alone, at half weight.
DENSE_MAX = 24


def units_reader(nodes_of: Callable[[str, int], list[Node]]) -> Callable[[Fragment], list[Unit]]:
    """The units of a fragment's document version, each version read and cut once."""
    seen: dict[tuple[str, int], list[Unit]] = {}

    def read(frag: Fragment) -> list[Unit]:
        key = (frag.path, frag.version_id)
        if key not in seen:
            seen[key] = document_units(nodes_of(frag.path, frag.version_id))
        return seen[key]

    return read


#: Share of a unit's weight lost per place its recall hit ranks below the first, and the
#: most that is lost (units of chunks no hit retrieved lose the most).
RANK_STEP = 0.05
RANK_FLOOR = 0.8


def rank_prior(fragment_rank: float) -> float:
    """The weight of a fragment's units by the recall rank of the hit it came from
    (``Fragment.rank`` is the hit's rank times 100 plus a tie-breaker; chunks that no hit
    retrieved rank from 1000): recall ranks whole chunks with their headings by term
    overlap and meaning, a signal a single unit's score does not hold."""
    hit = int(fragment_rank // 100)
    if hit < 1:
        return 1.0
    return max(RANK_FLOOR, 1.0 - RANK_STEP * (hit - 1))


def _ranges(frag: Fragment) -> list[tuple[int, int]]:
    if frag.truncated and frag.head_end is not None and frag.tail_start is not None:
        return [(frag.char_start, frag.head_end), (frag.tail_start, frag.char_end)]
    return [(frag.char_start, frag.char_end)]


def _touches(u: Unit, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(max(u.start, a) < min(u.end, b) for a, b in ranges)


def unit_candidates(
    question: Question,
    fragments: Sequence[Fragment],
    units_of: Callable[[Fragment], list[Unit]],
    scorer: Scorer | None,
    weights: dict[str, float],
    anywhere: frozenset[str] = frozenset(),
    keep: Callable[[str], bool] | None = None,
) -> list[Candidate]:
    """``anywhere``: unit kinds offered from anywhere in a fragment's document version (a
    comparison's table in a sibling section), at the weight of adjacent context; units
    whose text ``keep`` accepts (a profile's part: a how-to's rollback line) are offered
    too, unranked (score 0), so only the profile that wants that part takes them."""
    offered: dict[tuple[str, int, int], tuple[Unit, Fragment, int, float]] = {}
    for fi, frag in enumerate(fragments):
        weight = weights.get(frag.role, 0.0)
        if weight == 0.0:
            continue
        title = frag.heading_path[0] if frag.heading_path else ""
        weight *= rank_prior(frag.rank) * role_factor(question, frag.path, title)
        ranges = _ranges(frag)
        for u in units_of(frag):
            w = weight
            if not _touches(u, ranges):
                if u.kind in anywhere:
                    w = min(weight, weights.get("adjacent_context", 0.0))
                elif keep is not None and keep(u.display):
                    w = 0.0  # offered unranked: only its profile part takes it
                else:
                    continue
            if not _offerable(u):
                continue
            key = (frag.doc_id, u.start, u.end)
            if key not in offered or w > offered[key][3]:
                offered[key] = (u, frag, fi, w)
    items = list(offered.values())
    lex = [_lexical(question, u, f) for u, f, _, _ in items]
    dense: list[float | None] = [None] * len(items)
    if scorer is not None and items:
        order = sorted(range(len(items)), key=lambda i: (-items[i][3] * lex[i], i))[:DENSE_MAX]
        got = scorer(question, [_shown(items[i][0]) for i in order])
        if got is not None:
            dense = [0.0] * len(items)
            for i, sim in zip(order, got, strict=True):
                dense[i] = sim
            for i in set(range(len(items))) - set(order):
                lex[i] *= 0.5
    out = []
    for (u, frag, fi, weight), lx, d in zip(items, lex, dense, strict=True):
        out.append(
            Candidate(
                frag,
                u.span(),
                _shown(u),
                weight * blend(lx, d),
                (fi, u.start),
                (u.heading,) if u.heading is not None else (),
                u.kind,
                u.section,
                _depth(u),
            )
        )
    return sorted(_para_scores(out), key=lambda c: c.order)


#: A pronoun sentence's window scores at least this share of its own (both sentences')
#: relevance: "He came back to Lahore in 1908" answers "What year did Iqbal return to
#: Lahore?" with the sentence before it, which names Iqbal.
WINDOW_SHARE = 0.9
#: A sentence's sequel (it and the sentence after it) scores a little above the sentence,
#: as a short paragraph does above its best sentence: the value often sits in the sentence
#: after the one that names the subject.
SEQUEL_LIFT = 1.01


def _para_scores(found: list[Candidate]) -> list[Candidate]:
    """A short paragraph scores as its best sentence, a little above it (so it is quoted
    whole, with the value in its next sentence), never by the union of its sentences'
    words (a longer unit would otherwise outrank the precise sentence elsewhere). A
    pronoun sentence's window scores as the pronoun sentence, a little above it (so the
    referent is quoted with it), or as both its sentences, a little below them
    (:data:`WINDOW_SHARE`), whichever is more: the pronoun's referent is named in the
    sentence before."""
    out = []
    for c in found:
        if c.kind == "window":  # scores as its pronoun sentence, a little above it
            own = [
                o.score
                for o in found
                if o.kind == "sentence"
                and o.fragment.doc_id == c.fragment.doc_id
                and o.span.end == c.span.end
            ]
            if own:  # or by both its sentences, a little below: the referent is named
                c = replace(c, score=max(own[0] * 1.02, c.score * WINDOW_SHARE))
        if c.kind == "sequel":  # as its first sentence, a little above it
            first = [
                o.score
                for o in found
                if o.kind == "sentence"
                and o.fragment.doc_id == c.fragment.doc_id
                and o.span.start == c.span.start
            ]
            if first:
                c = replace(c, score=max(first[0] * SEQUEL_LIFT, c.score * WINDOW_SHARE))
        if c.kind == "para":
            inner = [
                o.score
                for o in found
                if o.kind == "sentence"
                and o.fragment.doc_id == c.fragment.doc_id
                and c.span.start <= o.span.start
                and o.span.end <= c.span.end
            ]
            if inner:
                c = replace(c, score=max(inner) * 1.02)
        out.append(c)
    return out


def _lexical(question: Question, u: Unit, frag: Fragment) -> float:
    """Term overlap; a lead-in and its block count half each, so a block that merely holds
    the asked-for item does not outrank the item itself."""
    heading = " ".join(frag.heading_path[-1:]) or u.heading_text
    whole = lexical_score(question, u.display, heading)
    if u.kind != "lead" or not u.lead_in:
        return whole
    score = 0.5 * whole + 0.5 * lexical_score(question, u.lead_in, heading)
    # "Check it:" before a console transcript says nothing by itself
    return score if len(u.lead_in.split()) >= 4 else 0.5 * score


def _depth(u: Unit) -> int:
    """The level of the unit's section heading ("### X" is 3; 0 without one)."""
    line = u.section_line.text.lstrip() if u.section_line is not None else ""
    return len(line) - len(line.lstrip("#"))


def _offerable(u: Unit) -> bool:
    return len(u.display) >= 3 and not contains_orchestration(u.display)


def dense_inputs(units: Sequence[Unit]) -> list[str]:
    """The texts the dense scorer encodes for ``units`` (those :func:`unit_candidates` may
    offer), exactly as it encodes them: the shown text's head (:func:`encode_head`). The
    index encodes these ahead of the questions (:mod:`citewise.index.unit_vectors`)."""
    return [encode_head(_shown(u)) for u in units if _offerable(u)]


def version_dense_inputs(nodes: Sequence[Node]) -> list[str]:
    """:func:`dense_inputs` of every unit of one version (its nodes, whole)."""
    return dense_inputs(document_units(nodes))


def _shown(u: Unit) -> str:
    return f"{u.heading_text}: {u.display}" if u.heading is not None else u.display


def present(chosen: list[Candidate], intent: str) -> list[Candidate]:
    """``chosen`` without units another chosen unit quotes, in presentation order: for
    how-to, definition and comparison answers the profile's order; otherwise sources by
    their best unit, and each source's units in document order."""
    kept: list[Candidate] = []
    for c in chosen:
        inside = any(
            o is not c
            and o.fragment.doc_id == c.fragment.doc_id
            and o.span.start <= c.span.start
            and c.span.end <= o.span.end
            and (o.span.start, o.span.end) != (c.span.start, c.span.end)
            for o in chosen
        )
        same = any(k.key == c.key for k in kept)
        if not inside and not same and not _shares_sentence(c, kept):
            kept.append(c)
    if intent in ("how_to", "definition", "compare"):
        return kept
    best: dict[str, float] = {}
    first: dict[str, int] = {}
    for i, c in enumerate(kept):
        d = c.fragment.doc_id
        best[d] = max(best.get(d, 0.0), c.score)
        first.setdefault(d, i)
    return sorted(
        kept, key=lambda c: (-best[c.fragment.doc_id], first[c.fragment.doc_id], c.span.start)
    )


_PAIRS = frozenset({"window", "sequel"})


def _shares_sentence(c: Candidate, kept: list[Candidate]) -> bool:
    """Whether ``c`` overlaps a unit already kept from its document, one of the two being
    a sentence pair (a window or a sequel): "A. B." and "B. C." never both quote "B."."""
    return any(
        k.fragment.doc_id == c.fragment.doc_id
        and (k.kind in _PAIRS or c.kind in _PAIRS)
        and max(k.span.start, c.span.start) < min(k.span.end, c.span.end)
        for k in kept
    )
