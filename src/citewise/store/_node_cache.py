"""Decoded node records of stored content, kept per store and shared between asks.

A content row's nodes are written once (``INSERT OR IGNORE`` per text hash) and never
updated, so a node decoded from its row (JSON heading path and attributes, one
:class:`~citewise.core.records.Node`) stays valid for as long as the content row exists.
Every ask reads the nodes around what it cites; without this cache each read decoded the
same rows again (issue 35: about 13,000 node decodes per ask on a 3,516-node KB).

Entries are keyed by :data:`ContentKey` (content row id, document id, text sha256): a row id
reused after its base was deleted comes with another document or text and so misses. The
store clears the cache when it deletes a base. Bounded by :data:`MAX_NODES` decoded nodes
over all entries, least recently used content dropped first. Thread-safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from citewise.core.records import Node
from citewise.store import _convert as cv
from citewise.store._convert import RowLike

#: (content row id, document id, content sha256): one immutable set of node rows.
ContentKey = tuple[int, str, str]
#: Decoded nodes kept per store (a 3,516-node KB of PDFs is a few MB).
MAX_NODES = 200_000


class _Entry:
    __slots__ = ("by_id", "whole")

    def __init__(self) -> None:
        self.by_id: dict[str, Node] = {}
        self.whole: tuple[Node, ...] | None = None


class NodeCache:
    """``decode(key, rows)`` and ``whole(key)``/``keep_whole(key, nodes)`` for one store."""

    def __init__(self, max_nodes: int = MAX_NODES) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[ContentKey, _Entry] = OrderedDict()
        self._size = 0
        self.max_nodes = max_nodes

    def _entry(self, key: ContentKey) -> _Entry:
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        else:
            self._entries.move_to_end(key)
        return entry

    def whole(self, key: ContentKey) -> tuple[Node, ...] | None:
        """Every node of the content in stored order, when read whole before."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.whole is None:
                return None
            self._entries.move_to_end(key)
            return entry.whole

    def decode(self, key: ContentKey, rows: Iterable[RowLike]) -> list[Node]:
        """The nodes of ``rows`` (node rows of the content ``key``), each decoded once."""
        out: list[Node] = []
        with self._lock:
            entry = self._entry(key)
            by_id, added = entry.by_id, 0
            for r in rows:
                got = by_id.get(r["node_id"])
                if got is None:
                    got = by_id[r["node_id"]] = cv.node(r)
                    added += 1
                out.append(got)
            self._size += added
            self._evict()
        return out

    def keep_whole(self, key: ContentKey, nodes: list[Node]) -> None:
        """Remember ``nodes`` as every node of the content, in stored order."""
        with self._lock:
            if key in self._entries:
                self._entries[key].whole = tuple(nodes)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0

    def _evict(self) -> None:
        while self._size > self.max_nodes and len(self._entries) > 1:
            _, old = self._entries.popitem(last=False)
            self._size -= len(old.by_id)


__all__ = ["MAX_NODES", "ContentKey", "NodeCache"]
