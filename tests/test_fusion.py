from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citewise.recall.fusion import convex, minmax, mmr, rank_term_scale, ranked, rrf


def test_rrf_rewards_agreement() -> None:
    fused = rrf({"bm25": ["a", "b", "c"], "dense": ["b", "a", "d"]})
    assert ranked(fused)[:2] == ["a", "b"]  # tie on score broken by id
    assert fused["a"] == fused["b"] > fused["c"] > 0
    assert fused["d"] == fused["c"]


def test_rrf_weights_shift_the_order() -> None:
    fused = rrf({"bm25": ["a", "b"], "dense": ["b", "a"]}, {"bm25": 1.0, "dense": 2.0})
    assert ranked(fused) == ["b", "a"]


def test_convex_normalises_each_route() -> None:
    fused = convex(
        {"bm25": {"a": 30.0, "b": 10.0}, "dense": {"a": 0.1, "b": 0.9}}, {"bm25": 0.3, "dense": 0.7}
    )
    assert ranked(fused) == ["b", "a"]
    assert abs(fused["b"] - 0.7) < 1e-9


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.floats(-1e6, 1e6), min_size=1))
def test_minmax_range(scores: dict[str, float]) -> None:
    out = minmax(scores)
    assert set(out) == set(scores)
    assert all(0.0 <= v <= 1.0 for v in out.values())


def test_mmr_caps_per_document_and_diversifies() -> None:
    cands = ["d1#1", "d1#2", "d1#3", "d2#1", "d3#1"]
    rel = {"d1#1": 1.0, "d1#2": 0.95, "d1#3": 0.9, "d2#1": 0.5, "d3#1": 0.4}

    def sim(a: str, b: str) -> float:
        return 1.0 if a.split("#")[0] == b.split("#")[0] else 0.0

    out = mmr(cands, rel, sim, 4, lam=0.7, group=lambda c: c.split("#")[0], per_group_cap=2)
    assert out[0] == "d1#1"
    assert sum(1 for c in out if c.startswith("d1")) <= 2
    assert set(out) >= {"d2#1", "d3#1"}


def test_rank_term_keeps_its_share_of_the_top_score_under_convex() -> None:
    """A bonus worth a quarter of RRF's best score is worth a quarter of convex's best."""
    routes = {"lexical": ["a", "b", "c"], "vector": ["a", "c", "b"]}
    rrf_w, cvx_w, k = {"lexical": 2.0, "vector": 1.0}, {"lexical": 0.6, "vector": 0.4}, 60
    by_rrf = rrf(routes, rrf_w, k)
    by_convex = convex(
        {"lexical": {"a": 9, "b": 5, "c": 1}, "vector": {"a": 0.9, "c": 0.5, "b": 0.1}}, cvx_w
    )
    bonus = 0.25 * max(by_rrf.values())
    scale = rank_term_scale(["lexical", "vector"], cvx_w, rrf_w, k)
    assert abs(bonus * scale / max(by_convex.values()) - 0.25) < 1e-9
    # one route only: the ratio of that route's maxima
    assert abs(rank_term_scale(["lexical"], cvx_w, rrf_w, k) - 0.6 / (2.0 / 61)) < 1e-9
    assert rank_term_scale([], cvx_w, rrf_w, k) == 1.0
