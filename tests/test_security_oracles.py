"""Issue 13, item 4 (HTTP and store-level existence oracles) and item 9 (a deleted
document's history and revert over HTTP), over a real server on 127.0.0.1.

For bob, alice's restricted documents must look exactly like paths that never existed:
writing one, listing its versions after it was deleted, and writing over a deleted one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from citewise.server.auth import KeyStore
from tests._server import running_server

pytestmark = pytest.mark.usefixtures("dense_off")


SECRET = b"---\naccess: [alice]\n---\n# Vault\n\nThe vault code is ZEBRAQUARTZ.\n"
GONE = b"---\naccess: [alice]\n---\n# Old vault\n\nThe old vault code was MOSSFALCON here.\n"
PUBLIC = b"# Pumps\n\nRestart the pump before noon.\n"
MINE = b"# Bob notes\n\nBob keeps his notes here.\n"


def _files(name: str, data: bytes) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, data, "text/markdown"))]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, httpx.Client]]:
    home = tmp_path_factory.mktemp("oracles") / "home"
    store = KeyStore(home)
    keys = {who: store.add(who, who, ["*" if who == "admin" else "default"]) for who in (
        "alice", "bob", "admin")}  # fmt: skip
    with running_server(home) as url:
        c = {
            who: httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": k})
            for who, k in keys.items()
        }
        for name, data in (("secret.md", SECRET), ("gone.md", GONE), ("old.md", PUBLIC)):
            assert c["admin"].post("/kb/default/documents", files=_files(name, data)).is_success
        for who, name in (("alice", "gone.md"), ("admin", "old.md")):
            assert c[who].delete(f"/kb/default/documents/{name}").status_code == 200
        yield c
        for client in c.values():
            client.close()


def _same(a: httpx.Response, b: httpx.Response, a_path: str, b_path: str) -> None:
    """Two responses are identical once the path (and per-write counters) are swapped."""
    assert a.status_code == b.status_code, (a.text, b.text)
    ja, jb = a.json(), b.json()
    for j in (ja, jb):
        if isinstance(j, dict):
            j.pop("revision", None), j.pop("revision_hash", None)
    assert json.dumps(ja).replace(a_path, "P") == json.dumps(jb).replace(b_path, "P")


def _version_view(r: httpx.Response) -> list[dict[str, Any]]:
    keep = ("action", "is_head", "content_sha256", "size_bytes", "restored_from", "source")
    return [{k: v[k] for k in keep} for v in r.json()]


def test_writing_a_hidden_path_answers_as_for_a_new_path(env: dict[str, httpx.Client]) -> None:
    bob, alice = env["bob"], env["alice"]
    hidden = bob.post("/kb/default/documents", files=_files("secret.md", MINE))
    fresh = bob.post("/kb/default/documents", files=_files("fresh.md", MINE))
    _same(hidden, fresh, "secret.md", "fresh.md")
    assert hidden.status_code == 201 and hidden.json()["files"][0]["status"] == "added"
    v_hidden = bob.get("/kb/default/documents/secret.md/versions")
    v_fresh = bob.get("/kb/default/documents/fresh.md/versions")
    assert _version_view(v_hidden) == _version_view(v_fresh)
    assert "ZEBRAQUARTZ" not in hidden.text + v_hidden.text
    # alice's version is kept, still hers alone, and she can restore it.
    versions = alice.get("/kb/default/documents/secret.md/versions").json()
    assert [v["version_id"] for v in versions] == [2, 1]
    r = alice.post("/kb/default/documents/secret.md/revert", json={"version": 1})
    assert r.status_code == 200, r.text
    assert "ZEBRAQUARTZ" in alice.get("/citations/" + _first_node(alice, "secret.md")).text
    missing = bob.get("/kb/default/documents/never.md").json()
    got = bob.get("/kb/default/documents/secret.md").json()
    assert got == json.loads(json.dumps(missing).replace("never.md", "secret.md"))


def _first_node(c: httpx.Client, path: str) -> str:
    nodes = c.get(f"/kb/default/documents/{path}", params={"nodes": "true"}).json()["nodes"]
    node_id: str = next(n["id"] for n in nodes if n["kind"] != "document")
    return node_id


def test_versions_of_a_deleted_hidden_document_say_it_does_not_exist(
    env: dict[str, httpx.Client],
) -> None:
    bob = env["bob"]
    for method, suffix, body in (
        ("GET", "/versions", None),
        ("POST", "/revert", {"version": 1}),
        ("GET", "", None),
        ("DELETE", "", None),
    ):
        never = bob.request(method, f"/kb/default/documents/never.md{suffix}", json=body)
        gone = bob.request(method, f"/kb/default/documents/gone.md{suffix}", json=body)
        assert gone.status_code == never.status_code == 404, (suffix, gone.text)
        assert gone.json() == json.loads(never.text.replace("never.md", "gone.md")), suffix
        assert gone.json()["error"]["code"] == "DOC_NOT_FOUND"
    # alice (who may read it) sees the whole history, deletion included.
    history = env["alice"].get("/kb/default/documents/gone.md/versions").json()
    assert [v["action"] for v in history] == ["deleted", "added"]


def test_upload_over_a_deleted_hidden_path_exposes_nothing_old(
    env: dict[str, httpx.Client],
) -> None:
    bob, alice = env["bob"], env["alice"]
    old = alice.get("/kb/default/documents/gone.md/versions").json()[-1]
    secrets = [old["content_sha256"], old["created_at"], "MOSSFALCON"]
    r = bob.post("/kb/default/documents", files=_files("gone.md", MINE))
    assert r.status_code == 201 and r.json()["files"][0]["status"] == "added"
    seen = [
        r.text,
        bob.get("/kb/default/documents/gone.md").text,
        bob.get("/kb/default/documents/gone.md/versions").text,
        bob.get("/kb/default/documents").text,
    ]
    for text in seen:
        assert not [s for s in secrets if s in text], text
    mine = bob.get("/kb/default/documents/gone.md/versions").json()
    assert [(v["action"], v["size_bytes"]) for v in mine] == [("added", len(MINE))]
    assert old["size_bytes"] != len(MINE)
    # bob cannot restore (or learn about) alice's versions through revert either: revert
    # numbers are his own (his version 1 is his upload), and past them nothing exists.
    assert [v["version_id"] for v in mine] == [1]
    r = bob.post("/kb/default/documents/gone.md/revert", json={"version": 2})
    assert r.status_code == 404 and r.json()["error"]["code"] == "VERSION_NOT_FOUND"
    own = bob.post("/kb/default/documents/gone.md/revert", json={"version": 99})
    assert own.json() == json.loads(r.text.replace("version 2 ", "version 99 "))


def test_deleted_document_history_and_revert_over_http(env: dict[str, httpx.Client]) -> None:
    """As ``citewise versions`` and ``citewise revert`` do for a deleted document."""
    bob = env["bob"]
    r = bob.get("/kb/default/documents/old.md/versions")
    assert r.status_code == 200, r.text
    history = r.json()
    assert [(v["version_id"], v["action"], v["is_head"]) for v in history] == [
        (2, "deleted", True),
        (1, "added", False),
    ]
    assert bob.get("/kb/default/documents/old.md").status_code == 404
    deleted = bob.post("/kb/default/documents/old.md/revert", json={"version": 2})
    assert deleted.status_code == 404 and deleted.json()["error"]["code"] == "VERSION_NOT_FOUND"
    back = bob.post("/kb/default/documents/old.md/revert", json={"version": 1})
    assert back.status_code == 200, back.text
    assert back.json()["action"] == "reverted"
    doc = bob.get("/kb/default/documents/old.md").json()
    assert doc["size_bytes"] == len(PUBLIC) and doc["version_id"] == 3


def test_store_keeps_every_version_for_its_readers(env: dict[str, httpx.Client]) -> None:
    """The hidden versions were never lost: admin (no principal) and alice see their own."""
    alice = env["alice"].get("/kb/default/documents/gone.md/versions").json()
    assert [(v["version_id"], v["action"]) for v in alice] == [
        (3, "added"),
        (2, "deleted"),
        (1, "added"),
    ]
    # secret.md: alice's v1, bob's public v2, alice's revert v3: admin sees bob's version
    # as its 1, and alice's revert as the deletion that made the document leave its view.
    admin = env["admin"].get("/kb/default/documents/secret.md/versions").json()
    assert [(v["version_id"], v["action"], v["is_head"]) for v in admin] == [
        (2, "deleted", True),
        (1, "added", False),
    ]
