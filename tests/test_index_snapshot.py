"""KBIndex publishes whole states: a pinned reader keeps its generation while others sync.

Real SQLite store and index directory; threads are ordered with events, never with sleeps.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from citewise.kb import Home

GUARD = 60.0


pytestmark = pytest.mark.usefixtures("dense_off")


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, "utf-8")
    return path


def test_a_pinned_reader_keeps_its_state_while_another_thread_syncs(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as home:
        kb = home.kb()
        kb.add([_write(tmp_path / "a", "alpha.md", "# Alpha\n\nAlpha keys rotate daily.\n")])
        index = home.index(kb.name)
        pinned, release = threading.Event(), threading.Event()
        seen: dict[str, Any] = {}

        def reader() -> None:
            with index.pinned() as state:
                pinned.set()
                assert release.wait(GUARD)
                seen["report"] = index.sync()  # a no-op while pinned
                seen["chunks"] = set(index.chunks)
                seen["same_state"] = index.state is state
                seen["hits"] = [h.chunk_id for h in index.lexical.search("zebra crossing")]
                seen["graph_docs"] = set(index.graph.sync().doc_keys)
                seen["search"] = kb.search("zebra crossing")

        t = threading.Thread(target=reader)
        t.start()
        assert pinned.wait(GUARD)
        old_chunks = set(index.chunks)  # this thread is not pinned: it sees the latest
        old_lexical = index.lexical
        kb.add([_write(tmp_path / "b", "zebra.md", "# Zebra\n\nZebra crossing rules.\n")])
        new_chunks = set(index.chunks)
        assert new_chunks > old_chunks and index.lexical is not old_lexical
        release.set()
        t.join(GUARD)
        assert not t.is_alive()

        assert seen["chunks"] == old_chunks and seen["same_state"]
        assert seen["report"].added == seen["report"].removed == 0
        assert seen["hits"] == []  # the new document is not in the pinned lexical index
        assert seen["graph_docs"] == {"alpha.md"}
        assert seen["search"].outcome == "insufficient_evidence"
        # The published state was built on copies: the old objects never changed.
        assert old_lexical.search("zebra crossing") == []
        fresh = kb.search("zebra crossing")
        assert fresh.outcome == "ok" and fresh.hits[0].path == "zebra.md"
        assert fresh.revision > seen["search"].revision


def test_concurrent_syncs_build_one_state_each_generation(tmp_path: Path) -> None:
    """Many readers noticing the same change at once publish it once, all see it whole."""
    with Home.open(tmp_path / "home") as home:
        kb = home.kb()
        kb.add([_write(tmp_path / "a", "alpha.md", "# Alpha\n\nAlpha keys rotate daily.\n")])
        index = home.index(kb.name)
        index.sync()
        # Another writer (as ``citewise add`` in another process would) changes the store
        # behind the index's back: nothing here has synced it yet.
        other = Home.open(tmp_path / "home")
        try:
            other.kb().add(
                [
                    _write(tmp_path / "b", f"n{i}.md", f"# Note {i}\n\nNote {i} text.\n")
                    for i in range(5)
                ]
            )
        finally:
            other.close()
        start = threading.Barrier(6, timeout=GUARD)
        states: list[Any] = []
        errors: list[BaseException] = []

        def reader() -> None:
            try:
                start.wait()
                with index.pinned() as state:
                    states.append(state)
                    assert index.chunks is state.chunks
                    for hit in index.lexical.search("note text", k=50):
                        assert hit.chunk_id in index.chunks
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=reader) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(GUARD)
        assert errors == []
        assert len({id(s) for s in states}) == 1  # one rebuild, shared by all six
        assert {c.path for c in states[0].chunks.values()} == {"alpha.md"} | {
            f"n{i}.md" for i in range(5)
        }
