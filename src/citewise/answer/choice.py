"""The one score an answer's candidate units are ordered by (issue 34): answerability
carried by the evidence's own ranking.

Each candidate unit has two readings that say how good an answer it is:

* its **answerability** (:mod:`citewise.sufficiency.answerability`): the composer's
  relevance of the unit (term overlap blended with meaning, weighed by its fragment's role
  and hit rank, :mod:`citewise.answer.ranking`), lifted by its context and scored down or
  refused by its answer type and structure; the abstain threshold reads it alone;
* its document's **recall rank**: the place of the unit's document among the documents of
  the fused recall (BM25 + dense vectors by reciprocal rank fusion, and, when a reranker
  is configured, re-ordered by the cross-encoder: :mod:`citewise.recall.rerank`). Recall
  reads whole chunks with their title and headings, a signal one sentence's score does
  not hold: a sentence of recall's second document that shares the question's words
  ("Systems like Git usually provide one over-arching command") is not a better answer
  than the first document's procedure whose heading names what is asked.

:func:`choice_score` multiplies the two: ``answerability × (k + 1) / (k + rank)``. The
rank factor is the reciprocal-rank term of reciprocal rank fusion (Cormack, Clarke and
Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning
Methods", SIGIR 2009: ``1 / (k + rank)``), scaled so that recall's first document keeps
its unit's answerability unchanged; ``k`` (:data:`RANK_K`, ``CITEWISE_CHOICE_RANK_K``)
sets how much a place in recall is worth against answerability. With equal
answerability, a unit of a better-ranked document never orders below one of a worse-ranked
document; a unit the question's gates refuse (answerability 0) stays at 0.

**What the order reads today: the relevance, not the answerability.** :func:`scored`
multiplies the rank factor into each unit's *relevance* score; the answerability still
decides which units are admitted (the gate and the abstain threshold), but it no longer
orders them. Ordering by answerability put a short exact line that the structure rule
scores down (a DOCX paragraph "Text outside table", read as heading-like) behind a long
sentence of another document that shares one word, a regression on the test fixtures of
tests/test_formats_web.py found by the full suite after the merge; on the development
pool's starlette, click and typer sets the relevance order with the rank factor gives the
same answers but one (click cl-034: miscited → partial) and keeps the rank factor's fix
(typer ty-026). ``answerable`` is kept in the signature for the day a calibrated
answerability can order without that loss.

Every profile (:mod:`citewise.answer.composition.profiles`) orders and shares out its
candidates by this score; the profiles keep only their shape rules (a how-to quotes
steps, a definition a defining sentence). Pure but for reading the environment variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace

from citewise.answer.candidate import Candidate
from citewise.errors import UsageError
from citewise.evidence.models import Fragment

__all__ = [
    "RANK_K",
    "RANK_K_ENV",
    "choice_score",
    "document_ranks",
    "rank_factor",
    "rank_k",
    "scored",
]

#: The reciprocal-rank constant ``k``: recall's second document weighs (k + 1) / (k + 2)
#: of its first (at 60: 0.984 for the second document, 0.968 for the third). 60 is the
#: constant of Cormack et al.; on the how-to / parameter corpora of the development pool
#: (starlette, click, typer, documents) k = 20 and 60 answer alike, k ≤ 8 drops a third
#: document's needed unit from a comparison, and k = 2 trades one right answer for
#: another (docs/benchmarks.md, "One score for the answer's units"). Papers, squad2, cmrc
#: and laws-zh played no part in the choice (left-out); requests and regulations were
#: never looked at.
RANK_K = 60.0
#: The environment variable that sets :data:`RANK_K` (a number from 0 to 1000; 1000
#: makes the ranks nearly equal), read per ask so the development pool can choose it.
RANK_K_ENV = "CITEWISE_CHOICE_RANK_K"
#: A fragment's ``rank`` is its hit's rank times 100 (plus a tie-breaker); chunks that no
#: hit retrieved rank from 1000 (:mod:`citewise.evidence.assemble`).
_UNRETRIEVED = 1000


def rank_k() -> float:
    """:data:`RANK_K`, or the number 0..1000 that :data:`RANK_K_ENV` sets; any other value
    is a :class:`~citewise.errors.UsageError` naming the variable."""
    raw = os.environ.get(RANK_K_ENV, "").strip()
    if not raw:
        return RANK_K
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1000.0:
        raise UsageError(
            f"{RANK_K_ENV}={raw!r} is not a number between 0 and 1000.",
            hint=f"Set {RANK_K_ENV} to a number such as {RANK_K:g} (the default), or unset it.",
        )
    return value


def rank_factor(rank: int, k: float) -> float:
    """The reciprocal-rank term of RRF (Cormack et al. 2009), ``(k + 1) / (k + rank)``:
    1 for the first place, falling with each place below it (``rank`` ≥ 1)."""
    return (k + 1.0) / (k + max(1, rank))


def choice_score(answerability: float, rank: int, k: float) -> float:
    """The one ordering score of a candidate unit: its ``answerability`` (0..1) times the
    :func:`rank_factor` of its document's recall ``rank``."""
    return max(0.0, answerability) * rank_factor(rank, k)


def _hit_of(f: Fragment) -> int | None:
    """The recall rank of the hit ``f`` came from; None for a graph neighbour (its rank
    orders neighbours, not hits) and for chunks no hit retrieved."""
    if f.role == "graph_neighbor_support":
        return None
    hit = int(f.rank // 100)
    return hit if 1 <= hit < _UNRETRIEVED else None


def document_ranks(fragments: Sequence[Fragment]) -> dict[str, int]:
    """Each document's place (1 = first) among the documents of the recall's hits, by its
    best hit; a document the pack holds without a hit (a graph neighbour) comes after
    every ranked one."""
    best: dict[str, int] = {}
    for f in fragments:
        hit = _hit_of(f)
        if hit is not None and hit < best.get(f.doc_id, _UNRETRIEVED):
            best[f.doc_id] = hit
    ranked = sorted(best, key=lambda d: (best[d], d))
    places = {d: i for i, d in enumerate(ranked, start=1)}
    last = len(places) + 1
    return {f.doc_id: places.get(f.doc_id, last) for f in fragments}


def scored(
    pool: Sequence[Candidate],
    fragments: Sequence[Fragment],
    answerable: Mapping[tuple[str, int, int], float] | None = None,
) -> list[Candidate]:
    """``pool`` with each unit's score replaced by its :func:`choice_score`: its relevance
    score times the rank factor of its document (``answerable``, the gate's answerability
    per unit, is not read for the order; see the module docstring). A unit scored 0
    (refused, kept only as a profile part) stays at 0."""
    k = rank_k()
    ranks = document_ranks(fragments)
    out = []
    for c in pool:
        a = c.score
        value = 0.0 if c.score <= 0 else choice_score(a, ranks.get(c.fragment.doc_id, 1), k)
        out.append(c if value == c.score else replace(c, score=value))
    return out
