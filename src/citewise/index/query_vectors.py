"""Query vectors kept per process by encoder fingerprint and query text.

One ``ask`` encodes its question for the vector route and again to score answer units by
meaning, and a widened recall encodes it once more: the encoder is deterministic for a
given text, so the vector is kept (read-only) and later calls cost a lookup."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from citewise.index.embedder import Embedder

#: Query vectors kept (the most recently used; 384 floats each).
SIZE = 512

_CACHE: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_LOCK = threading.Lock()


def query_vector(emb: Embedder, query: str) -> np.ndarray:
    """``emb.encode([query], kind="query")[0]``, kept by (fingerprint, query)."""
    key = (emb.fingerprint, query)
    with _LOCK:
        got = _CACHE.get(key)
        if got is not None:
            _CACHE.move_to_end(key)
            return got
    vec = np.asarray(emb.encode([query], kind="query")[0])
    vec.setflags(write=False)
    with _LOCK:
        _CACHE[key] = vec
        while len(_CACHE) > SIZE:
            _CACHE.popitem(last=False)
    return vec


__all__ = ["SIZE", "query_vector"]
