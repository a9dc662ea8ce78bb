"""Dense vectors read from and written to the store, their source of truth.

The index directory (``vectors.npz``) is a per-home cache; the store keeps every vector by
encoder fingerprint and text key (see :mod:`citewise.store._vectors`), so a new server
process, or a second home on the same PostgreSQL database, loads what any of them encoded
instead of encoding it again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from citewise.errors import StoreError
from citewise.index.embedder import Embedder
from citewise.index.vectors import F32, vector_from_bytes, vectors_to_bytes
from citewise.store.protocol import Store

log = logging.getLogger(__name__)


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


__all__ = ["keep_vectors", "stored_vectors"]
