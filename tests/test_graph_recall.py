"""The graph inside recall and evidence: boost diagnostics, neighbor fragments made of the
neighbor's own text, an honest 'unavailable' without a graph, unreadable neighbors."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.core.search import SearchFilters
from citewise.errors import CorruptContent
from citewise.kb import Home
from tests.conftest import EXAMPLES

QUESTION = "what happens when a sync cursor expires?"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    return Home.open(tmp_path / "home")


def test_graph_route_and_neighbor_fragments(home: Home) -> None:
    kb = home.kb()
    assert kb.add([EXAMPLES]).ok
    # As a principal who may read every example (the runbook is ops-team only): scores and
    # the graph are computed over what the caller may read.
    ops = SearchFilters(principal="ops-team")
    result = kb.search(QUESTION, filters=ops)
    graph = next(d for d in result.diagnostics if d.route == "graph")
    assert graph.status == "ok" and "graph" in result.routes
    pack = kb.evidence(QUESTION, filters=ops)
    assert pack.graph_neighbors, "the anchor's neighbors enter as their own text"
    for f in pack.graph_neighbors:
        assert f.relation and f.direction and f.path_to_anchor
        text = home.store.get_document_text("default", f.doc_id, f.version_id)
        assert text[f.char_start : f.char_end] == f.text
        assert kb.resolve(f.citation_id).text == f.text


def test_without_a_graph_recall_and_evidence_still_work(home: Home, tmp_path: Path) -> None:
    corpus = tmp_path / "plain"
    corpus.mkdir()
    (corpus / "notes.txt").write_text(
        "The sync cursor expires after fourteen days without a sync.\n\n"
        "An expired cursor forces a full resync of the workspace.\n",
        "utf-8",
    )
    kb = home.kb()
    assert kb.add([corpus]).ok
    result = kb.search(QUESTION)
    graph = next(d for d in result.diagnostics if d.route == "graph")
    assert graph.status == "unavailable" and graph.reason
    assert "graph" not in result.routes
    pack = kb.evidence(QUESTION)
    assert pack.direct and not pack.graph_neighbors


def test_unreadable_neighbor_is_recorded_not_guessed(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = home.kb()
    assert kb.add([EXAMPLES]).ok
    ops = SearchFilters(principal="ops-team")
    first = kb.evidence(QUESTION, filters=ops)
    assert first.graph_neighbors
    broken = {f.path for f in first.graph_neighbors}
    broken_ids = {f.doc_id for f in first.graph_neighbors}
    real = home.store.get_document_text

    def failing(kb_name: str, doc_id: str, version_id: int):  # type: ignore[no-untyped-def]
        if doc_id in broken_ids:  # what the store raises when stored text fails its sha256
            raise CorruptContent(f"{doc_id}: stored text does not match its sha256")
        return real(kb_name, doc_id, version_id)

    # the first ask kept the neighbours' nodes with the index state: the quoted block
    # must still be read from the store and checked
    monkeypatch.setattr(home.store, "get_document_text", failing)
    pack = kb.evidence(QUESTION, filters=ops)
    assert all(f.path not in broken for f in pack.graph_neighbors)
    assert any(
        lim.kind == "source_window_unavailable" and lim.path in broken for lim in pack.limitations
    )


@pytest.mark.model
def test_boost_is_on_the_convex_scale_in_hybrid_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two content routes (real encoder) convex fusion runs; the boost keeps the share
    of the top score it has under RRF instead of vanishing against convex scores."""
    from dataclasses import replace

    from citewise.recall.search import RecallSettings

    monkeypatch.setenv("CITEWISE_DENSE", "on")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([EXAMPLES]).ok
        ops = SearchFilters(principal="ops-team")
        on = kb.search(QUESTION, mode="hybrid", filters=ops)
        off = kb.search(
            QUESTION, mode="hybrid", filters=ops, settings=replace(RecallSettings(), graph_boost=0)
        )
    assert {"lexical", "vector", "graph"} <= set(on.routes)
    graph = next(d for d in on.diagnostics if d.route == "graph")
    assert graph.top_score is not None
    before = {x.chunk_id: x.score for x in off.hits}
    raised = [x.score - before[x.chunk_id] for x in on.hits if x.chunk_id in before]
    top = max(before.values())
    # at most a quarter of the top score (weight 0.5 of RRF's 2/61), and visibly above zero
    assert max(raised) > 0.02 * top
    assert max(raised) <= 0.25 * top + 1e-9


def test_a_neighbour_version_is_read_from_the_store_once_per_ask(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quoted neighbour block is checked against a store read, but a version read and
    checked earlier in the same ask (by the evidence stage, or by the first of the ask's
    evidence passes) is not read again (issue 35: reads bounded by what an ask needs)."""
    kb = home.kb()
    assert kb.add([EXAMPLES]).ok
    ops = SearchFilters(principal="ops-team")
    neighbours = {
        (f.doc_id, f.version_id) for f in kb.evidence(QUESTION, filters=ops).graph_neighbors
    }
    assert neighbours
    kb.ask(QUESTION, filters=ops)  # warm: the index state and graph are built
    real = home.store.get_document_text
    reads: dict[tuple[str, int], int] = {}

    def counting(kb_name: str, doc_id: str, version_id: int) -> str:
        reads[(doc_id, version_id)] = reads.get((doc_id, version_id), 0) + 1
        return real(kb_name, doc_id, version_id)

    monkeypatch.setattr(home.store, "get_document_text", counting)
    answer = kb.ask(QUESTION, filters=ops)
    assert answer.citations
    read_neighbours = {k: n for k, n in reads.items() if k in neighbours}
    assert read_neighbours and all(n == 1 for n in read_neighbours.values()), read_neighbours
