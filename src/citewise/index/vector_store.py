"""Dense vectors read from and written to the store, their source of truth.

The index directory (``vectors.npz``) is a per-home cache; the store keeps every vector by
encoder fingerprint and text key (see store/_vectors.py), so a new server
process, or a second home on the same PostgreSQL database, loads what any of them encoded
instead of encoding it again. Where the store can rank vectors itself (PostgreSQL with
pgvector's HNSW), large searches run there; small ones stay in-process (exact, no round trip).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping, Sequence

from citewise.errors import StoreError, UsageError
from citewise.index.embedder import Embedder
from citewise.index.vectors import F32, VectorHit, VectorIndex, vector_from_bytes, vectors_to_bytes
from citewise.store.protocol import Store, VectorSearch

log = logging.getLogger(__name__)

#: Below this many rows the caller may see, ranking stays in-process; from it on, the store
#: ranks when it can (``$CITEWISE_PGVECTOR_MIN`` overrides). At 10,000 and 50,000 vectors the
#: in-process index was the faster at equal recall (docs/benchmarks.md, "Vector search").
STORE_SEARCH_MIN = 100_000


def store_search_min() -> int:
    """:data:`STORE_SEARCH_MIN`, or ``$CITEWISE_PGVECTOR_MIN`` (UsageError when not a count)."""
    raw = os.environ.get("CITEWISE_PGVECTOR_MIN", "").strip()
    if not raw:
        return STORE_SEARCH_MIN
    if not raw.isdigit():
        raise UsageError(
            f"CITEWISE_PGVECTOR_MIN={raw!r} is not a number of rows.",
            hint="Unset it, or set e.g. 100000 (0 sends every vector search to pgvector).",
        )
    return int(raw)


def stored_vectors(store: Store, emb: Embedder, wanted: dict[str, str]) -> dict[str, F32]:
    """The stored vectors of ``wanted`` (chunk id -> text key) made by ``emb``'s encoder,
    by chunk id; chunks without one (or with a damaged one) are left out."""
    if not wanted:
        return {}
    found = store.get_vectors(emb.fingerprint, sorted(set(wanted.values())))
    rows = {k: vector_from_bytes(b, emb.dim) for k, b in found.items()}
    return {cid: v for cid, key in wanted.items() if (v := rows.get(key)) is not None}


def keep_vectors(store: Store, emb: Embedder, keys: Sequence[str], vecs: F32) -> None:
    """Store freshly encoded vectors by text key. A store that refuses the write costs a
    re-encode later, never the search that encoded them."""
    try:
        store.put_vectors(emb.fingerprint, dict(zip(keys, vectors_to_bytes(vecs), strict=True)))
    except StoreError as exc:
        log.warning("could not store %d vectors: %s", len(keys), exc)


def search(
    store: Store,
    emb: Embedder | None,
    vectors: VectorIndex,
    keys: Mapping[str, str],
    query: F32,
    k: int,
    allowed: Collection[str] | None,
    *,
    store_min: int = STORE_SEARCH_MIN,
    whole: Mapping[str, tuple[str, ...]] | None = None,
) -> list[VectorHit]:
    """Top ``k`` chunk ids by inner product among ``allowed`` (every indexed chunk if None):
    in the store (HNSW) for large searches where it can, else in ``vectors``. Either way
    only the permitted rows are ranked. ``keys``: chunk id -> text key of its vector;
    ``whole``: :func:`group_by_key` of all of ``keys``, when the caller keeps it."""
    rows = len(vectors) if allowed is None else len(allowed)
    if (
        emb is None
        or rows < store_min
        or not isinstance(store, VectorSearch)
        or not store.vector_search_ready()
    ):
        return vectors.search(query, k, allowed)
    by_key = whole if allowed is None and whole is not None else group_by_key(keys, allowed)
    found = store.search_vectors(
        emb.fingerprint, vectors_to_bytes(query[None, :])[0], k, by_key.keys()
    )
    hits = [VectorHit(cid, score) for key, score in found for cid in by_key.get(key, ())]
    return hits[:k]


def group_by_key(
    keys: Mapping[str, str], allowed: Collection[str] | None = None
) -> dict[str, tuple[str, ...]]:
    """Text key -> the chunk ids (sorted) among ``allowed`` (all of ``keys`` if None) whose
    vector it is. For every chunk of an index state it is computed once per state (see
    ``KBIndex.search_vectors``): at a million chunks it costs more than the search."""
    grouped: dict[str, list[str]] = {}
    for cid in keys if allowed is None else allowed:
        key = keys.get(cid)
        if key is not None:
            grouped.setdefault(key, []).append(cid)
    return {key: tuple(sorted(ids)) for key, ids in grouped.items()}


__all__ = [
    "STORE_SEARCH_MIN",
    "group_by_key",
    "keep_vectors",
    "search",
    "store_search_min",
    "stored_vectors",
]
