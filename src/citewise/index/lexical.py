"""Incremental BM25 over chunks: a merged segment, a small delta, tombstones.

Design (see ``bench/README.md`` for the measurements behind the defaults)
-------------------------------------------------------------------------
* Segments hold **raw field-weighted term frequencies**, not precomputed BM25
  scores.  A precomputed ("eager") index such as bm25s bakes ``idf`` and the
  average document length into every posting, so adding or deleting one chunk
  would silently make every stored score stale; keeping the index exact would
  mean a full rebuild on every change.  Here BM25 is evaluated at query time on
  the posting slices of the query terms only (vectorised numpy), which is as fast
  as bm25s's eager lookup in practice, and it lets k1/b change without a rebuild.
* **Global statistics.**  ``N``, the live document frequency of each term and the
  average length are taken over *all live documents of all segments*; a
  tombstone subtracts its document from them at once.  So a document scores the
  same whether it sits in the merged segment or in the delta, and the scores are
  exactly those of an index built from scratch over the live documents (a test
  checks this).
* **Tombstones.**  ``remove`` and replacement (``add`` of an existing chunk id)
  flip a live bit; dead slots are masked out of every score vector before top-k,
  and are dropped physically at the next :meth:`LexicalIndex.merge`.
* **Authorization before ranking.**  ``allowed`` becomes a boolean mask that is
  combined with the live mask *before* ``argpartition``: a restricted chunk can
  never take a place in the top k, and k allowed results still come back.
* **Fields.**  The title / heading breadcrumb field is folded in BM25F-style: its
  term frequencies count ``title_weight`` times in the document's bag (and in
  its length).  Fractional weights are fine.
* Scoring is the Lucene BM25 variant (idf = ln(1 + (N-df+0.5)/(df+0.5)),
  tf part = tf / (tf + k1·(1-b+b·dl/avgdl))), the same as bm25s ``method="lucene"``.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from citewise.index.segment import Bag, BoolArray, F32Array, Segment
from citewise.index.tokenize import content_tokens, literal_tokens, tokenize

__all__ = ["DEFAULT_B", "DEFAULT_K1", "DEFAULT_TITLE_WEIGHT", "Hit", "LexicalIndex"]

#: Defaults chosen on the SciFact *train* split (grid in bench/lexical_scifact.py);
#: test nDCG@10 0.6915 with them, 0.6842 at the textbook 1.5 / 0.75 / 1.0.
DEFAULT_K1 = 1.5
DEFAULT_B = 0.85
DEFAULT_TITLE_WEIGHT = 3.0
DEFAULT_MERGE_THRESHOLD = 4096
_FORMAT = 1

Allowed = Collection[str] | npt.NDArray[np.bool_] | None


class Hit(NamedTuple):
    chunk_id: str
    score: float


class LexicalIndex:
    """BM25 over chunks with cheap add / remove / replace.

    ``chunk_id`` is the identity: adding an id that is already present replaces it.
    """

    def __init__(
        self,
        *,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        title_weight: float = DEFAULT_TITLE_WEIGHT,
        merge_threshold: int = DEFAULT_MERGE_THRESHOLD,
        max_dead_fraction: float = 0.25,
    ) -> None:
        if k1 < 0 or not 0 <= b <= 1 or title_weight < 0:
            raise ValueError("need k1 >= 0, 0 <= b <= 1, title_weight >= 0")
        self.k1 = float(k1)
        self.b = float(b)
        self.title_weight = float(title_weight)
        self.merge_threshold = merge_threshold
        self.max_dead_fraction = max_dead_fraction
        self._main = Segment.from_bags([], [])
        self._delta_ids: list[str] = []
        self._delta_bags: list[Bag] = []
        self._delta_live: list[bool] = []
        self._delta: Segment | None = None  # built lazily from the _delta_* lists
        self._where: dict[str, int] = {}  # live chunk id -> global slot
        self._layout = 0
        self._cache_key: tuple[object, ...] = ()
        self._norms: tuple[F32Array, F32Array] = (self._main.doc_len, self._main.doc_len)
        self._live_all: BoolArray = self._main.live

    # -- building ------------------------------------------------------------------
    @classmethod
    def build(cls, chunks: Iterable[tuple[str, str, str]], **params: float) -> LexicalIndex:
        """Index ``(chunk_id, text, title_field)`` triples into one merged segment."""
        index = cls(**params)  # type: ignore[arg-type]
        ids: list[str] = []
        bags: list[Bag] = []
        seen: dict[str, int] = {}
        for chunk_id, text, title in chunks:
            if chunk_id in seen:  # last one wins
                bags[seen[chunk_id]] = index.bag_of(text, title)
                continue
            seen[chunk_id] = len(ids)
            ids.append(chunk_id)
            bags.append(index.bag_of(text, title))
        index._main = Segment.from_bags(ids, bags)
        index._where = dict(seen)
        index._delta = None
        index._layout += 1
        return index

    def bag_of(self, text: str, title: str) -> Bag:
        """The (tokens, tf weights, length) bag this index stores for one chunk."""
        # Literal tokens count as terms but not towards the length (they re-view
        # words already counted); measured +0.003 nDCG@10 on SciFact.
        body = content_tokens(text)
        head = content_tokens(title) if title else []
        length = len(body) + self.title_weight * len(head)
        body += literal_tokens(text)
        if title:
            head += literal_tokens(title)
        return body + head, [1.0] * len(body) + [self.title_weight] * len(head), length

    # -- mutation ------------------------------------------------------------------
    def add(self, chunks: Iterable[tuple[str, str, str]]) -> None:
        """Add or replace ``(chunk_id, text, title_field)`` chunks (to the delta)."""
        for chunk_id, text, title in chunks:
            self._kill(chunk_id)
            self._where[chunk_id] = len(self._main.chunk_ids) + len(self._delta_ids)
            self._delta_ids.append(chunk_id)
            self._delta_bags.append(self.bag_of(text, title))
            self._delta_live.append(True)
        self._delta = None
        self._layout += 1
        self._maybe_merge()

    def remove(self, chunk_ids: Iterable[str]) -> int:
        """Tombstone chunks; returns how many were present."""
        n = sum(self._kill(c) for c in chunk_ids)
        self._maybe_merge()
        return n

    def _kill(self, chunk_id: str) -> bool:
        slot = self._where.pop(chunk_id, None)
        if slot is None:
            return False
        n_main = len(self._main.chunk_ids)
        if slot < n_main:
            self._main.kill(slot)
        else:
            self._delta_live[slot - n_main] = False
            if self._delta is not None:
                self._delta.kill(slot - n_main)
        self._cache_key = ()
        return True

    def _maybe_merge(self) -> None:
        dead = len(self._main.chunk_ids) - self._main.n_live
        if len(self._delta_ids) > self.merge_threshold or (
            dead > 64 and dead > self.max_dead_fraction * len(self._main.chunk_ids)
        ):
            self.merge()

    def merge(self) -> None:
        """Fold the delta into the merged segment and drop tombstoned documents."""
        self._main = Segment.merged([self._main, self._delta_segment()])
        self._delta_ids, self._delta_bags, self._delta_live = [], [], []
        self._delta = None
        self._where = {c: i for i, c in enumerate(self._main.chunk_ids)}
        self._layout += 1
        self._cache_key = ()

    def _delta_segment(self) -> Segment:
        if self._delta is None:
            live = np.asarray(self._delta_live, dtype=bool)
            self._delta = Segment.from_bags(self._delta_ids, self._delta_bags, live)
            self._cache_key = ()
        return self._delta

    # -- introspection -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._where

    @property
    def n_slots(self) -> int:
        """Length of a boolean ``allowed`` mask (slots of both segments)."""
        return len(self._main.chunk_ids) + len(self._delta_ids)

    @property
    def layout_version(self) -> int:
        """Changes whenever slots are added or renumbered (masks must be rebuilt)."""
        return self._layout

    @property
    def delta_size(self) -> int:
        return len(self._delta_ids)

    def slot_mask(self, chunk_ids: Iterable[str]) -> BoolArray:
        """Boolean mask over slots that is True for the given live chunk ids."""
        mask = np.zeros(self.n_slots, dtype=bool)
        where = self._where
        slots = [where[c] for c in chunk_ids if c in where]
        mask[slots] = True
        return mask

    # -- search --------------------------------------------------------------------
    def _prepare(self) -> tuple[Segment, Segment]:
        delta = self._delta_segment()
        main = self._main
        key = (self.k1, self.b, self.title_weight, main.live_len, delta.live_len, self._layout,
               main.n_live, delta.n_live)  # fmt: skip
        if key != self._cache_key:
            n = main.n_live + delta.n_live
            avgdl = (main.live_len + delta.live_len) / n if n else 1.0
            avgdl = avgdl or 1.0
            k1, b = self.k1, self.b
            self._norms = tuple(  # type: ignore[assignment]
                (k1 * (1.0 - b + b * s.doc_len / avgdl)).astype(np.float32) for s in (main, delta)
            )
            self._live_all = np.concatenate([main.live, delta.live])
            self._cache_key = key
        return main, delta

    def score_vector(self, tokens: Sequence[str]) -> npt.NDArray[np.float64]:
        """BM25 score of every slot (dead slots included, unmasked) for query tokens."""
        main, delta = self._prepare()
        n_live = main.n_live + delta.n_live
        n_main = len(main.chunk_ids)
        docs: list[npt.NDArray[np.int64] | npt.NDArray[np.int32]] = []
        contribs: list[F32Array] = []
        segs = ((main, self._norms[0], 0), (delta, self._norms[1], n_main))
        for term, qtf in Counter(tokens).items():
            found = []
            df = 0
            for seg, norm, offset in segs:
                tid = seg.term_id.get(term)
                if tid is not None:
                    df += int(seg.df_live[tid])
                    found.append((seg, norm, offset, tid))
            if df == 0:
                continue
            weight = qtf * math.log(1.0 + (n_live - df + 0.5) / (df + 0.5))
            for seg, norm, offset, tid in found:
                s, e = seg.term_ptr[tid], seg.term_ptr[tid + 1]
                d = seg.post_doc[s:e]
                tf = seg.post_tf[s:e]
                contribs.append(weight * tf / (tf + norm[d]))
                docs.append(d + offset if offset else d)
        if not docs:
            return np.zeros(self.n_slots)
        scores = np.bincount(
            np.concatenate(docs), weights=np.concatenate(contribs), minlength=self.n_slots
        )
        return scores.astype(np.float64, copy=False)

    def search(self, query: str, k: int = 10, allowed: Allowed = None) -> list[Hit]:
        """Top ``k`` live chunks for ``query`` among ``allowed`` (None = all).

        ``allowed`` is a collection of chunk ids or a boolean mask of length
        :attr:`n_slots` (see :meth:`slot_mask`).  It is applied before top-k
        selection.  Only chunks sharing at least one term with the query return.
        """
        return self.search_tokens(tokenize(query), k, allowed)

    def search_tokens(
        self, tokens: Sequence[str], k: int = 10, allowed: Allowed = None
    ) -> list[Hit]:
        """:meth:`search` for an already tokenized query."""
        if k <= 0 or not self._where:
            return []
        scores = self.score_vector(tokens)
        mask = self._live_all
        if allowed is not None:
            if isinstance(allowed, np.ndarray):
                if allowed.shape != (self.n_slots,) or allowed.dtype != np.bool_:
                    raise ValueError(
                        f"allowed mask must be bool of length n_slots={self.n_slots}; "
                        "rebuild it with slot_mask() after the index changes"
                    )
                mask = mask & allowed
            else:
                mask = mask & self.slot_mask(allowed)
        scores[~mask] = 0.0
        cand = np.flatnonzero(scores > 0.0)
        if cand.size > k:
            cand = cand[np.argpartition(-scores[cand], k - 1)[:k]]
        cand = cand[np.lexsort((cand, -scores[cand]))]
        ids = self._slot_ids(cand)
        return [Hit(c, float(s)) for c, s in zip(ids, scores[cand].tolist(), strict=True)]

    def _slot_ids(self, slots: npt.NDArray[np.intp]) -> list[str]:
        n_main = len(self._main.chunk_ids)
        main_ids, delta_ids = self._main.chunk_ids, self._delta_ids
        return [main_ids[s] if s < n_main else delta_ids[s - n_main] for s in slots.tolist()]

    def scores(self, query: str) -> dict[str, float]:
        """Every live chunk with a positive score for ``query`` (for tests and debugging)."""
        return dict(self.search(query, k=max(len(self), 1)))

    # -- persistence ---------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write both segments, tombstones included, to ``directory``."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        self._main.save(path / "main")
        self._delta_segment().save(path / "delta")
        meta = {
            "format": _FORMAT,
            "k1": self.k1,
            "b": self.b,
            "title_weight": self.title_weight,
            "merge_threshold": self.merge_threshold,
            "max_dead_fraction": self.max_dead_fraction,
        }
        tmp = path / "meta.json.tmp"
        tmp.write_text(json.dumps(meta), "utf-8")
        tmp.replace(path / "meta.json")

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> LexicalIndex:
        path = Path(directory)
        meta = json.loads((path / "meta.json").read_text("utf-8"))
        if meta.get("format") != _FORMAT:
            raise ValueError(f"unsupported lexical index format {meta.get('format')!r}")
        index = cls(
            k1=meta["k1"],
            b=meta["b"],
            title_weight=meta["title_weight"],
            merge_threshold=meta["merge_threshold"],
            max_dead_fraction=meta["max_dead_fraction"],
        )
        index._main = Segment.load(path / "main")
        delta = Segment.load(path / "delta")
        index._delta = delta
        index._delta_ids = delta.chunk_ids
        index._delta_live = delta.live.tolist()
        # Bags are only needed to rebuild the delta after further adds: recover
        # them from its CSR rows (token order is irrelevant to BM25).
        bounds = zip(delta.doc_ptr[:-1].tolist(), delta.doc_ptr[1:].tolist(), strict=True)
        index._delta_bags = [
            (
                [delta.vocab[t] for t in delta.doc_term[s:e].tolist()],
                delta.doc_tf[s:e].tolist(),
                float(delta.doc_len[i]),
            )
            for i, (s, e) in enumerate(bounds)
        ]
        n_main = len(index._main.chunk_ids)
        index._where = {c: i for i, c in enumerate(index._main.chunk_ids) if index._main.live[i]}
        index._where.update({c: n_main + i for i, c in enumerate(delta.chunk_ids) if delta.live[i]})
        index._layout += 1
        return index
