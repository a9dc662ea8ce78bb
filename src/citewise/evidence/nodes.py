"""Reading a query's nodes: around what it cites, once per small document version.

A query reads the nodes near its hits and fragments through ``Store.nodes_near``, so its
cost is set by what it cites, not by how many nodes the cited documents hold. A version the
store returned whole (an ordinary document) is kept and reused for the rest of the query.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from citewise.core.records import Node
from citewise.core.stored import NodeWindow
from citewise.store.protocol import Store

Span = tuple[int, int]


#: A version's whole nodes kept elsewhere (the index state's copy), or None.
Kept = Callable[[str, int], list[Node] | None]


class NodeReader:
    """``reader.near(path, version_id, spans)`` for one KB during one query. ``kept``
    (the index state's :meth:`~citewise.index.views.CallerViews.kept_nodes`) is asked
    first: a version another stage of the query read whole is not read again."""

    def __init__(self, store: Store, kb: str, kept: Kept | None = None) -> None:
        self.store = store
        self.kb = kb
        self._kept = kept
        self._whole: dict[tuple[str, int], list[Node]] = {}
        # windows of long versions by their span starts (the store's window is a function
        # of the starts): the stages of one query read the same windows many times
        self._windows: dict[tuple[str, int, frozenset[int]], NodeWindow] = {}

    def near(self, path: str, version_id: int, spans: Sequence[Span]) -> list[Node]:
        return self.window(path, version_id, spans).nodes

    def window(self, path: str, version_id: int, spans: Sequence[Span]) -> NodeWindow:
        """:meth:`near` with whether the nodes are the whole version."""
        whole = self._whole.get((path, version_id))
        if whole is None and self._kept is not None:
            whole = self._kept(path, version_id)
            if whole is not None:
                self._whole[(path, version_id)] = whole
        if whole is not None:
            return NodeWindow(whole, True)
        starts = (path, version_id, frozenset(start for start, _ in spans))
        window = self._windows.get(starts) if spans else None
        if window is not None:
            return window
        window = self.store.nodes_near(self.kb, path, version_id, spans)
        if window.complete:
            self._whole[(path, version_id)] = window.nodes
        elif spans:
            self._windows[starts] = window
        return window


def spans_by_version(
    items: Iterable[tuple[str, int, int, int]],
) -> dict[tuple[str, int], list[Span]]:
    """``(path, version_id, start, end)`` items grouped per version."""
    out: dict[tuple[str, int], list[Span]] = {}
    for path, vid, start, end in items:
        out.setdefault((path, vid), []).append((start, end))
    return out


__all__ = ["NodeReader", "Span", "spans_by_version"]
