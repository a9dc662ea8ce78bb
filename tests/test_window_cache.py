"""Windows of long versions kept per store (issue 35, ``store/_window_cache.py``).

A long version's window around several span starts, served from the per-start windows
kept by earlier reads, is the window a cold store reads for all of them at once (same
nodes, same order); the cache is bounded and cleared with the node cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.kb import Home
from citewise.store import _near
from citewise.store._window_cache import WindowCache
from citewise.store.sqlite import SQLiteStore


def _long_markdown(sections: int) -> str:
    parts = ["# Manual\n\n"]
    for i in range(sections):
        parts.append(f"## Part {i}\n\nParagraph {i} says value {i}.\n\n- item {i}a\n- {i}b\n\n")
    return "".join(parts)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root = tmp_path_factory.mktemp("windows")
    docs = root / "docs"
    docs.mkdir()
    text = _long_markdown(400)
    (docs / "manual.md").write_text(text, "utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CITEWISE_DENSE", "off")
        with Home.open(root / "home") as h:
            assert h.kb().add([docs]).ok
    return root / "home" / "citewise.db", len(text)


def _ids(store: SQLiteStore, starts: list[int]) -> list[str]:
    window = store.nodes_near("default", "manual.md", 1, [(s, s + 1) for s in starts])
    assert not window.complete
    return [n.id for n in window.nodes]


_FIXTURE = [HealthCheck.function_scoped_fixture]


@settings(max_examples=25, deadline=None, suppress_health_check=_FIXTURE)
@given(data=st.data())
def test_windows_served_per_start_are_the_cold_window_of_all_starts(
    built: tuple[Path, int], data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, length = built
    monkeypatch.setattr(_near, "FULL_VIEW_NODES", 100)
    monkeypatch.setattr(_near, "NEAR_NODES", 20)
    starts = data.draw(st.lists(st.integers(0, length), min_size=1, max_size=4))
    warm = SQLiteStore(db)
    for s in starts:  # each start read alone first: the later read is served from them
        _ids(warm, [s])
    misses = warm._window_cache.misses
    served = _ids(warm, starts)
    assert warm._window_cache.misses == misses  # no store read for a kept start
    cold = SQLiteStore(db)
    assert served == _ids(cold, starts)
    assert len(set(served)) == len(served)
    warm.close()
    cold.close()


def test_the_window_cache_is_bounded_and_drops_least_recently_used() -> None:
    cache = WindowCache(max_nodes=3)
    key = (1, "d", "sha")
    assert cache.get(key, 0) is None and cache.misses == 1
    cache.put(key, 0, ())
    cache.put(key, 5, ())
    assert cache.get(key, 0) == () and cache.misses == 1
    from citewise.core.records import Node

    def node(i: int) -> Node:
        return Node(f"n{i}", "paragraph", None, (), i, 1, 1, i, i + 1, "x", "x", "")

    cache.put(key, 7, (node(1), node(2)))
    cache.put(key, 9, (node(3), node(4)))  # 4 > 3: the least recently used go
    assert cache.get(key, 7) is None and cache.get(key, 9) is not None
    cache.clear()
    assert cache.get(key, 9) is None
