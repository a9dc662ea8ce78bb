"""Best-passage scores place a document; pooled vectors order the sections inside it.

MaxP (index/passages.py) scores a chunk by its best 96-token passage. That is a
*document*-ranking device: on SciFact, where every abstract is one chunk, it lifts the
abstract holding the finding a claim names (hybrid nDCG@10 0.7317 -> 0.7435). Inside a
long document it also decides between sections, and there a passage that matches part of
a question wins over the section about it (docs/benchmarks.md, "MaxP in the product":
the metavar section of Click's ``documentation.md`` above its ``show_default`` section).

So with ``RecallSettings.passage_scope == "document"`` a vector candidate scores

    pooled(chunk) + best passage of its document - best pooled chunk of its document,

both maxima taken over the document's candidates (the chunks the passage search found;
they are all readable by the caller, so nothing outside its scope moves a score). The
document's best chunk scores exactly the document's best passage, its other sections keep
their pooled gaps below it: documents are placed by MaxP, sections ordered by their pooled
vectors. A one-chunk document scores its best passage, exactly as with ``"chunk"``.
Pure: lists in, list out.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from citewise.index.vectors import VectorHit


def document_placed(
    hits: Sequence[VectorHit],
    pooled: Sequence[float],
    document: Mapping[str, Hashable],
) -> list[VectorHit]:
    """``hits``: best-passage scores of chunks (best first); ``pooled``: each hit's pooled
    cosine; ``document``: chunk id -> its document (version). The hits re-scored as the
    module says, best first (ties by chunk id)."""
    if len(pooled) != len(hits):
        raise ValueError("document_placed: one pooled score per hit is needed")
    best_passage: dict[Hashable, float] = {}
    best_pooled: dict[Hashable, float] = {}
    for h, p in zip(hits, pooled, strict=True):
        d = document[h.id]
        best_passage[d] = max(best_passage.get(d, h.score), h.score)
        best_pooled[d] = max(best_pooled.get(d, p), p)
    scored = [
        (h.id, _placed(p, best_passage[d], best_pooled[d]))
        for h, p, d in _rows(hits, pooled, document)
    ]
    return [VectorHit(c, s) for c, s in sorted(scored, key=lambda x: (-x[1], x[0]))]


def _rows(
    hits: Sequence[VectorHit], pooled: Sequence[float], document: Mapping[str, Hashable]
) -> list[tuple[VectorHit, float, Hashable]]:
    return [(h, p, document[h.id]) for h, p in zip(hits, pooled, strict=True)]


def _placed(pooled: float, doc_passage: float, doc_pooled: float) -> float:
    """The document's best pooled chunk scores the document's best passage exactly (no
    rounding: a one-chunk document ranks as with chunk scope)."""
    return doc_passage if pooled == doc_pooled else pooled + doc_passage - doc_pooled


__all__ = ["document_placed"]
