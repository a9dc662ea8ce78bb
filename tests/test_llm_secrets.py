"""Keys come from the environment or <home>/secrets.yaml (0600) and never appear in logs,
traces, exports, stored files, CLI output or error messages; the route CLI end to end."""

from __future__ import annotations

import json
import logging
import os
import secrets as pysecrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.core.secrets import resolve_key, write_secret
from citewise.errors import CitewiseError, SecretsError
from citewise.kb import Home
from citewise.llm.models import Route, Target
from citewise.llm.routes import RouteStore
from tests.conftest import run_cli
from tests.llm_server import ScriptedLLM

ENV = "CITEWISE_TEST_LLM_KEY"


@pytest.fixture
def server() -> Iterator[ScriptedLLM]:
    s = ScriptedLLM(delay=1.0).start()
    yield s
    s.stop()


def _corpus(tmp: Path) -> Path:
    d = tmp / "corpus"
    d.mkdir()
    (d / "a.md").write_text(
        "# Widgets\n\nA widget is a small blue part that holds the frame together.\n", "utf-8"
    )
    return d


@pytest.mark.subprocess
def test_key_never_leaves_the_request(
    tmp_path: Path,
    server: ScriptedLLM,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "sk-test-" + pysecrets.token_hex(16)
    monkeypatch.setenv(ENV, key)
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    caplog.set_level(logging.DEBUG)
    home_dir = tmp_path / "home"
    seen: list[str] = []
    with Home.open(home_dir) as h:
        assert h.kb().add([_corpus(tmp_path)]).ok
        store = RouteStore(h.settings.home)
        targets = (
            Target("m1", server.url, timeout=0.5, api_key_env=ENV),
            Target("m2", server.url, timeout=0.5, api_key_env=ENV),
        )
        store.add(Route("sec", targets))
        store.activate("sec")
        kb = h.kb()
        answers = [kb.ask("What is a widget?", llm="sec")]
        server.queue("m1", "timeout")
        server.queue("m2", "503")
        answers.append(kb.ask("What is a widget?", llm="sec"))
        server.queue("m1", "401")
        answers.append(kb.ask("What is a widget?", llm="sec"))
        assert [a.outcome for a in answers] == [
            "answered",
            "generation_unavailable",
            "generation_unavailable",
        ]
        for a in answers:
            seen.append(json.dumps(a.to_json(with_trace=True), ensure_ascii=False))
            seen.append(a.answer)
        # Error messages: a dead target and a route whose key variable is unset.
        store.add(Route("dead", (Target("m1", "http://127.0.0.1:9/v1", 0.3, api_key_env=ENV),)))
        with pytest.raises(CitewiseError) as err:
            store.activate("dead")
        seen.append(str(err.value))
        seen.append(json.dumps(store.status("dead").check))
    # The key was really sent (so the test would notice a leak of it).
    assert {r["authorization"] for r in server.requests} == {f"Bearer {key}"}
    # CLI: ask with the route, JSON with the trace, and the route list.
    for args in (
        ("ask", "What is a widget?", "--llm", "sec", "--json", "--trace"),
        ("ask", "What is a widget?", "--llm", "dead"),
        ("llm", "route", "list", "--json"),
        ("llm", "route", "activate", "dead"),
    ):
        proc = run_cli(*args, home=home_dir)
        seen += [proc.stdout, proc.stderr]
    cli_answer = json.loads(
        run_cli(*("ask", "What is a widget?", "--llm", "sec", "--json"), home=home_dir).stdout
    )
    assert cli_answer["answer_source"] == "llm:sec/m1"
    seen.append(caplog.text)
    for text in seen:
        assert key not in text
    assert any("llm attempt" in r.getMessage() for r in caplog.records)
    # Nothing stored in the home holds the key (database, indexes, routes).
    for path in home_dir.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path


def test_secrets_file_must_be_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    home = tmp_path / "home"
    key = "sk-file-" + pysecrets.token_hex(8)
    path = write_secret(home, ENV, key)
    assert (os.stat(path).st_mode & 0o777) == 0o600
    assert resolve_key(ENV, home) == key
    monkeypatch.setenv(ENV, "from-env-wins")
    assert resolve_key(ENV, home) == "from-env-wins"
    monkeypatch.delenv(ENV)
    path.chmod(0o644)
    with pytest.raises(SecretsError) as err:
        resolve_key(ENV, home)
    assert "chmod 600" in str(err.value) and key not in str(err.value)
    path.chmod(0o600)
    path.write_text(f"{ENV}: [unclosed {key}", "utf-8")
    with pytest.raises(SecretsError) as err2:
        resolve_key(ENV, home)
    assert key not in str(err2.value)


@pytest.mark.subprocess
def test_route_cli_add_list_activate_remove(tmp_path: Path, server: ScriptedLLM) -> None:
    home = tmp_path / "home"
    add = run_cli(
        "llm", "route", "add", "local", "--model", "m1", "--endpoint", server.url,
        "--fallback", f"model=m2,endpoint={server.url},timeout=3",
        "--api-key-env", "SOME_KEY_VAR", home=home,
    )  # fmt: skip
    assert add.returncode == 0, add.stderr
    assert "draft" in add.stdout
    listed = json.loads(run_cli("llm", "route", "list", "--json", home=home).stdout)
    assert listed[0]["state"] == "draft"
    assert [t["model"] for t in listed[0]["targets"]] == ["m1", "m2"]
    assert listed[0]["targets"][1]["timeout"] == 3.0
    assert listed[0]["targets"][1]["api_key_env"] == "SOME_KEY_VAR"
    assert "SOME_KEY_VAR" in (home / "llm_routes.yaml").read_text("utf-8")
    assert (os.stat(home / "llm_routes.yaml").st_mode & 0o777) == 0o600
    # The key variable is unset: activation fails and says which variable.
    bad = run_cli("llm", "route", "activate", "local", home=home)
    assert bad.returncode != 0 and "SOME_KEY_VAR is not set" in bad.stderr
    refused = run_cli("ask", "anything?", "--llm", "local", home=home)
    assert refused.returncode == 4 and "never activated" in refused.stderr
    run_cli(
        "llm", "route", "add", "local", "--model", "m1", "--endpoint", server.url, home=home,
        check=True,
    )  # fmt: skip
    ok = run_cli("llm", "route", "activate", "local", home=home)
    assert ok.returncode == 0, ok.stderr
    assert (
        json.loads(run_cli("llm", "route", "list", "--json", home=home).stdout)[0]["state"]
        == "active"
    )
    too_many = run_cli(
        "llm", "route", "add", "x", "--model", "m", "--endpoint", server.url,
        *[a for i in range(4) for a in ("--fallback", f"model=f{i},endpoint={server.url}")],
        home=home,
    )  # fmt: skip
    assert too_many.returncode == 2 and "at most 3 fallbacks" in too_many.stderr
    assert run_cli("llm", "route", "remove", "local", home=home).returncode == 0
    assert json.loads(run_cli("llm", "route", "list", "--json", home=home).stdout) == []
