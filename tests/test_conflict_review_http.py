"""The conflict review queue over HTTP and the CLI (issue 38): detected -> resolved, the
resolution honoured by later answers, its end by ``until`` (a fixed clock), and the
``needs_review`` refusal, on a real server over a real home and through the real
``citewise`` command in a fresh process."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import httpx
import pytest

from citewise.governance import conflicts as queue
from citewise.server.auth import KeyStore
from tests._server import running_server
from tests.conftest import run_cli
from tests.test_conflict_review import WHEN, make_kb, set_policy

pytestmark = pytest.mark.usefixtures("dense_off")


def _client(url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=120, headers={"X-API-Key": key})


def _ask(c: httpx.Client) -> dict[str, object]:
    r = c.post("/kb/default/ask", json={"question": WHEN})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_http_conflict_detected_resolved_honoured_and_expired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = make_kb(tmp_path)
    home = kb.home.settings.home
    kb.home.close()
    keys = KeyStore(home)
    alice = keys.add("alice", "alice", ["*"], "editor")
    rita = keys.add("rita", "rita", ["*"], "reader")
    set_policy(kb, "publishers: [alice]\n")
    monkeypatch.setattr(queue, "today", lambda: date(2030, 5, 1))
    with running_server(home) as url, _client(url, alice) as a, _client(url, rita) as r:
        first = _ask(r)
        assert first["degradation"] == "conflict"
        listed = a.get("/kb/default/conflicts").json()
        (rec,) = listed["conflicts"]
        assert rec["state"] == "open" and listed["may_resolve"] is True
        assert {s["path"] for s in rec["sides"]} == {"report.txt", "guide.md"}

        refused = r.get("/kb/default/conflicts")
        assert refused.status_code == 403 and "editor" in refused.json()["error"]["message"]
        forbidden = r.post(f"/kb/default/conflicts/{rec['id']}/resolve", json={"governs": "a"})
        assert forbidden.status_code == 403
        bad = a.post(f"/kb/default/conflicts/{rec['id']}/resolve", json={"governs": "c"})
        assert bad.status_code == 400 and "a or b" in bad.json()["error"]["message"]
        missing = a.post("/kb/default/conflicts/k_0000000000000000/resolve", json={"governs": "a"})
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "CONFLICT_NOT_FOUND"

        done = a.post(
            f"/kb/default/conflicts/{rec['id']}/resolve",
            json={"governs": "report.txt", "until": "2030-05-31", "note": "the record"},
        )
        assert done.status_code == 200, done.text
        assert done.json()["state"] == "resolved"
        assert done.json()["resolution"]["resolver"] == "alice"

        honoured = _ask(r)
        assert honoured["degradation"] != "conflict"
        assert {c["path"] for c in honoured["citations"]} == {"report.txt"}  # type: ignore[index, union-attr]
        lines = honoured["display"]["lines"]  # type: ignore[index]
        assert any("report.txt governs over guide.md until 2030-05-31" in x for x in lines)

        monkeypatch.setattr(queue, "today", lambda: date(2030, 6, 1))
        assert _ask(r)["degradation"] == "conflict"
        assert a.get("/kb/default/conflicts").json()["conflicts"][0]["state"] == "expired"


def test_http_needs_review_refuses_until_resolved(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    home = kb.home.settings.home
    kb.home.close()
    admin = KeyStore(home).add("ada", "ada", ["*"], "admin")
    set_policy(kb, "conflicts: needs_review\n")
    with running_server(home) as url, _client(url, admin) as a:
        refused = _ask(a)
        assert refused["outcome"] == "insufficient_evidence"
        reasons = refused["sufficiency"]["reasons"]  # type: ignore[index]
        assert reasons[0].startswith("needs_review:")
        (rec,) = a.get("/kb/default/conflicts").json()["conflicts"]
        ok = a.post(f"/kb/default/conflicts/{rec['id']}/resolve", json={"governs": "guide.md"})
        assert ok.status_code == 200
        answered = _ask(a)
        assert answered["outcome"] == "answered" and "19 April 2024" in str(answered["answer"])


@pytest.mark.subprocess
def test_cli_conflicts_list_resolve_and_needs_review(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    home = kb.home.settings.home
    kb.home.close()
    set_policy(kb, "conflicts: needs_review\n")
    proc = run_cli("ask", WHEN, "--json", home=home)
    assert proc.returncode != 0  # a refusal's exit status
    asked = json.loads(proc.stdout)
    assert asked["outcome"] == "insufficient_evidence"
    assert asked["sufficiency"]["reasons"][0].startswith("needs_review")
    (rec,) = json.loads(run_cli("conflicts", "list", "--json", home=home, check=True).stdout)
    assert rec["state"] == "open"
    text = run_cli("conflicts", "list", home=home, check=True).stdout
    assert rec["id"] in text and "open" in text

    bad_day = run_cli(
        "conflicts", "resolve", rec["id"], "--governs", "a", "--until", "soon", home=home
    )
    assert bad_day.returncode == 2 and "YYYY-MM-DD" in bad_day.stderr
    unknown = run_cli("conflicts", "resolve", "k_0000000000000000", "--governs", "a", home=home)
    assert unknown.returncode == 3 and "CONFLICT_NOT_FOUND" in unknown.stderr
    set_policy(kb, "conflicts: needs_review\npublishers: [alice]\n")
    refused = run_cli("conflicts", "resolve", rec["id"], "--governs", "a", "--as", "bob", home=home)
    assert refused.returncode == 2 and "FORBIDDEN" in refused.stderr

    ok = run_cli(
        "conflicts",
        "resolve",
        rec["id"],
        "--governs",
        "report.txt",
        "--until",
        "2999-12-31",
        "--note",
        "the record",
        "--as",
        "alice",
        home=home,
        check=True,
    )
    assert "report.txt governs until 2999-12-31" in ok.stdout
    answered = json.loads(run_cli("ask", WHEN, "--json", home=home, check=True).stdout)
    assert answered["outcome"] == "answered" and "12 March 2024" in answered["answer"]
    assert {c["path"] for c in answered["citations"]} == {"report.txt"}
    (shown,) = json.loads(run_cli("conflicts", "list", "--json", home=home, check=True).stdout)
    assert shown["state"] == "resolved" and shown["resolution"]["resolver"] == "alice"
