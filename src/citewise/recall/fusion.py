"""Pure rank-fusion and diversification functions.

- Reciprocal rank fusion: Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms
  Condorcet and individual Rank Learning Methods", SIGIR 2009 (k = 60).
- Convex combination of normalised scores (min-max, or z-score shifted to start at 0):
  Bruch, Gai and Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS
  2023.
- Maximal marginal relevance: Carbonell and Goldstein, SIGIR 1998.

Ties are broken by id so that results are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

RRF_K = 60

Normalisation = Literal["minmax", "zscore"]

FloatArray = npt.NDArray[Any]
IntArray = npt.NDArray[np.int64]


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


def zscore(scores: Mapping[str, float]) -> dict[str, float]:
    """``(s - min) / std``: the z-score shifted so that the route's lowest candidate gets 0
    (the same order and gaps as the z-score; never negative, so factors such as the stale
    edition's keep their meaning). A constant list maps to 1.0 for every member."""
    if not scores:
        return {}
    values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    spread = float(values.std())
    if spread <= 1e-12:
        return dict.fromkeys(scores, 1.0)
    lo = float(values.min())
    return {d: (s - lo) / spread for d, s in scores.items()}


def convex(
    scores: Mapping[str, Mapping[str, float]],
    weights: Mapping[str, float] | None = None,
    norm: Normalisation = "minmax",
) -> dict[str, float]:
    """``sum_r w_r * norm(s_r)(d)``; a candidate missing from a route gets 0 there (the
    route's lowest normalised score)."""
    scale = minmax if norm == "minmax" else zscore
    fused: dict[str, float] = {}
    for route, route_scores in scores.items():
        w = 1.0 if weights is None else weights.get(route, 1.0)
        for doc, s in scale(route_scores).items():
            fused[doc] = fused.get(doc, 0.0) + w * s
    return fused


def rank_term_scale(
    routes: Sequence[str],
    convex_weights: Mapping[str, float],
    rrf_weights: Mapping[str, float],
    k: int,
    best: float | None = None,
) -> float:
    """Factor that puts a term measured on the RRF scale onto the convex scale.

    An RRF-style bonus such as the graph boost (``w / (k + rank)``) is tuned as a share of
    the best score RRF can give (``sum_r w_r / (k + 1)``). Under convex fusion the best
    score is ``sum_r w_r`` over min-max normalised routes, so the same share is kept by
    multiplying with the ratio of the two maxima over the routes that ran. Z-scores have
    no fixed maximum: ``best`` (the best fused score of this query) stands in for it.
    """
    rrf_top = sum(rrf_weights.get(r, 1.0) for r in routes) / (k + 1)
    convex_top = sum(convex_weights.get(r, 1.0) for r in routes) if best is None else best
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
    """Greedy MMR (Carbonell & Goldstein 1998) over ``candidates`` with an optional cap per
    group (e.g. per document). Each candidate's redundancy (its largest similarity to the
    chosen ones) is updated with the newest pick only, so a pass costs O(n) similarity
    calls, not O(n * chosen)."""
    rel = minmax({c: relevance[c] for c in candidates})
    chosen: list[str] = []
    counts: dict[str, int] = {}
    pool = list(candidates)
    redundancy: dict[str, float] = {c: 0.0 for c in pool}
    while pool and len(chosen) < n:
        if chosen:
            last = chosen[-1]
            for c in pool:
                redundancy[c] = max(redundancy[c], similarity(c, last))
        best, best_score = None, float("-inf")
        for c in pool:
            if (
                group is not None
                and per_group_cap is not None
                and counts.get(group(c), 0) >= per_group_cap
            ):
                continue
            score = lam * rel[c] - (1.0 - lam) * redundancy[c]
            if score > best_score or (score == best_score and best is not None and c < best):
                best, best_score = c, score
        if best is None:
            break
        chosen.append(best)
        pool.remove(best)
        if group is not None:
            counts[group(best)] = counts.get(group(best), 0) + 1
    return chosen


def mmr_columns(
    candidates: Sequence[str],
    relevance: Mapping[str, float],
    column: Callable[[int], FloatArray],
    n: int,
    *,
    lam: float = 0.7,
    groups: Sequence[str] | None = None,
    per_group_cap: int | None = None,
) -> list[str]:
    """:func:`mmr` with the similarities to one candidate given at once: ``column(j)[i]``
    is the similarity of ``candidates[i]`` to ``candidates[j]``, and ``groups[i]`` the group
    of ``candidates[i]``. A pass is a few array operations instead of a Python call per
    pair, and it picks exactly what :func:`mmr` picks (same float operations, same
    tie-break by id)."""
    if len(set(candidates)) != len(candidates):
        raise ValueError("mmr_columns needs distinct candidates")
    rel_of = minmax({c: relevance[c] for c in candidates})
    rel = np.array([rel_of[c] for c in candidates], dtype=np.float64)
    redundancy = np.zeros(len(candidates), dtype=np.float64)
    alive = np.ones(len(candidates), dtype=bool)
    full = groups is not None and per_group_cap is not None and per_group_cap <= 0
    capped = np.full(len(candidates), full, dtype=bool)  # the candidate's group is full
    members: dict[str, list[int]] = {}
    if groups is not None:
        for i, g in enumerate(groups):
            members.setdefault(g, []).append(i)
    counts: dict[str, int] = {}
    chosen: list[int] = []
    while len(chosen) < n:
        if chosen:
            # fmax, like max(): a NaN similarity never raises the redundancy
            np.fmax(redundancy, column(chosen[-1]), out=redundancy, where=alive)
        score = lam * rel - (1.0 - lam) * redundancy
        open_ = alive & ~capped & (score > -np.inf)  # NaN and -inf are never picked
        if not open_.any():
            break
        tied = np.flatnonzero(open_ & (score == score[open_].max()))
        best = min((int(i) for i in tied), key=lambda i: candidates[i])
        chosen.append(best)
        alive[best] = False
        if groups is not None and per_group_cap is not None:
            g = groups[best]
            counts[g] = counts.get(g, 0) + 1
            if counts[g] >= per_group_cap:
                capped[members[g]] = True
    return [candidates[i] for i in chosen]


class Jaccard:
    """Word-set overlap (|a & b| / |a | b|, 0 for two empty sets) of every bag against
    one, as :func:`mmr_columns` reads it: ``Jaccard(bags)(j)``. A bag is the distinct word
    ids of one candidate (small non-negative integers naming words, the same id for the
    same word)."""

    def __init__(self, bags: Sequence[IntArray]) -> None:
        self._bags = bags
        self._size = np.array([len(b) for b in bags], dtype=np.int64)
        self._flat = np.concatenate(bags) if bags else np.zeros(0, dtype=np.int64)
        self._rows = np.repeat(np.arange(len(bags)), self._size)
        self._member = np.zeros(int(self._flat.max()) + 1 if len(self._flat) else 0, dtype=bool)

    def __call__(self, j: int) -> FloatArray:
        member = self._member
        member[self._bags[j]] = True
        shared = np.bincount(self._rows[member[self._flat]], minlength=len(self._bags))
        member[self._bags[j]] = False
        union = self._size + self._size[j] - shared
        out: FloatArray = np.divide(
            shared, union, out=np.zeros(len(union), dtype=np.float64), where=union > 0
        )
        return out
