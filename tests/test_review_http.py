"""The review queue over HTTP and the CLI (issue 38): each state change (candidate ->
published, candidate -> rejected, quarantine -> released) on a real server over a real
home, and through the real ``citewise`` command in a fresh process."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from citewise.server.auth import KeyStore
from tests._server import key_client as _client
from tests._server import lexical_finds, running_server
from tests._server import upload_markdown as _upload
from tests.conftest import run_cli
from tests.test_review import EXTRA, GUIDE, GUIDE_V2, TOKEN, set_policy, write

pytestmark = pytest.mark.usefixtures("dense_off")

POLICY = "publication: review\npublishers: [alice]\nquarantine: {max_bytes: 400}\n"
BIG = EXTRA + "Padding for the size rule. " * 20


def _found(c: httpx.Client) -> bool:
    return lexical_finds(c, TOKEN)


def test_http_candidate_published_rejected_and_quarantine_released(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = KeyStore(home)
    alice = keys.add("alice", "alice", ["*"], "editor")
    bob = keys.add("bob", "bob", ["*"], "editor")
    rita = keys.add("rita", "rita", ["*"], "reader")
    with running_server(home) as url, _client(url, alice) as a, _client(url, bob) as b:
        assert _upload(a, {"guide.md": GUIDE}).status_code == 201  # open: published
        set_policy(home, POLICY)
        up = _upload(b, {"guide.md": GUIDE_V2, "big.md": BIG}).json()
        codes = {f["path"]: f["code"] for f in up["files"]}
        assert codes == {"guide.md": "HELD_FOR_REVIEW", "big.md": "QUARANTINED"}
        assert up["revision"] is None and not _found(a)

        with _client(url, rita) as r:
            refused = r.get("/kb/default/review")
            assert (
                refused.status_code == 403 and "editor role" in refused.json()["error"]["message"]
            )
        queue = a.get("/kb/default/review").json()
        assert queue["policy"]["publication"] == "review" and queue["may_decide"] is True
        assert b.get("/kb/default/review").json()["may_decide"] is False
        held = {h["kind"]: h for h in queue["held"]}
        cid, qid = held["candidate"]["id"], held["quarantine"]["id"]
        assert held["candidate"]["submitted_by"] == "bob"
        assert held["quarantine"]["reasons"][0]["kind"] == "max_bytes"

        shown = a.get(f"/kb/default/review/{cid}").json()
        (f,) = shown["files"]
        assert f["change"] == "changed" and f["provenance"]["origin"] == "upload"
        assert any(line.startswith("+") and TOKEN in line for line in f["diff"])

        no = b.post(f"/kb/default/review/{cid}/approve")
        assert no.status_code == 403 and "publishers (alice)" in no.json()["error"]["message"]
        ok = a.post(f"/kb/default/review/{cid}/approve").json()
        assert ok["revision"] == 2 and ok["files"] == [
            {"path": "guide.md", "status": "changed", "code": ""}
        ]
        assert _found(a)
        assert a.post(f"/kb/default/review/{cid}/approve").status_code == 404

        assert not any(
            d["path"] == "big.md" for d in a.get("/kb/default/documents").json()["documents"]
        )
        rel = a.post(f"/kb/default/review/{qid}/release").json()
        assert rel["files"][0]["path"] == "big.md" and rel["revision"] == 3

        _upload(b, {"vault.md": EXTRA + "Another line.\n"})
        (again,) = a.get("/kb/default/review").json()["held"]
        gone = a.post(f"/kb/default/review/{again['id']}/reject", json={"reason": "dup"})
        assert gone.json()["rejected"] == again["id"]
        assert a.get("/kb/default/review").json()["held"] == []


@pytest.mark.subprocess
def test_cli_review_list_show_approve_reject_release(tmp_path: Path) -> None:
    home = tmp_path / "home"
    docs = write(tmp_path / "docs", {"guide.md": GUIDE})
    run_cli("add", str(docs), home=home, check=True)
    set_policy(home, POLICY)
    shown = json.loads(run_cli("kb", "show", "default", "--json", home=home, check=True).stdout)
    assert shown["policy"]["publishers"] == ["alice"] and shown["name"] == "default"
    text = run_cli("kb", "show", "default", home=home, check=True).stdout
    assert "policy publication: review" in text and "policy redaction: off" in text
    assert "not enforced" not in text  # every key is enforced since issue 38's last round

    write(docs, {"guide.md": GUIDE_V2, "big.md": BIG})
    added = run_cli("add", str(docs), home=home)
    assert added.returncode == 0, added.stderr
    assert "HELD_FOR_REVIEW" in added.stderr and "QUARANTINED" in added.stderr
    assert "no new revision" in added.stdout
    queue = json.loads(run_cli("review", "list", "--json", home=home, check=True).stdout)
    held = {h["kind"]: h["id"] for h in queue}
    diff = run_cli("review", "show", held["candidate"], home=home, check=True).stdout
    assert "== changed guide.md" in diff and f"({TOKEN} schedule)" in diff

    refused = run_cli("review", "approve", held["candidate"], "--as", "bob", home=home)
    assert refused.returncode == 2 and "FORBIDDEN" in refused.stderr
    ok = run_cli("review", "approve", held["candidate"], "--as", "alice", home=home, check=True)
    assert "revision 2" in ok.stdout
    found = run_cli("search", TOKEN, "--mode", "lexical", "--json", home=home, check=True)
    assert TOKEN in found.stdout

    run_cli("review", "release", "big.md", "--as", "alice", home=home, check=True)
    write(docs, {"late.md": EXTRA + "Late.\n"})
    run_cli("add", str(docs), home=home, check=True)
    (late,) = json.loads(run_cli("review", "list", "--json", home=home, check=True).stdout)
    run_cli(
        "review", "reject", late["id"], "--as", "alice", "--reason", "stale", home=home, check=True
    )
    assert json.loads(run_cli("review", "list", "--json", home=home, check=True).stdout) == []
    missing = run_cli("review", "show", "c_0000", home=home)
    assert missing.returncode == 3 and "CANDIDATE_NOT_FOUND" in missing.stderr
    set_policy(home, "publication: draft\n")
    bad = run_cli("review", "list", home=home)
    assert bad.returncode == 0  # listing reads no policy
    bad = run_cli("kb", "show", "default", home=home)
    assert bad.returncode == 2 and "BAD_POLICY" in bad.stderr and "open, review" in bad.stderr


@pytest.mark.subprocess
def test_mcp_add_source_is_held_and_never_recalled(tmp_path: Path) -> None:
    """MCP's add_source goes through the same gate (the facade's upload)."""
    from typing import Any

    from tests.test_mcp import _data, _run

    home = tmp_path / "home"
    run_cli("kb", "list", home=home, check=True)  # makes the home and its default base
    set_policy(home, POLICY)

    async def body(s: Any) -> dict[str, Any]:
        added = _data(await s.call_tool("add_source", {"name": "vault.md", "content": EXTRA}))
        found = _data(await s.call_tool("recall_knowledge", {"query": TOKEN, "mode": "lexical"}))
        return {"added": added, "found": found}

    out = _run(home, None, body)
    assert [f["code"] for f in out["added"]["files"]] == ["HELD_FOR_REVIEW"]
    assert not any(TOKEN in h["excerpt"] for h in out["found"]["hits"])
    (held,) = json.loads(run_cli("review", "list", "--json", home=home, check=True).stdout)
    assert held["origin"] == "upload" and held["files"][0]["path"] == "vault.md"
