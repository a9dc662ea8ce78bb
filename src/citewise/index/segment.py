"""Immutable posting segments for :class:`~citewise.index.lexical.LexicalIndex`.

A :class:`IndexSegment` stores *raw, field-weighted term frequencies* — not BM25
scores — as two sparse views of the same doc×term matrix:

* CSC (``term_ptr``, ``post_doc``, ``post_tf``): the postings of each term, used
  at query time;
* CSR (``doc_ptr``, ``doc_term``, ``doc_tf``): the terms of each document, used
  to keep live document frequencies right when a document is tombstoned and to
  merge segments without re-tokenizing.

Only ``live``, ``df_live`` and ``live_len`` ever change after construction (a
tombstone flips a bit and subtracts the document's contribution).
"""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
I32Array = npt.NDArray[np.int32]
F32Array = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]

_ARRAYS = ("doc_ptr", "doc_term", "doc_tf", "doc_len", "live")
Bag = tuple[Sequence[str], Sequence[float], float]  # tokens, per-token tf weight, length


class IndexSegment:
    """An immutable set of documents (only tombstones can be added)."""

    def __init__(
        self,
        chunk_ids: list[str],
        vocab: list[str],
        doc_ptr: IntArray,
        doc_term: I32Array,
        doc_tf: F32Array,
        doc_len: F32Array,
        live: BoolArray | None = None,
    ) -> None:
        n_docs = len(chunk_ids)
        n_terms = len(vocab)
        self.chunk_ids = chunk_ids
        self.vocab = vocab
        self.term_id: dict[str, int] = {t: i for i, t in enumerate(vocab)}
        self.doc_ptr = doc_ptr
        self.doc_term = doc_term
        self.doc_tf = doc_tf
        rows = np.repeat(np.arange(n_docs, dtype=np.int32), np.diff(doc_ptr))
        self.doc_len = doc_len
        order = np.argsort(doc_term, kind="stable")
        self.post_doc: I32Array = rows[order]
        self.post_tf: F32Array = doc_tf[order]
        counts = np.bincount(doc_term, minlength=n_terms)
        self.term_ptr: IntArray = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(counts, out=self.term_ptr[1:])
        self.live: BoolArray = np.ones(n_docs, dtype=bool) if live is None else live.copy()
        dead_terms = doc_term[~self.live[rows]] if n_docs else doc_term[:0]
        self.df_live: IntArray = (counts - np.bincount(dead_terms, minlength=n_terms)).astype(
            np.int64
        )
        self.live_len = float(self.doc_len[self.live].sum())
        self.n_live = int(self.live.sum())

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_bags(
        cls, chunk_ids: list[str], bags: Sequence[Bag], live: BoolArray | None = None
    ) -> IndexSegment:
        """Build from one (tokens, per-token tf weights, length) bag per document.

        The length is passed separately because not every token is content: the
        literal tokens of :mod:`~citewise.analysis.tokenize` are extra views of words
        already counted, and do not lengthen the document.
        """
        vocab: dict[str, int] = {}
        flat_ids: list[int] = []
        flat_w: list[float] = []
        lens = np.zeros(len(bags), dtype=np.int64)
        doc_len = np.zeros(len(bags), dtype=np.float32)
        for i, (toks, ws, length) in enumerate(bags):
            doc_len[i] = length
            flat_ids.extend([vocab.setdefault(t, len(vocab)) for t in toks])
            flat_w.extend(ws)
            lens[i] = len(toks)
        n_terms = max(len(vocab), 1)
        docs = np.repeat(np.arange(len(bags), dtype=np.int64), lens)
        keys = docs * n_terms + np.asarray(flat_ids, dtype=np.int64)
        uniq, inverse = np.unique(keys, return_inverse=True)
        tf = np.bincount(inverse, weights=np.asarray(flat_w, dtype=np.float64)).astype(np.float32)
        doc_of = uniq // n_terms
        doc_ptr = np.zeros(len(bags) + 1, dtype=np.int64)
        np.cumsum(np.bincount(doc_of, minlength=len(bags)), out=doc_ptr[1:])
        terms = (uniq % n_terms).astype(np.int32)
        return cls(chunk_ids, list(vocab), doc_ptr, terms, tf, doc_len, live)

    @classmethod
    def merged(cls, segments: Sequence[IndexSegment]) -> IndexSegment:
        """Concatenate the live documents of ``segments`` (dead ones are dropped)."""
        vocab: dict[str, int] = {}
        chunk_ids: list[str] = []
        lens: list[IntArray] = []
        terms: list[I32Array] = []
        tfs: list[F32Array] = []
        dls: list[F32Array] = []
        for seg in segments:
            remap = np.fromiter(
                (vocab.setdefault(t, len(vocab)) for t in seg.vocab), np.int32, len(seg.vocab)
            )
            keep = np.flatnonzero(seg.live)
            starts, ends = seg.doc_ptr[keep], seg.doc_ptr[keep + 1]
            row_len = ends - starts
            idx = np.repeat(ends - row_len.cumsum(), row_len) + np.arange(row_len.sum())
            chunk_ids.extend(seg.chunk_ids[i] for i in keep)
            lens.append(row_len)
            terms.append(remap[seg.doc_term[idx]] if seg.vocab else seg.doc_term[idx])
            tfs.append(seg.doc_tf[idx])
            dls.append(seg.doc_len[keep])
        doc_ptr = np.zeros(len(chunk_ids) + 1, dtype=np.int64)
        if lens:
            np.cumsum(np.concatenate(lens), out=doc_ptr[1:])
        doc_term = np.concatenate(terms) if terms else np.zeros(0, np.int32)
        doc_tf = np.concatenate(tfs) if tfs else np.zeros(0, np.float32)
        # Compact the vocabulary: terms only dead documents used are dropped.
        used = np.unique(doc_term)
        new_id = np.full(len(vocab), -1, dtype=np.int32)
        new_id[used] = np.arange(used.size, dtype=np.int32)
        words = list(vocab)
        doc_len = np.concatenate(dls) if dls else np.zeros(0, np.float32)
        return cls(chunk_ids, [words[i] for i in used], doc_ptr, new_id[doc_term], doc_tf, doc_len)

    def copy(self) -> IndexSegment:
        """A copy whose tombstones are its own (the immutable arrays are shared)."""
        twin = copy.copy(self)
        twin.live = self.live.copy()
        twin.df_live = self.df_live.copy()
        return twin

    # -- mutation (tombstones only) ------------------------------------------------
    def kill(self, slot: int) -> None:
        """Tombstone one document; idempotent."""
        if not self.live[slot]:
            return
        self.live[slot] = False
        s, e = self.doc_ptr[slot], self.doc_ptr[slot + 1]
        self.df_live[self.doc_term[s:e]] -= 1
        self.live_len -= float(self.doc_len[slot])
        self.n_live -= 1

    def norm(self, k1: float, b: float, avgdl: float) -> F32Array:
        """Per-document BM25 length normalisation ``k1·(1-b+b·dl/avgdl)``."""
        return (k1 * (1.0 - b + b * self.doc_len / avgdl)).astype(np.float32)

    def bags(self) -> list[Bag]:
        """One (distinct tokens, tf, length) bag per slot; rebuilds an equal segment."""
        bounds = zip(self.doc_ptr[:-1].tolist(), self.doc_ptr[1:].tolist(), strict=True)
        return [
            (
                [self.vocab[t] for t in self.doc_term[s:e].tolist()],
                self.doc_tf[s:e].tolist(),
                float(self.doc_len[i]),
            )
            for i, (s, e) in enumerate(bounds)
        ]

    # -- persistence ---------------------------------------------------------------
    def save(self, path: Path) -> None:
        np.savez(path.with_suffix(".npz"), **{k: getattr(self, k) for k in _ARRAYS})
        meta = {"chunk_ids": self.chunk_ids, "vocab": self.vocab}
        path.with_suffix(".json").write_text(json.dumps(meta, ensure_ascii=False), "utf-8")

    @classmethod
    def load(cls, path: Path) -> IndexSegment:
        meta = json.loads(path.with_suffix(".json").read_text("utf-8"))
        with np.load(path.with_suffix(".npz")) as z:
            arrays = {k: z[k] for k in _ARRAYS}
        return cls(
            list(meta["chunk_ids"]),
            list(meta["vocab"]),
            arrays["doc_ptr"].astype(np.int64),
            arrays["doc_term"].astype(np.int32),
            arrays["doc_tf"].astype(np.float32),
            arrays["doc_len"].astype(np.float32),
            arrays["live"].astype(bool),
        )


