"""Passage scope (recall/passage_scope.py): the best passage places a document, the pooled
vectors order the document's sections; a one-chunk document scores its best passage."""

from __future__ import annotations

import pytest

from citewise.index.vectors import VectorHit
from citewise.recall.passage_scope import document_placed


def test_sections_keep_their_pooled_order_inside_a_document_placed_by_its_best_passage() -> None:
    # "guide#meta" holds the best passage (a sentence matching part of the question), but
    # "guide#default" is the section about it (best pooled vector): it comes first, at the
    # document's best passage score, and "guide#meta" keeps its pooled gap below it.
    hits = [VectorHit("guide#meta", 0.70), VectorHit("guide#default", 0.60), VectorHit("api", 0.65)]
    pooled = [0.40, 0.50, 0.55]
    doc = {"guide#meta": "guide", "guide#default": "guide", "api": "api"}
    got = document_placed(hits, pooled, doc)
    assert [h.id for h in got] == ["guide#default", "api", "guide#meta"]
    assert got[0].score == 0.70  # the document's best passage, exactly
    assert got[1].score == 0.65  # a one-chunk document: its own best passage, exactly
    assert got[2].score == pytest.approx(0.70 - 0.10)  # 0.10 under its section's pooled


def test_a_corpus_of_one_chunk_documents_ranks_as_by_best_passage() -> None:
    hits = [VectorHit(f"c{i}", 0.9 - 0.1 * i) for i in range(5)]
    pooled = [0.3, 0.8, 0.1, 0.5, 0.2]  # ignored: each document has one chunk
    got = document_placed(hits, pooled, {h.id: h.id for h in hits})
    assert got == hits


def test_one_pooled_score_per_hit_is_required() -> None:
    with pytest.raises(ValueError, match="one pooled score per hit"):
        document_placed([VectorHit("a", 0.5)], [], {"a": "d"})
