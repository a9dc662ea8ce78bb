"""API keys and the cross-principal matrix over a real server: nothing leaks.

alice may read secret.md, bob may read bobdoc.md, admin (all bases) reads neither; public.md
links to both, so graph neighbors, evidence and answers are all chances to leak.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from citewise import installed_version
from tests._server import running_server
from tests.conftest import run_cli

# CLI subprocesses in these tests run without the dense route (for speed)
pytestmark = [pytest.mark.subprocess, pytest.mark.usefixtures("dense_off")]


PUBLIC = b"""# Key rotation

Operators rotate signing keys every quarter. The vault procedure is described in
[the vault notes](secret.md) and [the pelican notes](bobdoc.md).
"""
SECRET = b"""---
access: [alice]
---
# Vault notes

The vault ZEBRAQUARTZ rotates signing keys hourly. See [rotation](public.md).
"""
BOBDOC = b"""---
access: [bob]
---
# Pelican notes

The pelican PELICANMOSS procedure rotates signing keys daily.
"""
CONTRACT = b"# Contract\n\nThe OTTERFLINT contract renews signing keys yearly.\n"
SECRETS = {"alice": "ZEBRAQUARTZ", "bob": "PELICANMOSS"}
QUESTIONS = ("How often are signing keys rotated?", "vault procedure rotates signing keys")


def _add_key(home: Path, name: str, kbs: str) -> str:
    proc = run_cli("keys", "add", name, "--principal", name, "--kbs", kbs, home=home, check=True)
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    home = tmp_path_factory.mktemp("auth") / "home"
    keys = {
        "alice": _add_key(home, "alice", "default,legal"),
        "bob": _add_key(home, "bob", "default"),
        "admin": _add_key(home, "admin", "*"),
    }
    with running_server(home) as url:
        clients = {
            name: httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {k}"})
            for name, k in keys.items()
        }
        admin = clients["admin"]
        assert admin.post("/kb", json={"name": "legal"}).status_code == 201
        files = [
            ("files", (n, d, "text/markdown"))
            for n, d in (("public.md", PUBLIC), ("secret.md", SECRET), ("bobdoc.md", BOBDOC))
        ]
        assert admin.post("/kb/default/documents", files=files).status_code == 201
        r = admin.post("/kb/legal/documents", files=[("files", ("c.md", CONTRACT, "text/plain"))])
        assert r.status_code == 201
        yield {"url": url, "home": home, "keys": keys, "c": clients}
        for c in clients.values():
            c.close()


def _leaks(text: str, reader: str) -> list[str]:
    """Secrets ``reader`` must not see in ``text``: marker words and path fields.

    public.md links to the hidden files by name, so the bare names are public text; a
    hidden document leaks when a field *is* its path.
    """
    out = [s for who, s in SECRETS.items() if who != reader and s in text]
    if reader not in ("alice", "admin") and "OTTERFLINT" in text:
        out.append("OTTERFLINT")
    for path, who in (("secret.md", "alice"), ("bobdoc.md", "bob")):
        if who != reader and re.search(rf'"\w*path":"{re.escape(path)}', text):
            out.append(path)
    return out


def test_keys_are_stored_hashed(env: dict[str, Any]) -> None:
    path = env["home"] / "keys.yaml"
    text = path.read_text()
    for token in env["keys"].values():
        assert token.startswith("cw_") and token not in text
    data = yaml.safe_load(text)
    assert [k["name"] for k in data["keys"]] == ["alice", "bob", "admin"]
    assert all(len(k["sha256"]) == 64 for k in data["keys"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    listed = run_cli("keys", "list", "--json", home=env["home"], check=True).stdout
    assert all(t not in listed for t in env["keys"].values()) and "bob" in listed


def test_missing_or_bad_key_is_401(env: dict[str, Any]) -> None:
    url = env["url"]
    health = httpx.get(url + "/health").json()
    assert health == {"status": "ok", "auth": "api_keys", "version": installed_version()}
    for headers in ({}, {"Authorization": "Bearer cw_wrong"}, {"X-API-Key": "nope"}):
        r = httpx.get(url + "/kb", headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "UNAUTHORIZED"
    ok = httpx.get(url + "/kb", headers={"X-API-Key": env["keys"]["bob"]})
    assert ok.status_code == 200


def test_kb_visibility_and_counts(env: dict[str, Any]) -> None:
    c = env["c"]
    expect = {
        "alice": {"default": 2, "legal": 1},
        "bob": {"default": 2},
        "admin": {"default": 1, "legal": 1},
    }
    for who, want in expect.items():
        got = {k["name"]: k["document_count"] for k in c[who].get("/kb").json()}
        assert got == want, who
        info = c[who].get("/kb/default").json()
        assert info["stats"]["documents"] == want["default"]
        assert c[who].get("/kb/default/documents").json()["total"] == want["default"]
        models = c[who].get("/health/models").json()["models"]
        assert {m["kb"] for m in models} == set(want)
    r = c["bob"].get("/kb/legal")
    assert r.status_code == 404 and r.json()["error"]["code"] == "BASE_NOT_FOUND"
    nope = c["bob"].get("/kb/nonexistent").json()["error"]["message"]
    assert r.json()["error"]["message"] == nope.replace("nonexistent", "legal")
    for method, path, body in (
        ("GET", "/kb/legal/documents", None),
        ("POST", "/kb/legal/search", {"query": "contract"}),
        ("POST", "/kb/legal/evidence", {"query": "contract"}),
        ("POST", "/kb/legal/ask", {"question": "When does the contract renew?"}),
        ("GET", "/kb/legal/graph/c.md", None),
        ("DELETE", "/kb/legal", None),
    ):
        r = c["bob"].request(method, path, json=body)
        assert r.status_code == 404 and r.json()["error"]["code"] == "BASE_NOT_FOUND", path


def test_admin_operations_need_all_bases(env: dict[str, Any]) -> None:
    c = env["c"]
    r = c["bob"].post("/kb", json={"name": "mine"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "FORBIDDEN"
    r = c["bob"].delete("/kb/default")
    assert r.status_code == 403 and r.json()["error"]["code"] == "FORBIDDEN"
    r = c["bob"].patch("/kb/default", json={"description": "x"})
    assert r.status_code == 403


@pytest.mark.parametrize("reader", ["alice", "bob", "admin"])
def test_no_leak_through_search_evidence_ask(env: dict[str, Any], reader: str) -> None:
    c = env["c"][reader]
    for q in QUESTIONS:
        for path, body in (
            ("/kb/default/search", {"query": q, "top_k": 20}),
            ("/kb/default/evidence", {"query": q, "profile": "deep"}),
            ("/kb/default/ask", {"question": q, "trace": True}),
        ):
            r = c.post(path, json=body)
            assert r.status_code == 200, r.text
            assert _leaks(r.text, reader) == [], (reader, path)
    # The reader's own document is reachable (the filter is not simply "hide everything").
    if reader in SECRETS:
        own = SECRETS[reader]
        r = c.post("/kb/default/search", json={"query": f"{own} signing keys"})
        assert any(own in h["excerpt"] for h in r.json()["hits"])
        # ...and the leak detector would have caught it in anyone else's response.
        assert "secret.md" in _leaks(r.text, "bob") or "bobdoc.md" in _leaks(r.text, "alice")


@pytest.mark.parametrize("reader", ["alice", "bob", "admin"])
def test_no_leak_through_documents_citations_graph(env: dict[str, Any], reader: str) -> None:
    c, alice = env["c"][reader], env["c"]["alice"]
    listed = c.get("/kb/default/documents").text
    assert _leaks(listed, reader) == []
    hidden = [p for p, who in (("secret.md", "alice"), ("bobdoc.md", "bob")) if who != reader]
    for p in hidden:
        missing = c.get("/kb/default/documents/never.md").json()["error"]
        for method, path, body in (
            ("GET", f"/kb/default/documents/{p}", None),
            ("GET", f"/kb/default/documents/{p}/versions", None),
            ("POST", f"/kb/default/documents/{p}/revert", {"version": 1}),
            ("DELETE", f"/kb/default/documents/{p}", None),
        ):
            r = c.request(method, path, json=body)
            assert r.status_code == 404, (reader, method, path)
            err = r.json()["error"]
            assert err == {**missing, "message": missing["message"].replace("never.md", p)}
        r = c.get(f"/kb/default/graph/{p}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "NODE_NOT_FOUND"
    # Citations into the secret document resolve for alice only.
    hits = alice.post("/kb/default/search", json={"query": "ZEBRAQUARTZ vault"}).json()["hits"]
    cid = next(h["citation_id"] for h in hits if h["path"] == "secret.md")
    r = c.get(f"/citations/{cid}")
    if reader == "alice":
        assert r.status_code == 200 and "ZEBRAQUARTZ" in r.json()["text"]
    else:
        assert r.status_code == 404 and r.json()["error"]["code"] == "CITATION_NOT_FOUND"
        assert _leaks(r.text, reader) == []
    # Graph neighbors of the public document: only readable documents appear.
    g = c.get("/kb/default/graph/public.md")
    assert g.status_code == 200
    assert _leaks(g.text, reader) == []
    if reader == "alice":
        assert "secret.md" in {e["neighbor"]["path"] for e in g.json()["edges"]}


def test_upload_to_hidden_path_is_a_new_path_and_keeps_history(env: dict[str, Any]) -> None:
    """bob cannot tell secret.md exists by writing it (the reply is that of a new path);
    alice's version stays in the history, readable and revertible by her only."""
    bob, alice = env["c"]["bob"], env["c"]["alice"]
    r = bob.post(
        "/kb/default/documents", files=[("files", ("secret.md", b"# mine\n", "text/plain"))]
    )
    assert r.status_code == 201 and r.json()["files"][0]["status"] == "added", r.text
    mine = bob.get("/kb/default/documents/secret.md/versions").json()
    assert [v["action"] for v in mine] == ["added"] and "ZEBRAQUARTZ" not in r.text
    history = alice.get("/kb/default/documents/secret.md/versions").json()
    assert [v["version_id"] for v in history] == [2, 1]
    assert alice.post("/kb/default/documents/secret.md/revert", json={"version": 1}).is_success
    text = alice.get("/kb/default/documents/secret.md").json()
    assert text["metadata"]["access"] == ["alice"]
    assert bob.get("/kb/default/documents/secret.md").status_code == 404
