"""Direct-support spans: inside a segment, the sentences (table rows, whole code blocks)
that carry the query's key terms, with exact offsets inside one node."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from citewise.core.records import Node
from citewise.core.stored import StoredChunk
from citewise.evidence.docview import DocView
from citewise.evidence.sentences import held_terms, split_sentences

WHOLE = frozenset({"code", "mermaid"})
#: (-coverage, order, node, unit, start, end) of a candidate piece.
_Piece = tuple[int, int, Node, Node, int, int]


@dataclass(frozen=True, slots=True)
class SupportSpan:
    """Direct support inside one node: the offsets of the sentence (table row, block)
    that carries the query's terms. (A sentence of plain text is a ``sentences.Span``.)"""

    node: Node  # the node that contains the span (a paragraph, table row, code block...)
    unit: Node  # the chunk member it belongs to
    start: int
    end: int
    coverage: int
    reason: str


def node_pieces(view: DocView, unit: Node) -> list[tuple[Node, int, int]]:
    """Sentence-sized pieces of one chunk member: sentences, table rows, whole blocks."""
    if unit.kind == "table":
        rows = [c for c in view.children.get(unit.id, []) if c.kind == "table_row"]
        return [(r, r.char_start, r.char_end) for r in rows]
    if unit.kind in WHOLE:
        return [(unit, unit.char_start, unit.char_end)]
    pieces = split_sentences(unit.text, unit.char_start, blocks=False, clauses=True)
    return [(unit, p.start, p.end) for p in pieces]


def select_spans(
    view: DocView,
    units: Sequence[Node],
    terms: list[str],
    *,
    max_spans: int,
    min_coverage: float,
    weights: Mapping[str, float] | None = None,
) -> list[SupportSpan]:
    """The best-covered pieces of ``units`` (in the order given, best chunk first).

    A piece qualifies when it holds at least ``min_coverage`` of the key terms (and at
    least one); the ``max_spans`` best are kept, and qualifying neighbours inside one node
    merge into one span. With ``weights`` (a term's rarity in the knowledge base), a piece
    also qualifies when the weights of the terms it holds reach ``min_coverage`` of the
    total, and "best" weighs each term held, so the piece that holds the question's
    distinctive words beats one holding more of its common ones. With none qualifying, the
    best-covered piece (or the first one) is the direct support, marked
    ``best_available`` / ``no_key_term_match``.
    """
    # (-cov, order, node, unit, s, e) and the weighted coverage by order
    pieces: list[_Piece] = []
    weighted: list[float] = []
    for unit in units:
        for node, s, e in node_pieces(view, unit):
            held = held_terms(terms, _with_caption(node, view.text[s:e])) if terms else []
            pieces.append((-len(held), len(pieces), node, unit, s, e))
            weighted.append(sum(weights.get(t, 1.0) for t in held) if weights else len(held))
    if not pieces:
        return []
    need = max(1, math.ceil(min_coverage * len(terms))) if terms else 1
    total = sum(weights.get(t, 1.0) for t in terms) if weights else 0.0
    good = [
        p
        for p in pieces
        if -p[0] >= need or (-p[0] > 0 and total and weighted[p[1]] >= min_coverage * total)
    ]
    if good:
        good.sort(key=lambda p: (-weighted[p[1]], p[0], p[1]))
        if weights:
            good = _by_new_terms(
                good, [held_terms(terms, view.text[p[4] : p[5]]) for p in good], weights, max_spans
            )
        chosen = sorted(good[:max_spans], key=lambda p: p[1])
        reason = "sentence_match"
    else:
        best = min(pieces)
        chosen = [best]
        reason = "best_available" if -best[0] > 0 else "no_key_term_match"
    spans: list[SupportSpan] = []
    last_order = -2
    for negcov, order, node, unit, s, e in chosen:
        prev = spans[-1] if spans else None
        if prev is not None and prev.node.id == node.id and order == last_order + 1:
            spans[-1] = SupportSpan(node, unit, prev.start, e, prev.coverage - negcov, reason)
        else:
            spans.append(SupportSpan(node, unit, s, e, -negcov, reason))
        last_order = order
    return spans


def best_hit_span(
    view: DocView,
    chunks: Sequence[StoredChunk],
    hit_rank: Mapping[str, int],
    found: Sequence[SupportSpan],
    terms: list[str],
    *,
    by_meaning: Collection[str],
    min_coverage: float,
    weights: Mapping[str, float] | None,
) -> list[SupportSpan]:
    """The best sentence of the segment's best-ranked chunk, when none of ``found`` lies
    in it and the dense route retrieved it (``by_meaning``: the chunk ids it ranked): the
    chunk search ranks first by meaning as well as words keeps a direct span, even when
    sentences elsewhere in the segment hold more of the question's words ("only available
    ... through an entry point, not through the python command" for "why does completion
    not work with the python command"). A chunk ranked by words alone gains nothing here:
    the segment's sentences are already chosen by those words. Nothing either when that
    chunk holds no qualifying sentence."""
    ranked = [c for c in chunks if c.chunk_id in hit_rank]
    if not ranked:
        return []
    best = min(ranked, key=lambda c: hit_rank[c.chunk_id])
    if best.chunk_id not in by_meaning:
        return []
    members = set(best.node_ids)
    if any(sp.unit.id in members and best.char_start <= sp.start < best.char_end for sp in found):
        return []
    units: list[Node] = []
    for nid in best.node_ids:
        u = view.unit_of(nid)
        if u is not None and u not in units:
            units.append(u)
    got = select_spans(view, units, terms, max_spans=1, min_coverage=min_coverage, weights=weights)
    return [sp for sp in got if sp.reason == "sentence_match"]


def _with_caption(node: Node, text: str) -> str:
    """A table row's text with its table's caption (a PDF table's title, which the page
    prints apart from the rows: "November - 2015"): what the row's figures are of."""
    caption = node.attrs.get("caption") if node.kind == "table_row" else None
    return f"{caption}\n{text}" if caption else text


def _by_new_terms(
    ranked: list[_Piece], held: list[list[str]], weights: Mapping[str, float], n: int
) -> list[_Piece]:
    """The first ``n`` of ``ranked`` chosen greedily by the weight of the terms they add to
    those already chosen (ties: the given order); pieces that add nothing come after, in
    the given order. Together the spans then hold as many of the question's distinctive
    terms as they can, instead of repeating its commonest ones."""
    chosen: list[int] = []
    covered: set[str] = set()
    left = list(range(len(ranked)))
    while left and len(chosen) < n:
        gain = [sum(weights.get(t, 1.0) for t in set(held[i]) - covered) for i in left]
        best = max(range(len(left)), key=lambda k: (gain[k], -left[k]))
        if gain[best] <= 0:
            break
        i = left.pop(best)
        chosen.append(i)
        covered.update(held[i])
    return [ranked[i] for i in chosen] + [ranked[i] for i in left]
