"""``KnowledgeBase.add(..., index=False)``: a bulk loader stores documents (each file whole,
one revision per call) without bringing its own in-process indexes up to date; searches
catch up by the store's generation (issue 19's scale benchmark loads through this)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.backends import Backend


@pytest.fixture(autouse=True)
def _no_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(text, "utf-8")
    return p


def test_add_without_index_stores_and_search_catches_up(tmp_path: Path, backend: Backend) -> None:
    with backend.open(tmp_path / "home") as home:
        kb = home.kb("default")
        first = _write(tmp_path / "docs", "a.md", "# Alpha\n\nThe quokka sleeps by day.\n")
        kb.add([first])
        assert [h.path for h in kb.search("quokka", top_k=3, mode="lexical").hits] == ["a.md"]
        index = home.index("default")
        seen = index.state.generation
        second = _write(tmp_path / "docs", "b.md", "# Beta\n\nThe wombat digs burrows.\n")
        report = kb.add([second], index=False)
        assert report.ok and report.revision == 2
        assert index.state.generation == seen  # not indexed by the add itself
        assert [d.path for d in home.store.list_documents("default")] == ["a.md", "b.md"]
        hits = kb.search("wombat burrows", top_k=3, mode="lexical").hits
        assert [h.path for h in hits] == ["b.md"]  # the search caught up
        assert index.state.generation != seen
