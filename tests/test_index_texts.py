"""A KB index keeps chunk records without their texts (memory at scale, issue 19) and reads
the texts a search needs back from the store, for exactly the version it ranked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.kb import Home


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pump.md").write_text(
        "# Pump\n\n## Priming\n\nOpen the bleed valve and fill the casing with water.\n\n"
        "## Seals\n\nReplace the mechanical seal when the drip exceeds ten drops a minute.\n",
        "utf-8",
    )
    (docs / "fan.md").write_text("# Fan\n\nClean the blades every spring.\n", "utf-8")
    h = Home.open(tmp_path / "home")
    assert h.kb("default").add([docs]).ok
    yield h
    h.close()


def test_records_hold_no_text_and_texts_come_from_the_store(home: Home) -> None:
    fresh = Home.open(home.settings.home)  # a new server on the same store
    try:
        index = fresh.index("default")
        index.sync()
        stored = {c.chunk_id: c.search_text for c in fresh.store.iter_chunks("default")}
        assert set(index.chunks) == set(stored) and all(stored.values())
        assert all(c.search_text == "" for c in index.chunks.values())
        assert index.chunk_texts(list(stored)) == stored
        assert index.chunk_texts(["c_unknown"]) == {}
        # searches still read the texts they need: the coverage check of the best hit
        hit = fresh.kb("default").search("mechanical seal drip", mode="lexical").hits[0]
        assert hit.path == "pump.md" and "mechanical seal" in hit.excerpt
        off = fresh.kb("default").search("mechanical turbine gearbox lubrication", mode="lexical")
        assert not off.hits and off.abstention is not None
        assert off.abstention.criterion == "lexical_coverage"
    finally:
        fresh.close()


def test_a_pinned_request_reads_the_texts_of_the_version_it_ranked(
    home: Home, tmp_path: Path
) -> None:
    index = home.index("default")
    doc = tmp_path / "docs" / "fan.md"
    with index.pinned():
        ids = [cid for cid, c in index.chunks.items() if c.path == "fan.md"]
        before = index.chunk_texts(ids)
        doc.write_text("# Fan\n\nOil the bearings every autumn.\n", "utf-8")
        assert home.kb("default").add([doc]).ok  # stored; this thread stays on its state
        index._texts.clear()  # read again from the store, not from the cache
        assert index.chunk_texts(ids) == before
        assert any("blades" in t for t in before.values())
    index.sync()
    now = index.chunk_texts([c for c, r in index.chunks.items() if r.path == "fan.md"])
    assert any("bearings" in t for t in now.values()) and not any(
        "blades" in t for t in now.values()
    )
