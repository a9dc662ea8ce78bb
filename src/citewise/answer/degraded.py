"""The failure stage of an answered but degraded answer (issue 38).

An answer can be given while part of the pipeline failed or fell short; before issue 38
only refusals carried a ``failure_stage``. :func:`degraded_stage` names the first stage,
in the order the stages run, that made an answered turn degraded:

- a recall route that did not run as configured: a content route ``unavailable`` or
  ``degraded`` (its index failed to build or load: ``indexing``), the rerank stage
  ``unavailable``, ``degraded`` (over its time budget) or skipped because the reranker is
  failing (``reranking``), the graph route likewise (``graph_evidence``);
- else the answer's own degradation: a source window that could not be read back
  (``parsing_source``), evidence covering part of the question or disagreeing with
  itself (``context_assembly``: what the pack held), an older edition cited
  (``retrieval``: what recall found).

None for a clean answer. Routes that are off by configuration (``skipped`` for any other
reason) are not failures. A pure function of the answer's degradation and the recall
diagnostics it already carries (``trace["retrieval"]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from citewise.answer.models import FailureStage

#: The stage of a recall route that did not run as configured.
_ROUTE_STAGE: dict[str, FailureStage] = {
    "lexical": "indexing",
    "vector": "indexing",
    "identifier": "indexing",
    "rerank": "reranking",
    "graph": "graph_evidence",
}
#: The stage an answer's degradation comes from.
_DEGRADATION_STAGE: dict[str, FailureStage] = {
    "source_window_unavailable": "parsing_source",
    "partial_coverage": "context_assembly",
    "conflict": "context_assembly",
    "stale_evidence": "retrieval",
}
#: The start of the rerank route's reason while a failing reranker is skipped
#: (recall/rerank.py ``FAILING``; repeated here so the answer stage reads no recall module).
_RERANK_FAILING = "skipped: the reranker is failing"


def _failed(d: Mapping[str, Any]) -> bool:
    status = d.get("status")
    if status in ("unavailable", "degraded"):
        return True
    return status == "skipped" and str(d.get("reason", "")).startswith(_RERANK_FAILING)


def degraded_stage(
    degradation: str, diagnostics: Iterable[Mapping[str, Any]]
) -> FailureStage | None:
    """The failure stage of an answered turn (see the module docstring); None when clean."""
    for d in diagnostics:
        stage = _ROUTE_STAGE.get(str(d.get("route")))
        if stage is not None and _failed(d):
            return stage
    return _DEGRADATION_STAGE.get(degradation)
