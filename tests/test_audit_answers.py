"""Saved answers: pinned citations, stale checks, export and replay in fresh processes,
access log and feedback. Real SQLite homes, dense route off."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.audit import checkpoint as cp
from citewise.audit.keys import default_key_path
from citewise.audit.pinned import check_citations
from citewise.core.search import SearchFilters
from citewise.kb import Home
from citewise.store.protocol import Ledger
from tests.conftest import EXAMPLES, run_cli

QUESTION = "How long are audit logs retained?"
CITED = "data-retention-policy.md"


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.delenv("CITEWISE_AUDIT_KEY", raising=False)
    dst = tmp_path / "docs"
    shutil.copytree(EXAMPLES, dst)
    return dst


@pytest.fixture
def home(tmp_path: Path, corpus: Path) -> Iterator[Home]:
    h = Home.open(tmp_path / "home")
    h.kb().add([corpus])
    yield h
    h.close()


def _ledger(h: Home) -> Ledger:
    return h.store.ledger


def test_answer_is_saved_with_its_ledger_event(home: Home) -> None:
    answer = home.kb().ask(QUESTION)
    assert answer.outcome == "answered" and answer.citations
    saved = _ledger(home).get_answer(answer.trace_id)
    assert saved["answer"]["answer"] == answer.answer
    assert saved["answer"]["trace"]["pack"]["replay_id"] == answer.replay_id
    event = _ledger(home).ledger_entry(saved["ledger_seq"])
    assert event.type == "answer"
    assert event.payload["answer_sha256"] == saved["answer_sha256"]
    assert event.payload["citations"] == [[c.id, c.sha256] for c in answer.citations]
    assert event.payload["revision"] == answer.revision
    assert event.payload["revision_hash"] == home.kb().revisions()[-1].hash
    assert cp.verify(_ledger(home), default_key_path(home.settings.home)).ok


def test_reingest_keeps_pinned_citations_and_marks_stale(home: Home, corpus: Path) -> None:
    kb = home.kb()
    answer = kb.ask(QUESTION)
    cite = answer.citations[0]
    assert cite.path == CITED
    before = _ledger(home).get_answer(answer.trace_id)
    # An unrelated change: the citation stays current.
    (corpus / "glossary.md").write_text("# Glossary\n\nNothing else.\n")
    kb.add([corpus])
    report = check_citations(home.store, answer.trace_id)
    assert [c["status"] for c in report["citations"]] == ["current"] * len(answer.citations)
    # Change the cited span itself.
    src = corpus / CITED
    text = src.read_text(encoding="utf-8")
    assert cite.excerpt in text
    src.write_text(text.replace(cite.excerpt, "Audit logs are kept for ten days only."))
    kb.add([corpus])
    resolved = home.resolve(cite.id)
    assert resolved.text == cite.excerpt and resolved.sha256 == cite.sha256
    report = check_citations(home.store, answer.trace_id)
    first = report["citations"][0]
    assert first["status"] == "stale" and first["pinned"]
    assert first["old_text"] == cite.excerpt and first["new_text"] != cite.excerpt
    assert report["stale"] >= 1 and report["all_pinned"]
    after = _ledger(home).get_answer(answer.trace_id)
    assert after["answer"] == before["answer"] and after["answer_sha256"] == before["answer_sha256"]
    # Deleting the document: still pinned, stale as removed.
    kb.delete(CITED)
    first = check_citations(home.store, answer.trace_id)["citations"][0]
    assert first["status"] == "stale" and first["reason"] == "document removed" and first["pinned"]
    assert cp.verify(_ledger(home), default_key_path(home.settings.home)).ok


def _cli_json(*args: str, home: Path, code: int = 0) -> Any:
    proc = run_cli(*args, home=home)
    assert proc.returncode == code, proc.stderr + proc.stdout
    return json.loads(proc.stdout)


@pytest.mark.subprocess
def test_export_then_replay_in_fresh_processes(tmp_path: Path, corpus: Path) -> None:
    h = tmp_path / "cli-home"
    assert run_cli("add", str(corpus), home=h).returncode == 0
    answer = _cli_json("ask", QUESTION, "--json", home=h)
    aid = answer["trace_id"]
    checkpoint = _cli_json("audit", "checkpoint", home=h)
    bundle_path = tmp_path / "bundle.json"
    assert run_cli("export", aid, "--out", str(bundle_path), home=h).returncode == 0
    bundle = json.loads(bundle_path.read_text())
    assert bundle["question"] == QUESTION and bundle["revision"] == answer["revision"]
    assert bundle["citations"][0]["excerpt"] and bundle["citations"][0]["sha256"]
    assert bundle["evidence_pack"]["decisions"] and bundle["sufficiency"]["status"]
    assert bundle["retrieval"]["routes"] and bundle["retrieval"]["diagnostics"]
    assert cp.check_inclusion(bundle["ledger"]["inclusion_proof"])
    assert bundle["ledger"]["checkpoint"]["root_hash"] == checkpoint["root_hash"]
    key = default_key_path(h.resolve())
    assert key.read_text() not in bundle_path.read_text() and "PRIVATE" not in json.dumps(bundle)
    report = _cli_json("replay", str(bundle_path), "--json", home=h)
    assert report["status"] == "reproduced", report
    assert report["same_replay_id"] and report["same_answer"]
    assert report["replay_id"] == answer["replay_id"]
    # A deliberately changed configuration (the scope) is reported at its first stage.
    changed = dict(bundle)
    changed["conditions"] = json.loads(json.dumps(bundle["conditions"]))
    changed["conditions"]["filters"]["path_prefixes"] = ["glossary.md"]
    changed_path = tmp_path / "changed.json"
    changed_path.write_text(json.dumps(changed))
    report = _cli_json("replay", str(changed_path), "--json", home=h, code=1)
    assert report["status"] == "differs" and report["first_differing_stage"] == "retrieval"
    assert report["differing_stages"][0] == "retrieval"
    # After the corpus moves on, replay re-asks at the pinned revision (issue 38).
    (corpus / CITED).write_text("# Retention\n\nEverything is kept forever.\n")
    assert run_cli("add", str(corpus), home=h).returncode == 0
    report = _cli_json("replay", str(bundle_path), "--json", home=h)
    assert report["status"] == "reproduced" and report["replayed_at"] == answer["revision"]
    assert report["same_answer"] and report["replay_id"] == answer["replay_id"]
    # The verifier still passes with the auditor's copy of the checkpoint.
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps(checkpoint))
    assert _cli_json("audit", "verify", "--against", str(kept), "--json", home=h)["ok"]


@pytest.mark.subprocess
def test_cli_proofs_and_cite_check(tmp_path: Path, corpus: Path) -> None:
    h = tmp_path / "cli-home"
    run_cli("add", str(corpus), home=h, check=True)
    old = _cli_json("audit", "checkpoint", home=h)
    aid = _cli_json("ask", QUESTION, "--json", home=h)["trace_id"]
    proof = _cli_json("audit", "proof", "inclusion", "3", home=h)
    assert proof["verifies"] and proof["entry"]["seq"] == 3
    cons = _cli_json("audit", "proof", "consistency", str(old["tree_size"]), home=h)
    assert cons["verifies"] and cons["old_root"] == old["root_hash"]
    assert run_cli("cite", "check", aid, home=h).returncode == 0
    (corpus / CITED).write_text("# Retention\n\nEverything is kept forever.\n")
    run_cli("add", str(corpus), home=h, check=True)
    proc = run_cli("cite", "check", aid, home=h)
    assert proc.returncode == 1 and "stale" in proc.stdout and "old:" in proc.stdout
    assert run_cli("cite", "check", "t_nope", home=h).returncode != 0


@pytest.mark.subprocess
def test_access_log_and_feedback(tmp_path: Path, home: Home) -> None:
    kb = home.kb()
    kb.ask("How do I troubleshoot sync failures?", filters=SearchFilters(principal="ops-team"))
    answer = kb.ask(QUESTION)
    hp = str(home.settings.home)
    ops = _cli_json("audit", "log", "--principal", "ops-team", "--json", home=Path(hp))
    assert ops and all(e["type"] == "access" for e in ops)
    assert "troubleshooting-runbook.md" in ops[0]["payload"]["allowed"]
    assert ops[0]["payload"]["denied"] == []
    anon = _ledger(home).query_ledger(types=("access",))
    assert any("troubleshooting-runbook.md" in e.payload["denied"] for e in anon)
    future = _cli_json("audit", "log", "--since", "2999-01-01", "--json", home=Path(hp))
    assert future == []
    entry = _cli_json("feedback", answer.trace_id, "bad", "--note", "too short", home=Path(hp))
    assert entry["type"] == "feedback" and entry["payload"]["verdict"] == "bad"
    assert entry["payload"]["note"] == "too short"
    assert run_cli("feedback", "t_unknown", "good", home=Path(hp)).returncode != 0
    assert run_cli("feedback", answer.trace_id, "meh", home=Path(hp)).returncode != 0


def test_search_and_evidence_events(home: Home) -> None:
    kb = home.kb()
    n = _ledger(home).ledger_size()
    kb.search("retention", filters=SearchFilters(principal="ops-team"))
    kb.evidence("retention")
    types = [e.type for e in _ledger(home).iter_ledger()][n:]
    assert types[0] == "search" and "evidence" in types
    ev = _ledger(home).query_ledger(types=("evidence",))[-1]
    assert ev.payload["replay_id"].startswith("rp_") and ev.payload["fragments"]
