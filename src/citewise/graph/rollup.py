"""A document's relations rolled up from its sections (``citewise graph show DOC``).

Links, wiki links, Mermaid edges and front-matter relations are read in a section (or the
document's front matter); showing a document lists them all, each with the point of the
document it attaches to (the section it was written in, for outgoing ones). Containment
edges inside the document (document -> its own sections) are structure, not relations.
"""

from __future__ import annotations

from dataclasses import dataclass

from citewise.graph.build import KnowledgeGraph
from citewise.graph.models import Edge, Point


@dataclass(frozen=True, slots=True)
class RolledEdge:
    """One relation of a document. ``own`` is the point of the document it attaches to,
    ``other`` the far end, ``written_in`` the section (or document) whose text holds the
    edge's evidence span."""

    direction: str  # "in" | "out"
    edge: Edge
    own: Point
    other: Point
    written_in: Point


def section_of(g: KnowledgeGraph, path: str, line: int) -> Point | None:
    """The innermost section (else the document) of ``path`` whose lines hold ``line``."""
    holders = [
        p
        for p in g.of_path(path)
        if p.kind in ("section", "document") and p.line_start <= line <= p.line_end
    ]
    return max(
        holders, key=lambda p: (p.kind == "section", p.line_start, -p.line_end), default=None
    )


def rolled_up(g: KnowledgeGraph, path: str) -> list[RolledEdge]:
    """Every relation in or out of any point of document ``path``, once each (an edge
    between two points of the document is listed as outgoing), sorted for display."""
    own = {p.key: p for p in g.of_path(path)}
    out: list[RolledEdge] = []

    def add(direction: str, e: Edge, point: Point, other: Point) -> None:
        where = section_of(g, e.span.path, e.span.line_start) or point
        out.append(RolledEdge(direction, e, point, other, where))

    for key, point in own.items():
        for e in g.out_edges(key):
            other = g.points[str(e.target)]
            if not (e.origin == "containment" and other.path == path):
                add("out", e, point, other)
        for e in g.in_edges(key):
            other = g.points[str(e.source)]
            if other.path != path:  # same-document edges are listed once, as outgoing
                add("in", e, point, other)
    out.sort(
        key=lambda r: (
            r.direction,
            r.written_in.line_start if r.direction == "out" else r.own.line_start,
            -r.edge.confidence,
            r.edge.kind,
            r.other.path,
            r.other.line_start,
        )
    )
    return out
