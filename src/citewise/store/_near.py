"""Nodes of one document version *near* some spans, at a cost set by the spans.

The evidence, citation, procedure and conflict steps of a query look at the nodes around
the text they cite. Reading every node of a version would make each query cost as much as
the largest document it touches (a file of a million headings made every search take
minutes), so a version with more than :data:`FULL_VIEW_NODES` nodes is read as a window:
the :data:`NEAR_NODES` nodes before and after each span's start (document order) and all
their ancestors, through the ``node_by_start`` index. Smaller versions are read whole,
exactly as :meth:`nodes_of_version` does. Rows are decoded through the store's
:class:`~citewise.store._node_cache.NodeCache`: a node decoded by an earlier read is reused,
and a version read whole is served again without reading its rows. The window around each
start is kept in the store's :class:`~citewise.store._window_cache.WindowCache` and read
once (the union of per-start windows with their ancestors is the window of all starts).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from citewise.core.records import Node
from citewise.core.stored import NodeWindow
from citewise.errors import VersionNotFound
from citewise.store._node_cache import ContentKey
from citewise.store._reads import _VERSION_NODES_SQL, SQLiteReads

#: Versions up to this many nodes are read whole.
FULL_VIEW_NODES = 2000
#: Nodes read on each side of a span's start in a larger version.
NEAR_NODES = 200
_IN_BATCH = 500


def _order(n: Node) -> tuple[int, int, int]:
    return (n.char_start, -n.char_end, n.ordinal)


class SQLiteNear(SQLiteReads):
    def nodes_near(
        self, kb: str, path: str, version_id: int, spans: Sequence[tuple[int, int]]
    ) -> NodeWindow:
        """The version's nodes around ``spans`` (see the module docstring)."""
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            row = c.execute(
                "SELECT v.content_id, c.node_count, c.content_sha256 FROM version v JOIN content c "
                "ON c.content_id = v.content_id WHERE v.doc_id = ? AND v.version_no = ?",
                (doc["doc_id"], version_id),
            ).fetchone()
            whole = row is not None and (int(row["node_count"]) <= FULL_VIEW_NODES or not spans)
            key: ContentKey | None = None
            if row is not None:
                key = (int(row["content_id"]), str(doc["doc_id"]), str(row["content_sha256"]))
                kept = self._node_cache.whole(key) if whole else None
                if kept is not None:  # decoded before: content rows never change
                    return NodeWindow(list(kept), True)
            if whole:  # read whole in the same snapshot: nodes_of_version's rows and order
                found = c.execute(_VERSION_NODES_SQL, (doc["doc_id"], version_id)).fetchall()
        if row is None or key is None:
            raise VersionNotFound(f"{path!r} has no version {version_id} with content.")
        if whole:
            nodes = self._node_cache.decode(key, found)
            self._node_cache.keep_whole(key, nodes)
            return NodeWindow(nodes, True)
        by_id: dict[str, Node] = {}
        for start in sorted({start for start, _ in spans}):
            got = self._window_cache.get(key, start)
            if got is None:  # first read of this window: its rows, decoded once
                with self._read() as c:
                    rows = _window_rows(c, key[0], start)
                got = tuple(self._node_cache.decode(key, rows.values()))
                self._window_cache.put(key, start, got)
            by_id.update((n.id, n) for n in got)
        nodes = sorted(by_id.values(), key=_order)
        return NodeWindow(nodes, False)


def _window_rows(c: sqlite3.Connection, cid: int, start: int) -> dict[str, sqlite3.Row]:
    """The rows of the window around ``start``: the :data:`NEAR_NODES` nodes before and
    from it in ``node_by_start`` order, and all their ancestors."""
    rows: dict[str, sqlite3.Row] = {}
    for sql in (
        "SELECT * FROM node WHERE content_id = ? AND char_start < ? "
        "ORDER BY char_start DESC LIMIT ?",
        "SELECT * FROM node WHERE content_id = ? AND char_start >= ? ORDER BY char_start LIMIT ?",
    ):
        for r in c.execute(sql, (cid, start, NEAR_NODES)):
            rows[r["node_id"]] = r
    missing = {str(r["parent_id"]) for r in rows.values() if r["parent_id"]} - set(rows)
    while missing:
        batch = sorted(missing)[:_IN_BATCH]
        marks = ",".join("?" * len(batch))
        found = c.execute(
            f"SELECT * FROM node WHERE content_id = ? AND node_id IN ({marks})", (cid, *batch)
        ).fetchall()
        for r in found:
            rows[r["node_id"]] = r
        missing -= set(batch)
        missing |= {str(r["parent_id"]) for r in found if r["parent_id"]} - set(rows)
    return rows


__all__ = ["FULL_VIEW_NODES", "NEAR_NODES", "SQLiteNear"]
