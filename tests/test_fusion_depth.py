"""Convex fusion over z-scores, and a fusion depth apart from the graph/MMR pool
(SciFact train choice, docs/benchmarks.md "Fusion depth and z-scores")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.kb import Home
from citewise.recall.fusion import convex, rank_term_scale, ranked, zscore
from citewise.recall.search import RecallSettings, search_summary


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.floats(-1e6, 1e6), min_size=2))
def test_zscore_keeps_the_order_starts_at_zero_and_has_unit_spread(
    scores: dict[str, float],
) -> None:
    out = zscore(scores)
    assert set(out) == set(scores)
    values = list(scores.values())
    if max(values) - min(values) <= 1e-6:
        return
    assert min(out.values()) == 0.0
    mean = sum(out.values()) / len(out)
    spread = (sum((v - mean) ** 2 for v in out.values()) / len(out)) ** 0.5
    assert abs(spread - 1.0) < 1e-6
    for a in scores:
        for b in scores:
            if scores[a] < scores[b]:
                assert out[a] <= out[b]


def test_zscore_of_a_constant_route_is_one() -> None:
    assert zscore({"a": 3.0, "b": 3.0}) == {"a": 1.0, "b": 1.0}
    assert zscore({}) == {}


def test_zscore_reads_the_whole_spread_not_only_the_extremes() -> None:
    """Min-max depends on a route's highest and lowest candidates only; the z-score on how
    all of them spread, so the two can disagree on the first place."""
    lexical = {"a": 14.0, "b": 8.0, "c": 10.0, "d": 5.0}
    vector = {"a": 0.43, "b": 0.67, "c": 0.33, "d": 0.63}
    weights = {"lexical": 0.5, "vector": 0.5}
    by_minmax = convex({"lexical": lexical, "vector": vector}, weights)
    by_z = convex({"lexical": lexical, "vector": vector}, weights, "zscore")
    assert ranked(by_minmax) == ["b", "a", "d", "c"]
    assert ranked(by_z) == ["a", "b", "d", "c"]
    assert min(by_z.values()) >= 0.0


def test_rank_term_scale_reads_the_best_score_under_zscores() -> None:
    k, cvx, rrf_w = 60, {"lexical": 0.5, "vector": 0.5}, {"lexical": 2.0, "vector": 1.0}
    assert rank_term_scale(["lexical", "vector"], cvx, rrf_w, k, best=4.0) == 4.0 / (3.0 / 61)
    assert rank_term_scale(["lexical", "vector"], cvx, rrf_w, k) == 1.0 / (3.0 / 61)


def _corpus(root: Path) -> Path:
    root.mkdir(parents=True)
    for i in range(24):
        words = " ".join(["retry"] * (1 + i % 5))
        (root / f"n{i:02d}.md").write_text(f"# Note {i}\n\n{words} limit {i} per hour.\n")
    return root


def test_dense_off_ranks_as_if_routes_fetched_only_the_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one content route, rank fusion reads the first ``pool`` candidates: a deeper
    fusion depth changes nothing a dense-off search returns or records."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([_corpus(tmp_path / "docs")]).ok
        base = replace(RecallSettings(), pool=4, mmr=False)
        shallow = kb.search("retry limit", top_k=10, settings=replace(base, depth=4))
        deep = kb.search("retry limit", top_k=10, settings=replace(base, depth=20))
    assert [x.chunk_id for x in deep.hits] == [x.chunk_id for x in shallow.hits]
    assert len(deep.hits) == 4
    assert [x.score for x in deep.hits] == [x.score for x in shallow.hits]
    lexical = next(d for d in deep.diagnostics if d.route == "lexical")
    assert lexical.candidates == 4
    strip = {"settings"}  # the depth itself is recorded in the settings
    a, b = search_summary(deep), search_summary(shallow)
    assert {k: v for k, v in a.items() if k not in strip} == {
        k: v for k, v in b.items() if k not in strip
    }


@pytest.mark.model
def test_hybrid_fuses_depth_candidates_per_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With both content routes, convex fusion sees ``depth`` candidates of each."""
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([_corpus(tmp_path / "docs")]).ok
        base = replace(RecallSettings(), pool=4, mmr=False, vector_threshold=-1.0)
        deep = kb.search("retry limit", top_k=20, settings=replace(base, depth=12))
        shallow = kb.search("retry limit", top_k=20, settings=replace(base, depth=4))
    routes = {d.route: d.candidates for d in deep.diagnostics}
    assert routes["lexical"] == 12 and routes["vector"] == 12
    assert len(deep.hits) >= 12 > len(shallow.hits)
