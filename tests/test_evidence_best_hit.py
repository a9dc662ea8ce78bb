"""The segment's best-ranked chunk keeps a direct span (evidence/spans.best_hit_span).

Search ranks by meaning as well as words; the sentences of a segment are chosen by the
question's words. A chunk search put first must not lose its sentence to neighbours that
merely repeat more of the question's words (issue 15: "the best paragraph, found by search
at rank 1-2, is passed over")."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from citewise.evidence import assemble
from citewise.kb import KnowledgeBase
from tests.conftest import one_file_kb

GUIDE = """# Widget tool

## Enabling syncing

Syncing is only available if the tool is installed through an entry point. See the packaging page.

## Writing sync support

Widget syncing in your tool must launch the helper when a sync does not work.
When widget syncing does not work, your tool should launch the runner again.
The runner of your tool decides when widget syncing will work after a launch.
Every launch of the tool runner writes a widget syncing log when things do not work.
"""
QUESTION = "Why does widget syncing not work when I launch my tool with the runner?"


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    return one_file_kb(tmp_path, monkeypatch, GUIDE)


def _lines(kb: KnowledgeBase, order: list[int], routes: dict[str, int]) -> list[int]:
    """The direct spans' lines when search returns its hits in ``order``, the first of
    them ranked by ``routes``."""
    found = kb.search(QUESTION)
    assert [h.line_start for h in found.hits] == [9, 5]  # words rank the busy section first
    hits = [dataclasses.replace(found.hits[i], rank=r + 1) for r, i in enumerate(order)]
    hits[0] = dataclasses.replace(hits[0], route_ranks=routes)
    pack = assemble(kb.context, QUESTION, search_result=dataclasses.replace(found, hits=hits))
    assert pack.segments and pack.segments[0].end - pack.segments[0].start == 2
    return [f.line_start for f in pack.direct]


def test_the_chunk_ranked_first_keeps_its_best_sentence(kb: KnowledgeBase) -> None:
    # As if the dense route had ranked the "Enabling syncing" chunk first: its sentence
    # holds only two of the question's words, which the other section repeats.
    assert 5 in _lines(kb, [1, 0], {"lexical": 2, "vector": 1})


def test_a_chunk_ranked_first_by_words_alone_gains_nothing(kb: KnowledgeBase) -> None:
    # Its sentences already competed on those words (a Chinese question, which the
    # English encoder does not rank, keeps its definition sentence this way).
    assert _lines(kb, [1, 0], {"lexical": 1}) == [10]


def test_nothing_is_added_when_the_best_chunk_already_has_a_span(kb: KnowledgeBase) -> None:
    assert _lines(kb, [0, 1], {"lexical": 1, "vector": 1}) == [10]
