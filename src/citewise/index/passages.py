"""Short-passage vectors: a chunk's vector score is its best 96-token passage's (MaxP).

A chunk's pooled vector (the mean over its 256-token windows) averages several findings of
a text into one direction; a one-sentence question matches one of them far better. So
every chunk is also cut into passages of :data:`PASSAGE_TOKENS` tokens (specials included,
:data:`PASSAGE_OVERLAP` shared by neighbours), each encoded alone, and the vector route
scores a chunk by the cosine of its best passage. Chosen on SciFact *train* against 128
tokens and against mixing in the pooled vector (docs/benchmarks.md, "MaxP over short
passages"). The pooled chunk vectors stay as they are: MMR, the answer stage and the
chunk-level search of an encoder without passages read them.

Only an encoder that cuts its own token windows offers passages (the bundled MiniLM,
:class:`PassageEncoder`); USE encodes a text whole and keeps the pooled route.
They are off by default; ``CITEWISE_PASSAGES=on`` turns them on (off: no passage
encoding, the pooled route; see :func:`enabled` for why).

Store: each passage vector is kept like a chunk vector (:mod:`citewise.index.vector_store`)
under its own namespace, the encoder's fingerprint + ``:p96``, by the key
``<text key>#<n>``, so a new server or home loads them instead of encoding them again.
How many passages a text has is read from its tokens (tokenising is cheap next to encoding).

Index: one :class:`~citewise.index.vectors.VectorIndex` of the passages (ids
``<chunk id>#<n>``) beside the chunk vectors, saved as ``passages.npz``. Search ranks the
passages of the permitted chunks and keeps the first ``k`` distinct chunks, each with its
best passage's score; from ``store_min`` passages on, where the store ranks its own vectors
(pgvector), it ranks the passages there.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from citewise.errors import StoreError
from citewise.index.embedder import F32
from citewise.index.vectors import VectorHit, VectorIndex, vector_from_bytes, vectors_to_bytes
from citewise.store.protocol import Store, VectorSearch
from citewise.switches import env_switch

log = logging.getLogger(__name__)

PASSAGE_TOKENS = 96
PASSAGE_OVERLAP = 24
#: Passages searched exactly (float32) up to this many: about four per chunk, so the
#: passages switch to the int8 path near where the chunk vectors do (20,000 chunks).
EXACT_PASSAGES = 80_000
#: Chunks whose passages are encoded per call while syncing.
ENCODE_GROUP = 256


@runtime_checkable
class PassageEncoder(Protocol):
    """An encoder that cuts its own token windows (the bundled MiniLM)."""

    @property
    def fingerprint(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def passage_windows(self, text: str, width: int, overlap: int) -> list[list[int]]: ...

    def encode_segments(self, segs: Sequence[Sequence[int]]) -> F32: ...


def enabled() -> bool:
    """True when ``CITEWISE_PASSAGES`` is on (``on``, ``1``, ``true``, ``yes``). Off by
    default: on SciFact passages raise hybrid nDCG@10 0.7317 -> 0.7435, but on the
    documentation sets they cost three right answers of 106 (a passage matching part of a
    question wins over the section that answers it), and they double a knowledge base's
    encoding time and multiply its vector memory by five (docs/benchmarks.md, "MaxP in the
    product")."""
    return env_switch("CITEWISE_PASSAGES", False)


def namespace(fingerprint: str) -> str:
    """The store fingerprint the passage vectors of encoder ``fingerprint`` are kept under."""
    return f"{fingerprint}:p{PASSAGE_TOKENS}"


@dataclass(slots=True)
class Passages:
    """The passage vectors of one index state: ids ``<chunk id>#<n>``, ``counts`` per chunk."""

    vectors: VectorIndex
    counts: dict[str, int]

    def __len__(self) -> int:
        return len(self.vectors)

    def copy(self) -> Passages:
        return Passages(self.vectors.copy(), dict(self.counts))

    def ids(self, chunks: Collection[str]) -> list[str]:
        """The passage ids of ``chunks`` (chunks without passages add none)."""
        counts = self.counts
        return [f"{c}#{n}" for c in chunks for n in range(counts.get(c, 0))]

    def rows(self, chunks: Collection[str] | None) -> int:
        return len(self) if chunks is None else sum(self.counts.get(c, 0) for c in chunks)

    def save(self, path: Path) -> None:
        self.vectors.save(path)

    @classmethod
    def load(cls, path: Path) -> Passages:
        vectors = VectorIndex.load(path)
        counts: dict[str, int] = {}
        for pid in vectors._ids:
            cid, _, n = pid.rpartition("#")
            counts[cid] = max(counts.get(cid, 0), int(n) + 1)
        return cls(vectors, counts)


@dataclass(frozen=True, slots=True)
class PassageSync:
    """What one sync did to the passages: chunks encoded now and their passages, chunks
    whose passages were reused (same text in the index or in the store), encode time."""

    chunks_encoded: int = 0
    passages_encoded: int = 0
    reused: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0


def sync_passages(
    store: Store,
    emb: object,
    old: Passages | None,
    live: Collection[str],
    text_of: Callable[[str], str],
    keys: Mapping[str, str],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Passages | None, PassageSync]:
    """The passages of the chunks ``live``, built on a copy of ``old``'s; ``text_of``: the
    text the encoder sees of a chunk; ``keys``: chunk id -> text key of every live chunk.
    None when ``emb`` cuts no passages or they are turned off."""
    if not isinstance(emb, PassageEncoder) or not enabled():
        return None, PassageSync()
    ns = namespace(emb.fingerprint)
    if old is None or old.vectors.fingerprint != ns:
        new = Passages(VectorIndex(emb.dim, fingerprint=ns, exact_threshold=EXACT_PASSAGES), {})
    else:
        new = old.copy()
    gone = [cid for cid in new.counts if cid not in live]
    new.vectors.remove(new.ids(gone))
    for cid in gone:
        del new.counts[cid]
    missing = sorted(cid for cid in live if cid not in new.counts)
    have = {keys[cid]: cid for cid in new.counts if cid in keys}
    todo: dict[str, list[str]] = {}  # text key -> the missing chunks of that text
    copies: list[tuple[list[str], F32]] = []  # another chunk of the same text has them
    for cid in missing:
        src = have.get(keys[cid])
        if src is not None:
            copies.append(([cid], new.vectors.get(new.ids([src]))))
        else:
            todo.setdefault(keys[cid], []).append(cid)
    _add(new, copies)
    reused = len(copies)
    windows = {
        key: emb.passage_windows(text_of(cids[0]), PASSAGE_TOKENS, PASSAGE_OVERLAP)
        for key, cids in todo.items()
    }
    found = _stored(store, ns, emb.dim, windows)
    _add(new, [(todo[key], vecs) for key, vecs in found.items()])
    reused += sum(len(todo[key]) for key in found)
    rest = [key for key in todo if key not in found]
    started, cpu = time.perf_counter(), time.process_time()
    passages = 0
    for i in range(0, len(rest), ENCODE_GROUP):
        group = rest[i : i + ENCODE_GROUP]
        segs = [w for key in group for w in windows[key]]
        vecs = emb.encode_segments(segs)
        at, rows, made = 0, dict[str, bytes](), []
        for key in group:
            n = len(windows[key])
            made.append((todo[key], vecs[at : at + n]))
            rows.update(
                (f"{key}#{j}", b) for j, b in enumerate(vectors_to_bytes(vecs[at : at + n]))
            )
            at += n
        _add(new, made)
        passages += len(segs)
        try:
            store.put_vectors(ns, rows)
        except StoreError as exc:  # costs a re-encode later, never this sync
            log.warning("could not store %d passage vectors: %s", len(rows), exc)
        if progress is not None:
            progress(i + len(group), len(rest))
    chunks = sum(len(todo[key]) for key in rest)
    secs = time.perf_counter() - started if rest else 0.0
    cpu_s = time.process_time() - cpu if rest else 0.0
    return new, PassageSync(chunks, passages, reused, secs, cpu_s)


def _add(p: Passages, items: Sequence[tuple[list[str], F32]]) -> None:
    """Add each (chunks, their text's passage vectors) in one ``VectorIndex.add`` (each add
    copies the index's arrays: one per chunk would be quadratic in the corpus)."""
    import numpy as np

    ids: list[str] = []
    rows: list[F32] = []
    for chunks, vecs in items:
        for cid in chunks:
            ids.extend(f"{cid}#{j}" for j in range(len(vecs)))
            rows.append(vecs)
            p.counts[cid] = len(vecs)
    if ids:
        p.vectors.add(ids, np.vstack(rows))


def _stored(
    store: Store, ns: str, dim: int, windows: Mapping[str, list[list[int]]]
) -> dict[str, F32]:
    """Text key -> its passage vectors, for the texts whose every passage the store holds."""
    import numpy as np

    if not windows:
        return {}
    wanted = [f"{key}#{j}" for key, w in windows.items() for j in range(len(w))]
    got = store.get_vectors(ns, wanted)
    out: dict[str, F32] = {}
    for key, w in windows.items():
        rows = [vector_from_bytes(got.get(f"{key}#{j}", b""), dim) for j in range(len(w))]
        if all(r is not None for r in rows):
            out[key] = np.stack([r for r in rows if r is not None])
    return out


def search(
    store: Store,
    passages: Passages,
    keys: Mapping[str, str],
    query: F32,
    k: int,
    allowed: Collection[str] | None,
    *,
    store_min: int,
    whole: Callable[[], Mapping[str, tuple[str, ...]]] | None = None,
) -> list[VectorHit]:
    """Top ``k`` chunk ids among ``allowed`` (every chunk with passages if None), each
    scored by its best passage. ``whole``: :func:`by_passage_key` of every chunk, when
    the caller keeps it (the store path needs it; built here otherwise)."""
    if k <= 0:
        return []
    rows = passages.rows(allowed)
    if rows >= store_min and isinstance(store, VectorSearch) and store.vector_search_ready():
        by_key = (
            whole()
            if allowed is None and whole is not None
            else by_passage_key(passages, keys, allowed)
        )
        return _in_store(store, passages.vectors.fingerprint, by_key, query, k)
    pids = None if allowed is None else passages.ids(allowed)
    want = min(4 * k, rows)
    while True:
        hits = passages.vectors.search(query, want, pids)
        best = _best_per_chunk((h.id.rpartition("#")[0], h.score) for h in hits)
        if len(best) >= k or want >= rows:
            return best[:k]
        want = min(4 * want, rows)


def _in_store(
    store: VectorSearch, ns: str, by_key: Mapping[str, tuple[str, ...]], query: F32, k: int
) -> list[VectorHit]:
    q = vectors_to_bytes(query[None, :])[0]
    want = min(4 * k, 1000)
    while True:
        found = store.search_vectors(ns, q, want, by_key.keys())
        best = _best_per_chunk((cid, score) for key, score in found for cid in by_key[key])
        if len(best) >= k or len(found) < want or want >= 1000:
            return best[:k]
        want = min(4 * want, 1000)


def _best_per_chunk(ranked: Iterable[tuple[str, float]]) -> list[VectorHit]:
    """The first (best) score of each chunk in a best-first list of (chunk, score)."""
    out: dict[str, float] = {}
    for cid, score in ranked:
        if cid not in out:
            out[cid] = score
    return [VectorHit(cid, s) for cid, s in out.items()]


def by_passage_key(
    passages: Passages, keys: Mapping[str, str], allowed: Collection[str] | None
) -> dict[str, tuple[str, ...]]:
    """Store key (``<text key>#<n>``) -> the chunk ids (sorted) among ``allowed`` (all if
    None) holding that passage: chunks of one text share their passages' keys."""
    out: dict[str, list[str]] = {}
    for cid in sorted(passages.counts if allowed is None else allowed):
        key = keys.get(cid)
        if key is not None:
            for j in range(passages.counts.get(cid, 0)):
                out.setdefault(f"{key}#{j}", []).append(cid)
    return {key: tuple(ids) for key, ids in out.items()}


__all__ = [
    "PASSAGE_OVERLAP",
    "PASSAGE_TOKENS",
    "PassageEncoder",
    "PassageSync",
    "Passages",
    "by_passage_key",
    "enabled",
    "namespace",
    "search",
    "sync_passages",
]
