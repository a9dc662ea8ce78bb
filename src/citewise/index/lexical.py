"""Incremental BM25 over chunks: a merged segment, a small delta, tombstones.

Design (rationale and measurements in ``bench/README.md``):

* Segments hold raw field-weighted term frequencies, not precomputed BM25 scores
  (an eager index like bm25s bakes idf and avgdl into every posting, so any
  change would make stored scores stale).  BM25 is evaluated at query time on
  the query terms' posting slices (vectorised numpy) — as fast as bm25s here —
  and k1/b can change without a rebuild.
* Global statistics: N, live document frequencies and avgdl cover all live
  documents of all segments, so scores equal those of a from-scratch index.
  A :class:`Population` (the chunks one caller may read) replaces them with that
  population's own N, avgdl and document frequencies, so a caller's scores equal
  those of an index holding only what it may read (see docs/security.md).
* ``remove`` / replacement flip a live bit (tombstone); dead slots are masked
  before top-k and dropped at :meth:`LexicalIndex.merge`.
* ``allowed`` becomes a boolean mask applied *before* ``argpartition``.
* The title / heading field counts ``title_weight`` times (BM25F-style).
* Lucene BM25 variant, identical to bm25s ``method="lucene"``.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from citewise.analysis.tokenize import content_tokens, literal_tokens, tokenize
from citewise.index.segment import Bag, BoolArray, F32Array, IndexSegment, bm25_scores, top_k

__all__ = [
    "DEFAULT_B",
    "DEFAULT_K1",
    "DEFAULT_TITLE_WEIGHT",
    "LexicalHit",
    "LexicalIndex",
    "Population",
]

#: Defaults chosen on the SciFact *train* split (grid in bench/lexical_scifact.py);
#: test nDCG@10 0.6915 with them, 0.6842 at the textbook 1.5 / 0.75 / 1.0.
DEFAULT_K1 = 1.5
DEFAULT_B = 0.85
DEFAULT_TITLE_WEIGHT = 3.0
DEFAULT_MERGE_THRESHOLD = 4096
_FORMAT = 1
_PARAMS = ("k1", "b", "title_weight", "merge_threshold", "max_dead_fraction")

Allowed = Collection[str] | npt.NDArray[np.bool_] | None


class LexicalHit(NamedTuple):
    chunk_id: str
    score: float


class Population(NamedTuple):
    """Scoring statistics of a subset of the live chunks (one caller's readable set):
    ``mask`` over slots, its size ``n`` and the length norms from its own average length.
    Valid for the index :attr:`LexicalIndex.layout_version` it was built at."""

    mask: BoolArray
    n: int
    norms: tuple[F32Array, F32Array]
    layout: int


class LexicalIndex:
    """BM25 over chunks with cheap add / remove / replace.

    ``chunk_id`` is the identity: adding an id that is already present replaces it.
    Not thread-safe: one writer at a time, and no search while a write runs. Concurrent
    searches are safe once :meth:`prepare` has run after the last change; to change an
    index that others are searching, change a :meth:`copy` and publish that.
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
        self._title_weight = float(title_weight)
        self.merge_threshold = merge_threshold
        self.max_dead_fraction = max_dead_fraction
        self._main = IndexSegment.from_bags([], [])
        self._delta_ids: list[str] = []
        self._delta_bags: list[Bag] = []
        self._delta_live: list[bool] = []
        self._delta: IndexSegment | None = None  # built lazily from the _delta_* lists
        self._where: dict[str, int] = {}  # live chunk id -> global slot
        self._layout = 0
        self._cache_key: tuple[object, ...] = ()
        self._norms: tuple[F32Array, F32Array] = (self._main.doc_len, self._main.doc_len)
        self._live_all: BoolArray = self._main.live

    @classmethod
    def build(cls, chunks: Iterable[tuple[str, str, str]], **params: Any) -> LexicalIndex:
        """Index ``(chunk_id, text, title_field)`` triples into one merged segment.

        ``params`` are the constructor's keyword arguments (k1, b, title_weight...).
        """
        index = cls(**params)
        bags: dict[str, Bag] = {}  # a repeated chunk id: the last one wins
        for chunk_id, text, title in chunks:
            bags[chunk_id] = index.bag_of(text, title)
        index._main = IndexSegment.from_bags(list(bags), list(bags.values()))
        index._where = {c: i for i, c in enumerate(bags)}
        index._layout += 1
        return index

    def copy(self) -> LexicalIndex:
        """An independent copy: changing either never changes what the other returns.

        Segments share their immutable arrays; only tombstones and the delta lists are
        copied, so a copy costs a fraction of a rebuild.
        """
        twin = copy.copy(self)
        twin._main = self._main.copy()
        twin._delta = None if self._delta is None else self._delta.copy()
        twin._delta_ids = list(self._delta_ids)
        twin._delta_bags = list(self._delta_bags)
        twin._delta_live = list(self._delta_live)
        twin._where = dict(self._where)
        return twin

    def prepare(self) -> None:
        """Build the lazily built scoring caches now, so that searches only read."""
        self._prepare()

    def bag_of(self, text: str, title: str) -> Bag:
        """The (tokens, tf weights, length) bag this index stores for one chunk."""
        # Literal tokens count as terms but not towards the length (they re-view
        # words already counted); measured +0.003 nDCG@10 on SciFact.
        body = content_tokens(text)
        head = content_tokens(title) if title and self.title_weight > 0 else []
        length = len(body) + self.title_weight * len(head)
        body += literal_tokens(text)
        if title and self.title_weight > 0:
            head += literal_tokens(title)
        return body + head, [1.0] * len(body) + [self.title_weight] * len(head), length

    def add(self, chunks: Iterable[tuple[str, str, str]]) -> None:
        """Add or replace ``(chunk_id, text, title_field)`` chunks (to the delta)."""
        self._delta = None  # first: the delta stays consistent if ``chunks`` raises
        self._layout += 1
        for chunk_id, text, title in chunks:
            bag = self.bag_of(text, title)
            self._kill(chunk_id)
            self._where[chunk_id] = len(self._main.chunk_ids) + len(self._delta_ids)
            self._delta_ids.append(chunk_id)
            self._delta_bags.append(bag)
            self._delta_live.append(True)
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
            dead > 0 and dead > self.max_dead_fraction * len(self._main.chunk_ids)
        ):
            self.merge()

    def merge(self) -> None:
        """Fold the delta into the merged segment and drop tombstoned documents."""
        self._main = IndexSegment.merged([self._main, self._delta_segment()])
        self._delta_ids, self._delta_bags, self._delta_live = [], [], []
        self._delta = None
        self._where = {c: i for i, c in enumerate(self._main.chunk_ids)}
        self._layout += 1
        self._cache_key = ()

    def _delta_segment(self) -> IndexSegment:
        if self._delta is None:
            live = np.asarray(self._delta_live, dtype=bool)
            self._delta = IndexSegment.from_bags(self._delta_ids, self._delta_bags, live)
            self._cache_key = ()
        return self._delta

    def __len__(self) -> int:
        return len(self._where)

    def text_terms(self, chunk_id: str, title: str) -> list[str] | None:
        """The distinct terms of the text field ``chunk_id`` was indexed with (the set
        ``tokenize(text)`` gives), read from its stored row instead of tokenizing the text
        again; ``title`` is the title field it was indexed with. A term of the title counts
        only when its weight exceeds what the title's own tokens give (weights are whole
        multiples, exact in float32). None when ``chunk_id`` is not indexed."""
        slot = self._where.get(chunk_id)
        if slot is None:
            return None
        n_main = len(self._main.chunk_ids)
        weights: dict[str, float] = {}
        if slot < n_main:
            seg = self._main
            lo, hi = int(seg.doc_ptr[slot]), int(seg.doc_ptr[slot + 1])
            terms, tfs = seg.doc_term[lo:hi].tolist(), seg.doc_tf[lo:hi].tolist()
            for term, tf in zip(terms, tfs, strict=True):
                weights[seg.vocab[term]] = tf
        else:
            tokens, ws, _ = self._delta_bags[slot - n_main]
            for token, w in zip(tokens, ws, strict=True):
                weights[token] = weights.get(token, 0.0) + w
        if title and self._title_weight > 0:
            for token in tokenize(title):
                weights[token] = weights.get(token, 0.0) - self._title_weight
        return [t for t, w in weights.items() if w > 0.5]  # body counts are whole numbers

    def main_term_ids(self) -> Mapping[str, int]:
        """The merged segment's term -> id (the ids :meth:`text_term_ids` gives); read only."""
        return self._main.term_id

    def text_term_ids(self, chunk_id: str, title: str) -> npt.NDArray[np.int64] | None:
        """:meth:`text_terms` as ids of :meth:`main_term_ids`, read from the merged
        segment's arrays without building strings; None when ``chunk_id`` is not in the
        merged segment (the caller then uses :meth:`text_terms`)."""
        slot = self._where.get(chunk_id)
        seg = self._main
        if slot is None or slot >= len(seg.chunk_ids):
            return None
        lo, hi = int(seg.doc_ptr[slot]), int(seg.doc_ptr[slot + 1])
        weights = dict(zip(seg.doc_term[lo:hi].tolist(), seg.doc_tf[lo:hi].tolist(), strict=True))
        if title and self._title_weight > 0:
            for token in tokenize(title):  # as text_terms: one subtraction per occurrence
                tid = seg.term_id.get(token)
                if tid is not None and tid in weights:
                    weights[tid] -= self._title_weight
        return np.array(sorted(t for t, w in weights.items() if w > 0.5), dtype=np.int64)

    def document_frequency(self, term: str, population: Population | None = None) -> int:
        """How many live chunks hold index token ``term`` (text or heading field); with
        ``population``, only chunks of that caller's readable set count."""
        main, delta = self._prepare()
        if population is not None and (
            population.layout != self._layout or population.mask.shape != (self.n_slots,)
        ):
            raise ValueError("stale population: rebuild it with population() after a change")
        total = 0
        for seg, offset in ((main, 0), (delta, len(main.chunk_ids))):
            tid = seg.term_id.get(term)
            if tid is None:
                continue
            if population is None:
                total += int(seg.df_live[tid])
            else:
                s, e = seg.term_ptr[tid], seg.term_ptr[tid + 1]
                total += int(np.count_nonzero(population.mask[seg.post_doc[s:e] + offset]))
        return total

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._where

    def ids(self) -> list[str]:
        """The live chunk ids."""
        return list(self._where)

    @property
    def n_slots(self) -> int:
        """Length of a boolean ``allowed`` mask (slots of both segments)."""
        return len(self._main.chunk_ids) + len(self._delta_ids)

    @property
    def layout_version(self) -> int:
        """Changes whenever slots are added or renumbered (masks must be rebuilt)."""
        return self._layout

    @property
    def title_weight(self) -> float:
        """Fixed at construction: it is baked into the stored term frequencies."""
        return self._title_weight

    @property
    def delta_size(self) -> int:
        return len(self._delta_ids)

    def slot_mask(self, chunk_ids: Iterable[str]) -> BoolArray:
        """Boolean mask over slots that is True for the given live chunk ids."""
        mask = np.zeros(self.n_slots, dtype=bool)
        mask[[self._where[c] for c in chunk_ids if c in self._where]] = True
        return mask

    def _prepare(self) -> tuple[IndexSegment, IndexSegment]:
        delta = self._delta_segment()
        main = self._main
        key = (self.k1, self.b, main.live_len, delta.live_len, self._layout, main.n_live,
               delta.n_live)  # fmt: skip
        if key != self._cache_key:
            n = main.n_live + delta.n_live
            avgdl = ((main.live_len + delta.live_len) / n if n else 0.0) or 1.0
            self._norms = (main.norm(self.k1, self.b, avgdl), delta.norm(self.k1, self.b, avgdl))
            self._live_all = np.concatenate([main.live, delta.live])
            self._cache_key = key
        return main, delta

    def population(self, chunk_ids: Iterable[str]) -> Population:
        """Statistics of the live chunks among ``chunk_ids`` (see :class:`Population`).

        Lengths are summed in float64 (they are whole numbers times ``title_weight``), so
        a population's average equals the global one of an index holding only it."""
        main, delta = self._prepare()
        mask = self.slot_mask(chunk_ids) & self._live_all
        n = int(np.count_nonzero(mask))
        lengths = np.concatenate([main.doc_len, delta.doc_len])
        total = float(lengths[mask].sum(dtype=np.float64))
        avgdl = (total / n if n else 0.0) or 1.0
        norms = (main.norm(self.k1, self.b, avgdl), delta.norm(self.k1, self.b, avgdl))
        return Population(mask, n, norms, self._layout)

    def score_vector(
        self, tokens: Sequence[str], population: Population | None = None
    ) -> npt.NDArray[np.float64]:
        """BM25 score of every slot (dead slots included, unmasked) for query tokens, with
        the statistics of ``population`` (None: every live chunk)."""
        main, delta = self._prepare()
        if population is None:
            norms, n, mask = self._norms, main.n_live + delta.n_live, None
        else:
            if population.layout != self._layout or population.mask.shape != (self.n_slots,):
                raise ValueError("stale population: rebuild it with population() after a change")
            norms, n, mask = population.norms, population.n, population.mask
        segs = ((main, norms[0], 0), (delta, norms[1], len(main.chunk_ids)))
        return bm25_scores(segs, tokens, n, self.n_slots, mask)

    def search(self, query: str, k: int = 10, allowed: Allowed = None) -> list[LexicalHit]:
        """Top ``k`` live chunks for ``query`` among ``allowed`` (None = all).

        ``allowed`` is a collection of chunk ids or a boolean mask of length
        :attr:`n_slots` (see :meth:`slot_mask`).  It is applied before top-k
        selection.  Only chunks sharing at least one term with the query return.
        """
        return self.search_tokens(tokenize(query), k, allowed)

    def search_tokens(
        self,
        tokens: Sequence[str],
        k: int = 10,
        allowed: Allowed = None,
        population: Population | None = None,
    ) -> list[LexicalHit]:
        """:meth:`search` for an already tokenized query; ``population`` gives the scoring
        statistics (None: every live chunk's)."""
        if k <= 0 or not self._where:
            return []
        scores = self.score_vector(tokens, population)
        mask = self._live_all
        if allowed is not None:
            if isinstance(allowed, np.ndarray):
                if allowed.shape != (self.n_slots,) or allowed.dtype != np.bool_:
                    raise ValueError(
                        f"allowed mask must be bool of length n_slots={self.n_slots}; "
                        "rebuild it with slot_mask() after the index changes"
                    )
                mask = mask & allowed
            elif isinstance(allowed, str):
                raise TypeError("allowed must be a collection of chunk ids, not one string")
            else:
                mask = mask & self.slot_mask(allowed)
        cand = top_k(scores, mask, k)
        n_main, main_ids, delta_ids = (
            len(self._main.chunk_ids),
            self._main.chunk_ids,
            self._delta_ids,
        )
        ids = [main_ids[s] if s < n_main else delta_ids[s - n_main] for s in cand.tolist()]
        return [LexicalHit(c, float(s)) for c, s in zip(ids, scores[cand].tolist(), strict=True)]

    def scores(self, query: str) -> dict[str, float]:
        """Every live chunk with a positive score for ``query`` (for tests and debugging)."""
        return dict(self.search(query, k=max(len(self), 1)))

    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write both segments, tombstones included, to ``directory``.

        The files are written to a sibling ``.tmp`` directory that then replaces
        ``directory``, so a crash never leaves a mix of old and new segments.
        """
        path = Path(directory)
        tmp, old = path.with_name(path.name + ".tmp"), path.with_name(path.name + ".old")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        self._main.save(tmp / "main")
        self._delta_segment().save(tmp / "delta")
        meta = {"format": _FORMAT} | {p: getattr(self, p) for p in _PARAMS}
        (tmp / "meta.json").write_text(json.dumps(meta), "utf-8")
        if path.exists():
            shutil.rmtree(old, ignore_errors=True)
            path.rename(old)
        tmp.rename(path)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> LexicalIndex:
        path = Path(directory)
        if not path.exists() and path.with_name(path.name + ".old").exists():
            path = path.with_name(path.name + ".old")  # crashed between the two renames
        meta = json.loads((path / "meta.json").read_text("utf-8"))
        if meta.get("format") != _FORMAT:
            raise ValueError(f"unsupported lexical index format {meta.get('format')!r}")
        index = cls(**{p: meta[p] for p in _PARAMS})
        index._main, delta = IndexSegment.load(path / "main"), IndexSegment.load(path / "delta")
        index._delta, index._delta_ids = delta, delta.chunk_ids
        index._delta_live = delta.live.tolist()
        index._delta_bags = delta.bags()  # needed to rebuild the delta after adds
        n_main = len(index._main.chunk_ids)
        index._where = {c: i for i, c in enumerate(index._main.chunk_ids) if index._main.live[i]}
        index._where.update({c: n_main + i for i, c in enumerate(delta.chunk_ids) if delta.live[i]})
        index._layout += 1
        return index
