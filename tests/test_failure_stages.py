"""Failure classification (issue 21): ``indexing`` and ``permission_scope`` are emitted
where they happen, over real SQLite homes (dense off, or a vector index that fails to
load), and a match hidden from the caller reads exactly as if it never existed: only the
operator's audit ledger names it (docs/security.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.core.search import SearchFilters
from citewise.index.embedder import Unavailable
from citewise.index.manager import KBIndex
from citewise.kb import Home

PUBLIC = "# Ports\n\nThe Tandem API listens on port 8443 in production.\n"
SECRET = (
    "---\ntitle: Kestrel merger plan\naccess: [alice]\n---\n\n# Kestrel merger plan\n\n"
    "The Kestrel merger closes on the first of March.\n"
)
QUESTION = "When does the Kestrel merger close?"


pytestmark = pytest.mark.usefixtures("dense_off")


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_an_empty_index_is_an_indexing_failure(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as home:
        answer = home.kb().ask("Which port does the Tandem API listen on?")
    assert answer.outcome == "insufficient_evidence"
    assert answer.failure_stage == "indexing"
    assert answer.to_json()["failure_stage"] == "indexing"
    assert any(r.startswith("index_empty:") for r in answer.sufficiency.reason_texts)


def test_a_vector_index_that_failed_to_load_is_an_indexing_failure(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as home:
        index = KBIndex(
            home.store,
            "default",
            tmp_path / "idx",
            loader=lambda: Unavailable("dense", "model file is corrupt", "re-download it"),
        )
        home._indexes["default"] = index
        assert home.kb().add([_write(tmp_path / "c", {"ports.md": PUBLIC})]).ok
        answer = home.kb().ask("How do I defragment the archive volume?")
    assert answer.outcome == "insufficient_evidence"
    assert answer.failure_stage == "indexing"
    why = [r for r in answer.sufficiency.reason_texts if r.startswith("index_unavailable:")]
    assert why and "vector index is unavailable (model file is corrupt" in why[0]


def test_an_answerable_question_under_a_working_index_is_no_indexing_failure(
    tmp_path: Path,
) -> None:
    with Home.open(tmp_path / "home") as home:
        assert home.kb().add([_write(tmp_path / "c", {"ports.md": PUBLIC})]).ok
        answer = home.kb().ask("How do I defragment the archive volume?")
    assert answer.outcome == "insufficient_evidence"
    assert answer.failure_stage == "retrieval"


def test_the_callers_own_scope_filter_leaving_out_every_match_is_permission_scope(
    tmp_path: Path,
) -> None:
    docs = {"api/ports.md": PUBLIC, "guides/intro.md": "# Intro\n\nWelcome to the guides.\n"}
    with Home.open(tmp_path / "home") as home:
        kb = home.kb()
        assert kb.add([_write(tmp_path / "c", docs)]).ok
        question = "Which port does the Tandem API listen on?"
        scoped = kb.ask(question, filters=SearchFilters(path_prefixes=("guides/",)))
        anywhere = kb.ask(question)
    assert anywhere.outcome == "answered"
    assert scoped.outcome == "insufficient_evidence"
    assert scoped.failure_stage == "permission_scope"
    why = [r for r in scoped.sufficiency.reason_texts if r.startswith("outside_scope:")]
    assert why and "widen or drop the path, tag or metadata filters" in why[0]
    assert "api/ports.md" not in json.dumps(scoped.to_json())


def _public_view(home_dir: Path, tmp: Path, files: dict[str, str], who: str) -> dict[str, object]:
    with Home.open(home_dir) as home:
        kb = home.kb()
        assert kb.add([_write(tmp, files)]).ok
        answer = kb.ask(QUESTION, filters=SearchFilters(principal=who))
        out = answer.to_json(with_trace=True)
        events = home.store.ledger.query_ledger(types=("access",), kb="default")
    out["access_events"] = [e.payload for e in events]
    return out


def test_a_match_hidden_from_the_caller_reads_as_absent_and_only_the_audit_names_it(
    tmp_path: Path,
) -> None:
    held = _public_view(
        tmp_path / "h1", tmp_path / "c1", {"ports.md": PUBLIC, "plan.md": SECRET}, "bob"
    )
    never = _public_view(tmp_path / "h2", tmp_path / "c2", {"ports.md": PUBLIC}, "bob")
    assert held["outcome"] == never["outcome"] == "insufficient_evidence"
    assert held["failure_stage"] == never["failure_stage"] == "retrieval"
    assert held["answer"] == never["answer"]
    assert held["sufficiency"] == never["sufficiency"]
    public = json.dumps({k: v for k, v in held.items() if k != "access_events"})
    for word in ("plan.md", "merger plan", "first of March", "permission_scope"):
        assert word not in public
    # the operator's ledger says what happened, and names the withheld document
    (event,) = held["access_events"]  # type: ignore[misc]
    assert event["principal"] == "bob" and event["denied"] == ["plan.md"]
    assert event["failure_stage"] == "permission_scope"
    assert event["withheld_matches"] == ["plan.md"]
    # a reader who may see it gets the answer; the event names no withheld match
    alice = _public_view(
        tmp_path / "h3", tmp_path / "c3", {"ports.md": PUBLIC, "plan.md": SECRET}, "alice"
    )
    assert alice["outcome"] == "answered" and "first of March" in str(alice["answer"])
    assert "withheld_matches" not in alice["access_events"][0]  # type: ignore[index]
