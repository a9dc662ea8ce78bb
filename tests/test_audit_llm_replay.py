"""Export and replay of answers written through an LLM route, in fresh processes, against
the real scripted chat-completions server: replay rebuilds the frozen payload and re-cites
the model's recorded sentences without a single new model call; tampering is reported at
the right stage; an answer saved before model output was recorded replays as partial."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.audit.bundle import export_bundle, replay
from citewise.kb import Home
from citewise.llm.models import Route, Target
from citewise.llm.routes import RouteStore
from tests.conftest import run_cli
from tests.llm_server import ScriptedLLM
from tests.test_llm import BORDERLINE, DOCS

QUESTION = "What is a widget?"


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedLLM]:
    s = ScriptedLLM(delay=1.5).start()
    yield s
    s.stop()


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.delenv("CITEWISE_AUDIT_KEY", raising=False)
    dst = tmp_path / "docs"
    dst.mkdir()
    for name, text in DOCS.items():
        (dst / name).write_text(text, "utf-8")
    return dst


def _cli_json(*args: str, home: Path, code: int = 0) -> Any:
    proc = run_cli(*args, home=home)
    assert proc.returncode == code, proc.stderr + proc.stdout
    return json.loads(proc.stdout)


def _write(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj), "utf-8")
    return path


@pytest.mark.subprocess
def test_llm_answer_replays_without_model_calls(
    tmp_path: Path, corpus: Path, server: ScriptedLLM
) -> None:
    h = tmp_path / "home"
    run_cli("add", str(corpus), home=h, check=True)
    run_cli("llm", "route", "add", "local", "--model", "m1", "--endpoint", server.url, home=h)
    run_cli("llm", "route", "activate", "local", home=h, check=True)
    server.requests.clear()
    answer = _cli_json("ask", QUESTION, "--llm", "local", "--json", home=h)
    assert answer["outcome"] == "answered" and answer["answer_source"] == "llm:local/m1"
    assert len(server.calls("generate")) == 1
    bundle_path = tmp_path / "bundle.json"
    run_cli("export", answer["trace_id"], "--out", str(bundle_path), home=h, check=True)
    bundle = json.loads(bundle_path.read_text("utf-8"))
    sentences = bundle["llm"]["output"]["sentences"]
    assert sentences and all(s["text"] and s["items"] for s in sentences)
    assert bundle["llm"]["payload"]["payload_sha256"] and bundle["llm"]["limits"]["max_items"]
    server.requests.clear()

    report = _cli_json("replay", str(bundle_path), "--json", home=h)
    assert report["status"] == "reproduced", report
    assert report["checked_stages"] == [
        "retrieval",
        "evidence",
        "sufficiency",
        "llm_payload",
        "answer",
    ]
    assert report["same_answer"] and report["replay_id"] == answer["replay_id"]
    assert report["model_calls"] == 0 and "no model was called" in report["message"]

    # A tampered model sentence: the payload still matches, the answer does not.
    tampered = copy.deepcopy(bundle)
    tampered["llm"]["output"]["sentences"][0]["text"] = "Widgets are made of solid gold."
    report = _cli_json(
        "replay", str(_write(tmp_path / "t.json", tampered)), "--json", home=h, code=1
    )
    assert report["status"] == "differs" and report["first_differing_stage"] == "answer"
    assert report["differing_stages"] == ["answer"]

    # A changed route limit: the frozen set cannot be rebuilt as recorded.
    limited = copy.deepcopy(bundle)
    limited["llm"]["limits"]["item_chars"] = 10
    report = _cli_json(
        "replay", str(_write(tmp_path / "l.json", limited)), "--json", home=h, code=1
    )
    assert report["first_differing_stage"] == "llm_payload"
    assert "refused" in report["details"]["llm_payload"]["got"]

    # Recorded evidence text that differs from the document the KB holds.
    edited = copy.deepcopy(bundle)
    edited["evidence_pack"]["direct_evidence"][0]["text"] += " Edited."
    report = _cli_json("replay", str(_write(tmp_path / "e.json", edited)), "--json", home=h, code=1)
    assert report["first_differing_stage"] == "evidence"

    # An answer saved before model output was recorded: partial, never reproduced.
    old = copy.deepcopy(bundle)
    del old["llm"]["output"]
    proc = run_cli("replay", str(_write(tmp_path / "old.json", old)), home=h)
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert "replay: partial" in proc.stdout and "output was not recorded" in proc.stdout
    report = _cli_json("replay", str(tmp_path / "old.json"), "--json", home=h, code=3)
    assert report["status"] == "partial" and report["unchecked_stages"] == ["answer"]
    assert report["checked_stages"][-1] == "llm_payload" and report["same_answer"] is None

    # A bundle exported before LLM records existed: only the first three stages.
    older = {k: v for k, v in bundle.items() if k not in ("llm", "llm_judge")}
    report = _cli_json("replay", str(_write(tmp_path / "o.json", older)), "--json", home=h, code=3)
    assert report["status"] == "partial"
    assert report["checked_stages"] == ["retrieval", "evidence", "sufficiency"]
    assert "only retrieval, evidence and sufficiency" in report["message"]

    # A changed document: replay re-asks at the saved revision (issue 38, pinned
    # revisions) and still calls no model.
    (corpus / "widgets.md").write_text("# Widgets\n\nA widget is now a red part.\n", "utf-8")
    run_cli("add", str(corpus), home=h, check=True)
    report = _cli_json("replay", str(bundle_path), "--json", home=h, code=0)
    assert report["status"] == "reproduced" and report["same_answer"], report
    assert report["pinned_revision"] == 1 and report["head_revision"] == 2
    assert report["model_calls"] == 0
    assert server.requests == []  # not one request of any kind during any replay


def test_judged_how_to_answer_replays_in_process(
    tmp_path: Path, corpus: Path, server: ScriptedLLM
) -> None:
    home = Home.open(tmp_path / "home")
    try:
        kb = home.kb()
        kb.add([corpus])
        store = RouteStore(home.settings.home)
        store.add(Route("r", (Target("m1", server.url, timeout=5.0),)))
        store.activate("r")
        reports = []
        for q in (BORDERLINE, "How do I install a widget?"):
            answer = kb.ask(q, llm="r")
            assert answer.trace["answer_source"] == "llm:r/m1", answer.answer
            bundle = json.loads(json.dumps(export_bundle(home, answer.trace_id)))
            server.requests.clear()
            reports.append((q, bundle, replay(home, bundle)))
            assert server.requests == []
        (_, judged, rep), (_, _, steps) = reports
        assert judged["llm_judge"]["reason"].startswith("llm_judge")
        assert rep["status"] == "reproduced", rep
        assert steps["status"] == "reproduced", steps
        # A bundle without the judge record: the verdict is read back from the reasons.
        del judged["llm_judge"]
        assert replay(home, judged)["status"] == "reproduced"
        assert server.requests == []
    finally:
        home.close()
