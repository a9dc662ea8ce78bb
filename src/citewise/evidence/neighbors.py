"""Graph-conditioned neighbor evidence: what a neighbor says comes from its own text.

For each neighbor the recall stage's graph window selected, the block of the neighbor's
text that best answers the question (its chunks ranked by the question's key terms, then
the best block of the best chunk; the lead block when nothing matches) becomes a
``graph_neighbor_support`` fragment carrying the relation kind, direction and path that
connect it to the anchor. Headings are never chosen: a title alone is never evidence. An
unreadable neighbor is recorded as ``source_window_unavailable`` and adds no fragment.
The pack's budget caps these fragments like any other (role priority 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citewise.analysis.tokenize import key_terms, tokenize
from citewise.core.records import Node
from citewise.errors import CitewiseError, CorruptContent
from citewise.evidence.models import Fragment, Limitation
from citewise.evidence.whole import node_fragment
from citewise.graph.select import GraphDiagnostics, neighbor_support
from citewise.index import ask_reads
from citewise.index.manager import KBIndex

#: Node kinds that state nothing by themselves.
_NOT_EVIDENCE = frozenset({"heading", "document", "section", "front_matter"})
#: Blocks that are not prose (a relation's neighbour text must be prose).
_NOT_PROSE = frozenset({"code", "mermaid", "table", "table_row", "page_furniture"})


@dataclass(frozen=True, slots=True)
class NeighborBlock:
    """The chosen block of a neighbor: its node, chunk and how many question terms it holds."""

    node: Node
    chunk_id: str
    matched: int


def best_block(
    index: KBIndex,
    chunk_ids: Sequence[str],
    allowed: set[str] | None,
    query: str,
    taken: Sequence[Fragment] = (),
    *,
    prose: bool = False,
) -> NeighborBlock | None:
    """The neighbor's block that holds most of ``query``'s key terms (the first block of
    its first visible chunk when none does), not overlapping ``taken`` (with ``prose``,
    no code, diagram or table). Raises
    :class:`CitewiseError` when the chosen chunk's text cannot be read."""
    visible = [c for c in chunk_ids if c in index.chunks and (allowed is None or c in allowed)]
    if not visible:
        return None
    terms = set(key_terms(query))

    def matched(text: str) -> int:
        return len(terms & set(tokenize(text)))

    texts = index.chunk_texts(visible)
    ranked = sorted(enumerate(visible), key=lambda t: (-matched(texts.get(t[1], "")), t[0]))
    skip = _NOT_EVIDENCE | _NOT_PROSE if prose else _NOT_EVIDENCE
    best: NeighborBlock | None = None
    for _, cid in ranked[:3]:  # the best block of the three best chunks
        chunk = index.chunks[cid]
        span = [(chunk.char_start, chunk.char_end)]
        nodes = index.nodes_near(chunk.path, chunk.version_id, span).nodes
        own = {n.id: n for n in nodes}
        blocks = [own[i] for i in chunk.node_ids if i in own and own[i].kind not in skip]
        for n in blocks:
            if any(
                f.doc_id == chunk.doc_id and f.char_start < n.char_end and n.char_start < f.char_end
                for f in taken
            ):
                continue
            got = matched(n.text)
            if best is None or got > best.matched:
                best = NeighborBlock(n, cid, got)
    return best


def _confirm(index: KBIndex, block: NeighborBlock) -> None:
    """The block is quoted, so it is read from the store and checked against its sha256
    (as the evidence stage reads what it quotes), never taken from the state's copy alone;
    a version read and checked earlier in the same ask is not read again
    (:mod:`citewise.index.ask_reads`). Raises :class:`CorruptContent` when the stored text
    fails its hash or no longer holds the block."""
    chunk = index.chunks[block.chunk_id]
    key = (chunk.doc_id, chunk.version_id)
    text = ask_reads.checked(key)
    if text is None:
        text = index.store.get_document_text(index.kb, *key)
        ask_reads.note(key, text)
    node = block.node
    if text[node.char_start : node.char_end] != node.text:
        raise CorruptContent(
            f"{chunk.path}: the stored text no longer holds the neighbour's block.",
            hint="Re-add the file, or restore the store from a backup.",
        )


def neighbor_fragments(
    index: KBIndex,
    diag: GraphDiagnostics | None,
    revision: int,
    allowed: set[str] | None,
    taken: list[Fragment],
    query: str = "",
) -> tuple[list[Fragment], list[Limitation]]:
    """Neighbor fragments that do not overlap text the pack already holds (``taken``)."""
    if diag is None or diag.status != "ok":
        return [], []
    frags: list[Fragment] = []
    limits: list[Limitation] = []
    for rank, ns in enumerate(neighbor_support(diag)):
        try:
            block = best_block(index, ns.chunk_ids, allowed, query, [*taken, *frags])
            if block is not None:
                _confirm(index, block)
        except CitewiseError as exc:
            first = next((c for c in ns.chunk_ids if c in index.chunks), None)
            chunk = index.chunks[first] if first else None
            limits.append(
                Limitation(
                    "source_window_unavailable",
                    f"graph neighbor {ns.neighbor_title!r}: {exc}",
                    chunk.doc_id if chunk else "",
                    chunk.path if chunk else "",
                )
            )
            continue
        if block is None:
            continue
        chunk = index.chunks[block.chunk_id]
        frags.append(
            node_fragment(
                block.node,
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
