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
    """One relation of a document: ``own`` is its section (or the document itself)."""

    direction: str  # "in" | "out"
    edge: Edge
    own: Point
    other: Point


def rolled_up(g: KnowledgeGraph, path: str) -> list[RolledEdge]:
    """Every relation in or out of any point of document ``path``, sorted for display."""
    own = {p.key: p for p in g.of_path(path)}
    out: list[RolledEdge] = []
    for key, point in own.items():
        for e in g.out_edges(key):
            other = g.points[str(e.target)]
            if not (e.origin == "containment" and other.path == path):
                out.append(RolledEdge("out", e, point, other))
        for e in g.in_edges(key):
            other = g.points[str(e.source)]
            if not (e.origin == "containment" and other.path == path):
                out.append(RolledEdge("in", e, point, other))
    out.sort(
        key=lambda r: (
            r.direction,
            r.own.line_start,
            -r.edge.confidence,
            r.edge.kind,
            r.other.path,
            r.other.line_start,
        )
    )
    return out
