"""Graph-conditioned neighbor evidence: what a neighbor says comes from its own text.

For each neighbor the recall stage's graph window selected, the lead block of the
neighbor's first visible chunk becomes a ``graph_neighbor_support`` fragment carrying the
relation kind, direction and path that connect it to the anchor. A title alone is never
evidence: an unreadable neighbor is recorded as ``source_window_unavailable`` and adds no
fragment.
"""

from __future__ import annotations

from citewise.errors import CitewiseError
from citewise.evidence.models import Fragment, Limitation
from citewise.evidence.whole import node_fragment
from citewise.graph.select import GraphDiagnostics, neighbor_support
from citewise.index.manager import KBIndex


def neighbor_fragments(
    index: KBIndex,
    diag: GraphDiagnostics | None,
    revision: int,
    allowed: set[str] | None,
    taken: list[Fragment],
) -> tuple[list[Fragment], list[Limitation]]:
    """Neighbor fragments that do not overlap text the pack already holds (``taken``)."""
    if diag is None or diag.status != "ok":
        return [], []
    frags: list[Fragment] = []
    limits: list[Limitation] = []
    for rank, ns in enumerate(neighbor_support(diag)):
        chunk_id = next(
            (c for c in ns.chunk_ids if c in index.chunks and (allowed is None or c in allowed)),
            None,
        )
        if chunk_id is None:
            continue
        chunk = index.chunks[chunk_id]
        try:
            span = [(chunk.char_start, chunk.char_end)]
            nodes = index.store.nodes_near(index.kb, chunk.path, chunk.version_id, span).nodes
        except CitewiseError as exc:
            limits.append(
                Limitation(
                    "source_window_unavailable",
                    f"graph neighbor {ns.neighbor_title!r}: {exc}",
                    chunk.doc_id,
                    chunk.path,
                )
            )
            continue
        node = next((n for n in nodes if n.id == chunk.node_ids[0]), None)
        if node is None or any(
            f.doc_id == chunk.doc_id
            and f.char_start < node.char_end
            and node.char_start < f.char_end
            for f in [*taken, *frags]
        ):
            continue
        frags.append(
            node_fragment(
                node,
                role="graph_neighbor_support",
                doc_id=chunk.doc_id,
                path=chunk.path,
                revision=revision,
                version_id=chunk.version_id,
                reason=f"graph:{ns.relation}:{ns.direction}",
                rank=float(rank),
                relation=ns.relation,
                direction=ns.direction,
                path_to_anchor=ns.path_to_anchor,
            )
        )
    return frags, limits
