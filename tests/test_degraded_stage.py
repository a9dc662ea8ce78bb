"""Degraded answered turns carry their failure stage (issue 38): the first recall route
that did not run as configured, else the answer's own degradation; a clean answer has
none. The pure rule, and real answers: a conflict answered with both sides (two small
documents) and a clean one."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.answer.degraded import degraded_stage
from tests.test_conflict_review import WHEN, make_kb

pytestmark = pytest.mark.usefixtures("dense_off")


def _route(route: str, status: str, reason: str = "") -> dict[str, str]:
    return {"route": route, "status": status, "reason": reason}


@pytest.mark.parametrize(
    ("degradation", "routes", "stage"),
    [
        ("none", [_route("lexical", "ok"), _route("vector", "skipped", "dense off")], None),
        ("none", [_route("vector", "unavailable", "index failed to load")], "indexing"),
        ("partial_coverage", [_route("rerank", "unavailable", "HTTP 500")], "reranking"),
        ("none", [_route("rerank", "skipped", "skipped: the reranker is failing (x)")],
         "reranking"),
        ("none", [_route("rerank", "skipped", "no reranker configured (CITEWISE_RERANK)")],
         None),
        ("none", [_route("rerank", "degraded", "over the time budget")], "reranking"),
        ("none", [_route("graph", "unavailable")], "graph_evidence"),
        ("conflict", [_route("lexical", "ok")], "context_assembly"),
        ("partial_coverage", [], "context_assembly"),
        ("stale_evidence", [], "retrieval"),
        ("source_window_unavailable", [], "parsing_source"),
    ],
)  # fmt: skip
def test_the_stage_of_a_degraded_answer(
    degradation: str, routes: list[dict[str, str]], stage: str | None
) -> None:
    assert degraded_stage(degradation, routes) == stage


def test_a_conflict_answer_names_its_stage_and_a_clean_one_none(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    answer = kb.ask(WHEN)
    assert answer.outcome == "answered" and answer.degradation == "conflict"
    assert answer.failure_stage == "context_assembly"
    assert answer.to_json()["failure_stage"] == "context_assembly"
    assert answer.trace["failure_stage"] == "context_assembly"
    clean = kb.ask("Who leads maintenance of the Kestrel Bridge?")
    if clean.outcome == "answered" and clean.degradation == "none":
        assert clean.failure_stage is None