def bm25_scores(
    segments: Iterable[tuple[IndexSegment, F32Array, int]],
    tokens: Sequence[str],
    n_live: int,
    n_slots: int,
    population: BoolArray | None = None,
) -> npt.NDArray[np.float64]:
    """Lucene-variant BM25 of every slot of ``segments`` for query ``tokens``.

    ``segments`` are (segment, per-document ``k1·(1-b+b·dl/avgdl)``, slot offset).
    Document frequencies are summed over the segments' *live* documents and
    ``n_live`` is the global live count, so a document's score does not depend on
    the segment it sits in.  Dead slots still get a score: callers mask them.
    With ``population`` (a mask over all slots, dead ones False) document frequencies
    count only its slots, and ``n_live`` and the norms must be that population's too.
    """
    segs = list(segments)
    docs: list[npt.NDArray[np.int32]] = []
    contribs: list[F32Array] = []
    for term, qtf in Counter(tokens).items():
        found = []
        df = 0
        for seg, norm, offset in segs:
            tid = seg.term_id.get(term)
            if tid is not None:
                if population is None:
                    df += int(seg.df_live[tid])
                else:
                    s, e = seg.term_ptr[tid], seg.term_ptr[tid + 1]
                    df += int(np.count_nonzero(population[seg.post_doc[s:e] + offset]))
                found.append((seg, norm, offset, tid))
        if df == 0:
            continue
        weight = qtf * math.log(1.0 + (n_live - df + 0.5) / (df + 0.5))
        for seg, norm, offset, tid in found:
            s, e = seg.term_ptr[tid], seg.term_ptr[tid + 1]
            d = seg.post_doc[s:e]
            tf = seg.post_tf[s:e]
            contribs.append(weight * tf / (tf + norm[d]))
            docs.append(d + np.int32(offset) if offset else d)
    if not docs:
        return np.zeros(n_slots)
    scores = np.bincount(np.concatenate(docs), weights=np.concatenate(contribs), minlength=n_slots)
    return scores.astype(np.float64, copy=False)


def top_k(scores: npt.NDArray[np.float64], mask: BoolArray, k: int) -> npt.NDArray[np.intp]:
    """Slots of the ``k`` best positive scores inside ``mask``, best first.

    The mask is applied to the full score vector *before* selection, so masked
    slots can never take a place in the top k.  Ties go to the lower slot.
    ``scores`` is modified in place (masked entries become 0).
    """
    scores[~mask] = 0.0
    cand = np.flatnonzero(scores > 0.0)
    if cand.size > k:
        cand = cand[np.argpartition(-scores[cand], k - 1)[:k]]
    return cand[np.lexsort((cand, -scores[cand]))]
