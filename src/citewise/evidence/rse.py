"""Relevant segment extraction (RSE): the best runs of adjacent chunks for a query.

The idea comes from dsRAG (D-Star AI, https://github.com/D-Star-AI/dsRAG, "relevant
segment extraction"): relevant text clusters inside documents, so instead of returning
isolated top chunks, give every chunk of a document a value and pick the contiguous runs
with the largest total value. This is an independent implementation of that idea:

* a retrieved chunk is worth ``exp(-rank / decay_rate) * relevance - irrelevant_penalty``
  where ``relevance`` is its fused score divided by the best score (0..1);
* a chunk that was not retrieved is worth ``-irrelevant_penalty``;
* each value is scaled by the chunk's length relative to ``reference_chars``, so a long
  irrelevant chunk costs more than a short one;
* segments are chosen greedily: the run (at most ``max_segment_chunks`` long, not
  overlapping an already chosen run, inside the ``max_total_chunks`` overall budget) with
  the highest total value is taken, until the best remaining run is worth less than
  ``min_segment_value``. (The caller keeps the best hit of each top-ranked document as a
  one-chunk segment when no chosen run covers it, see ``evidence/keep_top.py``: a short
  best chunk is never lost to length scaling.) Each run starts and ends on a positive
  chunk, so it never pads itself with irrelevant chunks.

Everything here is pure: lists of numbers in, (key, start, end, value) tuples out.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from citewise.evidence.models import RSEParams

K = TypeVar("K", bound=Hashable)

#: Length factors are clamped to this range: a one-line chunk still counts a little,
#: and a huge one cannot dominate.
MIN_LENGTH_FACTOR = 0.5
MAX_LENGTH_FACTOR = 2.0


def chunk_values(
    lengths: Sequence[int],
    retrieved: Mapping[int, tuple[int, float]],
    params: RSEParams,
) -> list[float]:
    """Value of each chunk of one document.

    ``lengths``: characters of each chunk, by ordinal. ``retrieved``: ordinal ->
    (1-based rank, relevance in 0..1) for the chunks the query retrieved.
    """
    out = []
    for i, length in enumerate(lengths):
        factor = min(MAX_LENGTH_FACTOR, max(MIN_LENGTH_FACTOR, length / params.reference_chars))
        if i in retrieved:
            rank, relevance = retrieved[i]
            base = math.exp(-(rank - 1) / params.decay_rate) * relevance
        else:
            base = 0.0
        out.append((base - params.irrelevant_penalty) * factor)
    return out


def _best_run(
    values: Sequence[float], taken: Sequence[tuple[int, int]], max_len: int, room: int
) -> tuple[int, int, float] | None:
    """The highest-value run [start, end) within ``max_len`` and ``room`` chunks that
    overlaps nothing in ``taken`` and starts and ends on positive values."""
    blocked = [False] * len(values)
    for s, e in taken:
        for i in range(s, e):
            blocked[i] = True
    best: tuple[int, int, float] | None = None
    limit = min(max_len, room)
    for start, v in enumerate(values):
        if v <= 0 or blocked[start]:
            continue
        total = 0.0
        for end in range(start, min(len(values), start + limit)):
            if blocked[end]:
                break
            total += values[end]
            if values[end] > 0 and (best is None or total > best[2]):
                best = (start, end + 1, total)
    return best


def best_segments(
    values_by_doc: Mapping[K, Sequence[float]], params: RSEParams
) -> list[tuple[K, int, int, float]]:
    """Non-overlapping segments ``(key, start, end_exclusive, value)``, best first.

    Documents are scanned in the mapping's order; ties keep the earlier document and
    start, so the result is deterministic.
    """
    chosen: list[tuple[K, int, int, float]] = []
    taken: dict[K, list[tuple[int, int]]] = {k: [] for k in values_by_doc}
    used = 0
    while used < params.max_total_chunks:
        best: tuple[K, int, int, float] | None = None
        for key, values in values_by_doc.items():
            run = _best_run(
                values, taken[key], params.max_segment_chunks, params.max_total_chunks - used
            )
            if run is not None and (best is None or run[2] > best[3]):
                best = (key, run[0], run[1], run[2])
        if best is None or best[3] < params.min_segment_value:
            break
        chosen.append(best)
        taken[best[0]].append((best[1], best[2]))
        used += best[2] - best[1]
    return chosen
