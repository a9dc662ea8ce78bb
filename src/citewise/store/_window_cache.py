"""Windows of long document versions, kept per store and shared between asks (issue 35).

A version too long to read whole is read as windows (:mod:`citewise.store._near`): for
each span start, the :data:`~citewise.store._near.NEAR_NODES` nodes on each side of it in
the ``node_by_start`` index, and their ancestors. That set is a pure function of the
content row and the start: content rows are written once and never updated. Every stage
of an ask (evidence, admission gate, units, conflicts) and the next ask on the same passage
read the same windows again, each a few hundred rows fetched and looked up (on a 14 CFR
volume about two thirds of an ask). The nodes of each (content, start) window are kept
here and the next read of that start costs no store read.

Keyed by :data:`~citewise.store._node_cache.ContentKey` (content row id, document id,
text sha256) and the start, so a reused row id with other text misses. Bounded by
:data:`MAX_WINDOW_NODES` node references over all windows, least recently used first; the
store clears it with its node cache when it deletes a base. Thread-safe. ``misses`` counts
the windows read from the store (tests count them per ask).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from citewise.core.records import Node
from citewise.store._node_cache import ContentKey

#: Node references kept over all windows (a window is ~400 nodes and its ancestors; the
#: nodes themselves are shared with the node cache, so this is mostly references).
MAX_WINDOW_NODES = 400_000


class WindowCache:
    """``get(key, start)`` / ``put(key, start, nodes)`` for one store."""

    def __init__(self, max_nodes: int = MAX_WINDOW_NODES) -> None:
        self._lock = threading.Lock()
        self._windows: OrderedDict[tuple[ContentKey, int], tuple[Node, ...]] = OrderedDict()
        self._size = 0
        self.max_nodes = max_nodes
        self.misses = 0

    def get(self, key: ContentKey, start: int) -> tuple[Node, ...] | None:
        """The nodes of the window around ``start`` when read before, else None (a miss)."""
        with self._lock:
            got = self._windows.get((key, start))
            if got is None:
                self.misses += 1
                return None
            self._windows.move_to_end((key, start))
            return got

    def put(self, key: ContentKey, start: int, nodes: tuple[Node, ...]) -> None:
        with self._lock:
            old = self._windows.pop((key, start), None)
            self._size -= len(old or ())
            self._windows[(key, start)] = nodes
            self._size += len(nodes)
            while self._size > self.max_nodes and len(self._windows) > 1:
                _, dropped = self._windows.popitem(last=False)
                self._size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._windows.clear()
            self._size = 0


__all__ = ["MAX_WINDOW_NODES", "WindowCache"]
