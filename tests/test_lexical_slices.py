"""A fresh server's first index sync tokenises the chunks into the lexical index in bounded
slices (index/manager.py ``LEXICAL_SLICE``), so the token lists it holds at once are those of
one slice, not of the whole corpus; the index it ends with ranks exactly as one built in a
single step."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from citewise.index import manager
from citewise.index.lexical import LexicalIndex
from citewise.kb import Home

WORDS = ["otter", "heron", "badger", "lynx", "marten", "vole", "stoat", "shrew", "beaver", "mink"]


@pytest.fixture(autouse=True)
def _no_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


def _corpus(folder: Path) -> Path:
    folder.mkdir()
    for i, word in enumerate(WORDS):
        other = WORDS[(i + 3) % len(WORDS)]
        text = f"# Note {i}\n\nThe {word} meets the {other} at dawn.\n\nA {word} sleeps.\n"
        (folder / f"n{i}.md").write_text(text, "utf-8")
    return folder


def _fresh_hits(tmp: Path, name: str, store: Path) -> list[list[str]]:
    """Search from a new home (an empty index folder) on the same store file."""
    with Home.open(tmp / name, store=f"sqlite:{store}") as home:
        kb = home.kb("default")
        return [
            [h.chunk_id for h in kb.search(f"{w} dawn", top_k=5, mode="lexical").hits]
            for w in WORDS
        ]


def test_first_sync_adds_in_bounded_slices_and_ranks_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Home.open(tmp_path / "writer") as home:
        home.kb("default").add([_corpus(tmp_path / "docs")])
    store = tmp_path / "writer" / "citewise.db"
    whole = _fresh_hits(tmp_path, "whole", store)

    sizes: list[int] = []
    real = LexicalIndex.add

    def counting(self: LexicalIndex, chunks: Iterable[tuple[str, str, str]]) -> None:
        batch = list(chunks)
        sizes.append(len(batch))
        real(self, batch)

    monkeypatch.setattr(LexicalIndex, "add", counting)
    monkeypatch.setattr(manager, "LEXICAL_SLICE", 3)
    sliced = _fresh_hits(tmp_path, "sliced", store)
    assert sum(sizes) >= len(WORDS) and max(sizes) == 3 and len(sizes) > 1
    assert sliced == whole and all(whole)
