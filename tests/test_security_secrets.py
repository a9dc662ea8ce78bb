"""Issue 13, item 7: no secret in anything stored, printed or exported, even when the model
echoes the request's Authorization header, and when the endpoint URL carries
``user:password@`` credentials. A real (scripted) LLM HTTP server on 127.0.0.1 echoes what
it was sent; answers go through the CLI, are saved, exported and listed."""

from __future__ import annotations

import base64
import json
import secrets as pysecrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.core.secrets import MASK
from tests.conftest import run_cli
from tests.llm_server import ScriptedLLM

ENV = "CITEWISE_TEST_ECHO_KEY"
DOC = "# Widgets\n\nA widget is a small blue part that holds the frame together.\n"
QUESTION = "What is a widget?"


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    s = ScriptedLLM(default="echo_auth", delay=1.0).start()
    yield s
    s.stop()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text(DOC, "utf-8")
    h = tmp_path / "home"
    run_cli("add", str(corpus), home=h, check=True)
    return h


def _ask_and_export(home: Path, route: str) -> list[str]:
    """Everything a user can see of one answer: CLI JSON with trace, the export bundle."""
    proc = run_cli("ask", QUESTION, "--llm", route, "--json", "--trace", home=home)
    answer = json.loads(proc.stdout)  # exit 3 when no sentence passed review: saved anyway
    assert answer["answer_source"] == f"llm:{route}/m1"
    bundle = run_cli("export", answer["trace_id"], home=home, check=True)
    return [proc.stdout, proc.stderr, bundle.stdout, bundle.stderr]


def _stored(home: Path, skip: tuple[str, ...] = ()) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in home.rglob("*") if p.is_file() and p.name not in skip]


@pytest.mark.subprocess
def test_echoed_api_key_is_masked_in_answer_trace_row_and_export(
    home: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-echo-" + pysecrets.token_hex(16)
    monkeypatch.setenv(ENV, key)
    run_cli(
        "llm", "route", "add", "echo", "--model", "m1", "--endpoint", llm.url,
        "--api-key-env", ENV, home=home, check=True,
    )  # fmt: skip
    run_cli("llm", "route", "activate", "echo", home=home, check=True)
    seen = _ask_and_export(home, "echo")
    # The model really was sent the key and echoed it (so a leak would show) ...
    assert {r["authorization"] for r in llm.calls()} == {f"Bearer {key}"}
    assert f"Authorization: Bearer {MASK}" in seen[0]
    # ... and it is nowhere: CLI output, the saved answer row (database), the export.
    for text in seen:
        assert key not in text
    for path, data in _stored(home):
        assert key.encode() not in data, path


@pytest.mark.subprocess
def test_endpoint_credentials_never_shown_traced_or_exported(home: Path, llm: ScriptedLLM) -> None:
    user, password = "citeuser", "pw-" + pysecrets.token_hex(12)
    endpoint = llm.url.replace("http://", f"http://{user}:{password}@")
    basic = base64.b64encode(f"{user}:{password}".encode()).decode()
    run_cli(
        "llm", "route", "add", "cred", "--model", "m1", "--endpoint", endpoint,
        home=home, check=True,
    )  # fmt: skip
    activated = run_cli("llm", "route", "activate", "cred", home=home, check=True)
    seen = [activated.stdout, activated.stderr]
    for args in (("llm", "route", "list"), ("llm", "route", "list", "--json")):
        proc = run_cli(*args, home=home, check=True)
        seen += [proc.stdout, proc.stderr]
    assert "127.0.0.1" in seen[2] and f"{MASK}@127.0.0.1" in seen[2]
    seen += _ask_and_export(home, "cred")
    # The client did authenticate with them, and the model echoed the Basic token.
    assert {r["authorization"] for r in llm.calls()} == {f"Basic {basic}"}
    assert f"Authorization: Basic {MASK}" in seen[6]
    # A failing target's error names the endpoint without its credentials.
    dead = f"http://{user}:{password}@127.0.0.1:9/v1"
    run_cli("llm", "route", "add", "dead", "--model", "m1", "--endpoint", dead, home=home)
    failed = run_cli("llm", "route", "activate", "dead", home=home)
    assert failed.returncode != 0 and "127.0.0.1:9" in failed.stderr
    seen += [failed.stdout, failed.stderr]
    for text in seen:
        assert password not in text and basic not in text
    # Only the route file itself (mode 0600, never exported) holds the URL as written.
    for path, data in _stored(home, skip=("llm_routes.yaml",)):
        assert password.encode() not in data and basic.encode() not in data, path


def test_url_credential_helpers() -> None:
    from citewise.core.secrets import public_url, url_secrets

    url = "https://me:p%40ss@llm.example:8443/v1"
    assert public_url(url) == f"https://{MASK}@llm.example:8443/v1"
    assert public_url("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434/v1"
    found = url_secrets(url)
    assert {"me:p%40ss", "me:p@ss", "p%40ss", "p@ss"} <= set(found)
    assert base64.b64encode(b"me:p@ss").decode() in found
    assert url_secrets("http://tokenonly@h/v1")[-1] == "tokenonly"
    assert url_secrets("http://h/v1") == []
