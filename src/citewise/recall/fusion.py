"""Pure rank-fusion and diversification functions.

- Reciprocal rank fusion: Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms
  Condorcet and individual Rank Learning Methods", SIGIR 2009 (k = 60).
- Convex combination of min-max normalised scores: Bruch, Gai and Ingber, "An Analysis of
  Fusion Functions for Hybrid Retrieval", ACM TOIS 2023.
- Maximal marginal relevance: Carbonell and Goldstein, SIGIR 1998.

Ties are broken by id so that results are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

RRF_K = 60


def rrf(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: int = RRF_K,
) -> dict[str, float]:
    """Weighted RRF: ``sum_r w_r / (k + rank_r(d))`` with 1-based ranks."""
    fused: dict[str, float] = {}
    for route, ranked in rankings.items():
        w = 1.0 if weights is None else weights.get(route, 1.0)
        for rank, doc in enumerate(ranked, start=1):
            fused[doc] = fused.get(doc, 0.0) + w / (k + rank)
    return fused


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    """Scale to [0, 1]; a constant list maps to 1.0 for every member."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo <= 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {d: (s - lo) / (hi - lo) for d, s in scores.items()}


def convex(
    scores: Mapping[str, Mapping[str, float]],
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """``sum_r w_r * minmax(s_r)(d)``; a candidate missing from a route gets 0 there."""
    fused: dict[str, float] = {}
    for route, route_scores in scores.items():
        w = 1.0 if weights is None else weights.get(route, 1.0)
        for doc, s in minmax(route_scores).items():
            fused[doc] = fused.get(doc, 0.0) + w * s
    return fused


def rank_term_scale(
    routes: Sequence[str],
    convex_weights: Mapping[str, float],
    rrf_weights: Mapping[str, float],
    k: int,
) -> float:
    """Factor that puts a term measured on the RRF scale onto the convex scale.

    An RRF-style bonus such as the graph boost (``w / (k + rank)``) is tuned as a share of
    the best score RRF can give (``sum_r w_r / (k + 1)``). Under convex fusion the best
    score is ``sum_r w_r`` over min-max normalised routes, so the same share is kept by
    multiplying with the ratio of the two maxima over the routes that ran.
    """
    rrf_top = sum(rrf_weights.get(r, 1.0) for r in routes) / (k + 1)
    convex_top = sum(convex_weights.get(r, 1.0) for r in routes)
    return convex_top / rrf_top if rrf_top > 0 else 1.0


def ranked(fused: Mapping[str, float]) -> list[str]:
    """Ids by descending score, ties by id."""
    return sorted(fused, key=lambda d: (-fused[d], d))


def mmr(
    candidates: Sequence[str],
    relevance: Mapping[str, float],
    similarity: Callable[[str, str], float],
    n: int,
    *,
    lam: float = 0.7,
    group: Callable[[str], str] | None = None,
    per_group_cap: int | None = None,
) -> list[str]:
    """Greedy MMR over ``candidates`` with an optional cap per group (e.g. per document)."""
    rel = minmax({c: relevance[c] for c in candidates})
    chosen: list[str] = []
    counts: dict[str, int] = {}
    pool = list(candidates)
    while pool and len(chosen) < n:
        best, best_score = None, float("-inf")
        for c in pool:
            if (
                group is not None
                and per_group_cap is not None
                and counts.get(group(c), 0) >= per_group_cap
            ):
                continue
            redundancy = max((similarity(c, s) for s in chosen), default=0.0)
            score = lam * rel[c] - (1.0 - lam) * redundancy
            if score > best_score or (score == best_score and best is not None and c < best):
                best, best_score = c, score
        if best is None:
            break
        chosen.append(best)
        pool.remove(best)
        if group is not None:
            counts[group(best)] = counts.get(group(best), 0) + 1
    return chosen
