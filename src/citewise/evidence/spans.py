"""Direct-support spans: inside a segment, the sentences (table rows, whole code blocks)
that carry the query's key terms, with exact offsets inside one node."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from citewise.evidence.docview import DocView
from citewise.evidence.sentences import coverage, split_sentences
from citewise.ingest.models import Node

WHOLE = frozenset({"code", "mermaid"})


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
) -> list[SupportSpan]:
    """The best-covered pieces of ``units`` (in the order given, best chunk first).

    A piece qualifies when it holds at least ``min_coverage`` of the key terms (and at
    least one); the ``max_spans`` best are kept, and qualifying neighbours inside one node
    merge into one span. With none qualifying, the best-covered piece (or the first one)
    is the direct support, marked ``best_available`` / ``no_key_term_match``.
    """
    pieces: list[tuple[int, int, Node, Node, int, int]] = []  # (-cov, order, node, unit, s, e)
    for unit in units:
        for node, s, e in node_pieces(view, unit):
            cov = coverage(terms, view.text[s:e]) if terms else 0
            pieces.append((-cov, len(pieces), node, unit, s, e))
    if not pieces:
        return []
    need = max(1, math.ceil(min_coverage * len(terms))) if terms else 1
    good = [p for p in pieces if -p[0] >= need]
    if good:
        chosen = sorted(sorted(good)[:max_spans], key=lambda p: p[1])
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
