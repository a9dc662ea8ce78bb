"""Passage scope (recall/passage_scope.py): the best passage places a document, the pooled
vectors order the document's sections; a one-chunk document scores its best passage."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from citewise.index.vectors import VectorHit
from citewise.kb import Home
from citewise.recall.passage_scope import document_placed
from citewise.recall.search import RecallSettings


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


#: "Metavar" holds a sentence that is the question, in a long text about something else
#: (best passage high, pooled vector low); "Brackets" is short and nearer the question as a
#: whole (pooled above "Metavar"'s, mixed score below it).
GUIDE = (
    "# Guide\n\n"
    "## Metavar\n\n"
    "How do I show an option's default value on the help page? Many people ask this. "
    + " ".join(
        f"Rule {i}: a bakery in the old town sells rye bread and apple cake on market days."
        for i in range(12)
    )
    + "\n\n"
    "## Brackets\n\n"
    "Options can print extra information after their help text, in brackets.\n"
)


@pytest.mark.model
def test_the_vector_route_orders_a_documents_sections_by_their_pooled_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the real encoder: inside one document the vector route ranks sections as their
    pooled vectors do, and the document's first section scores the document's best mixed
    score; with ``passage_scope="chunk"`` each section keeps its own mixed score."""
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    monkeypatch.setenv("CITEWISE_PASSAGES", "on")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "guide.md").write_text(GUIDE, encoding="utf-8")
    (corpus / "leases.md").write_text("# Leases\n\nA lease lasts thirty seconds.\n", "utf-8")
    query = "How do I show an option's default value on the help page?"
    with Home.open(tmp_path / "h") as home:
        assert home.kb().add([corpus]).ok
        index = home.index("default")
        index.sync()
        if index.vectors is None or index.passages is None:
            pytest.skip(f"dense route unavailable: {index.dense.reason}")
        qvec = index.embed_query(query)
        assert qvec is not None
        guide = [c.chunk_id for c in index.chunks.values() if c.path == "guide.md"]
        assert len(guide) >= 2
        raw = {h.id: h.score for h in index.search_vectors(qvec, 10)}
        pooled = dict(zip(guide, (index.vectors.get(guide) @ qvec).tolist(), strict=True))
        w = RecallSettings().passage_weight
        mixed = {c: w * raw[c] + (1 - w) * pooled[c] for c in guide}
        by_pooled = sorted(guide, key=lambda c: -pooled[c])
        # the case under test: a section's passage outscores the section about the question
        assert sorted(guide, key=lambda c: -mixed[c]) != by_pooled
        wide = RecallSettings(vector_threshold=0.0)
        got = home.kb().search(query, mode="vector", top_k=10, settings=wide).hits
        order = [h.chunk_id for h in got if h.chunk_id in guide]
        assert order == by_pooled
        per_chunk = dataclasses.replace(wide, passage_scope="chunk")
        got = home.kb().search(query, mode="vector", top_k=10, settings=per_chunk).hits
        assert [h.chunk_id for h in got if h.chunk_id in guide] == sorted(
            guide, key=lambda c: -mixed[c]
        )
        vector = next(
            d
            for d in home.kb().search(query, mode="vector", settings=wide).diagnostics
            if d.route == "vector"
        )
        assert vector.top_score == pytest.approx(max(mixed.values()), abs=1e-5)
