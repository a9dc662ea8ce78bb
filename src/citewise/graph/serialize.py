"""Graph points and edges as plain JSON: one shape for ``citewise graph show --json``
and the HTTP API's ``/kb/{kb}/graph/{node}``."""

from __future__ import annotations

from typing import Any

from citewise.graph.models import Edge, Point


def point_json(p: Point) -> dict[str, Any]:
    """A knowledge point: key, kind, title, where it was read from."""
    return {
        "key": p.key,
        "kind": p.kind,
        "title": p.title,
        "path": p.path,
        "version_id": p.version_id,
        "node_id": p.node_id,
        "heading_path": list(p.heading_path),
        "lines": [p.line_start, p.line_end],
    }


def edge_json(e: Edge, direction: str, other: Point) -> dict[str, Any]:
    """An edge seen from one end (``direction`` "in" or "out"), with its evidence span."""
    s = e.span
    return {
        "direction": direction,
        "relation": e.kind,
        "confidence": e.confidence,
        "origin": e.origin,
        "label": e.label,
        "directed": e.directed,
        "neighbor": point_json(other),
        "evidence": {
            "span_id": s.span_id,
            "path": s.path,
            "version_id": s.version_id,
            "node_id": s.node_id,
            "char_start": s.char_start,
            "char_end": s.char_end,
            "line_start": s.line_start,
            "line_end": s.line_end,
            "text": s.text,
        },
    }
