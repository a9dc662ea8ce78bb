"""Issue 13: version numbers, ``is_head`` and identical-bytes uploads as one principal sees
them (facade/history.py): versions it may not read must leave no trace, over a real
server on 127.0.0.1 and in the pure numbering function."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.core.stored import IngestAction, VersionInfo
from citewise.facade.history import seen_history
from citewise.server.auth import KeyStore
from tests._server import running_server
from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("dense_off")


def _v(no: int, action: IngestAction, restored_from: int | None = None) -> VersionInfo:
    return VersionInfo(
        no, "d1", "p.md", f"sha{no}", 10, action, no, f"t{no}", False, "", restored_from
    )


def _shape(versions: list[VersionInfo], readable: list[bool]) -> list[tuple[Any, ...]]:
    seen = seen_history(versions, readable)
    return [(e.version_id, e.action, e.is_head, e.restored_from) for e in seen.entries]


def test_a_principal_reading_everything_sees_the_store_history_unchanged() -> None:
    vs = [_v(1, "added"), _v(2, "changed"), _v(3, "deleted"), _v(4, "reverted", 2)]
    vs[-1] = replace(vs[-1], is_head=True)
    seen = seen_history(vs, [True] * 4)
    assert list(seen.entries) == vs
    assert seen.store_ids == (1, 2, 3, 4)


def test_hidden_versions_before_the_first_readable_one_are_not_counted() -> None:
    vs = [_v(1, "added"), _v(2, "changed"), _v(3, "changed"), _v(4, "reverted", 1)]
    seen = seen_history(vs, [False, False, True, True])
    # version 4 restored hidden version 1: to this principal it is a plain change
    assert _shape(vs, [False, False, True, True]) == [
        (1, "added", False, None),
        (2, "changed", True, None),
    ]
    assert seen.store_id(1) == 3 and seen.number(4) == 2 and seen.number(1) is None


def test_a_hidden_head_reads_as_a_deletion_that_is_the_head() -> None:
    vs = [_v(1, "added"), _v(2, "changed"), _v(3, "changed"), _v(4, "deleted"), _v(5, "added")]
    readable = [True, False, False, False, True]
    assert _shape(vs, readable) == [
        (1, "added", False, None),
        (2, "deleted", False, None),  # stands for hidden versions 2-4
        (3, "added", True, None),
    ]
    gone = seen_history(vs, readable).entries[1]
    assert (gone.content_sha256, gone.size_bytes, gone.revision) == ("", 0, 2)
    assert _shape(vs[:3], readable[:3])[-1] == (2, "deleted", True, None)


SECRET = b"---\naccess: [alice]\n---\n# Vault\n\nThe vault code is ZEBRAQUARTZ.\n"
PUBLIC = b"# Shift\n\nThe shift starts at six.\n"
PUBLIC2 = b"# Shift\n\nThe shift starts at seven.\n"
HIDDEN_EDIT = b"---\naccess: [alice]\n---\n# Shift\n\nThe shift starts at five (staff only).\n"


def _files(name: str, data: bytes) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, data, "text/markdown"))]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, httpx.Client]]:
    home = tmp_path_factory.mktemp("versions") / "home"
    store = KeyStore(home)
    keys = {
        w: store.add(w, w, ["*" if w == "admin" else "default"]) for w in ("bob", "alice", "admin")
    }
    with running_server(home) as url:
        c = {
            who: httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": k})
            for who, k in keys.items()
        }
        admin = c["admin"]
        for name, data in (
            ("shift.md", PUBLIC),  # public, then replaced by a version bob may not read
            ("shift.md", HIDDEN_EDIT),
            ("gone.md", PUBLIC),  # public, then deleted
            ("later.md", HIDDEN_EDIT),  # hidden, then public twice
            ("later.md", PUBLIC),
            ("later.md", PUBLIC2),
            ("vault.md", SECRET),
        ):
            assert admin.post("/kb/default/documents", files=_files(name, data)).is_success
        assert admin.delete("/kb/default/documents/gone.md").status_code == 200
        yield c
        for client in c.values():
            client.close()


def _view(r: httpx.Response) -> list[dict[str, Any]]:
    assert r.status_code == 200, r.text
    keep = ("version_id", "action", "is_head", "revision", "content_sha256", "restored_from")
    return [{k: v[k] for k in keep if k != "revision"} for v in r.json()]


def test_a_hidden_head_looks_like_a_deletion(env: dict[str, httpx.Client]) -> None:
    """The newest version of shift.md is alice's: bob's history reads as a deletion (the
    head), as gone.md's does, never as an old version with ``is_head: false``."""
    bob = env["bob"]
    shift = _view(bob.get("/kb/default/documents/shift.md/versions"))
    gone = _view(bob.get("/kb/default/documents/gone.md/versions"))
    assert shift == gone
    assert shift[0]["action"] == "deleted" and shift[0]["is_head"] is True
    assert [v["is_head"] for v in shift] == [True, False]
    assert "staff only" not in bob.get("/kb/default/documents/shift.md/versions").text


def test_version_numbers_and_revert_use_the_callers_numbering(
    env: dict[str, httpx.Client],
) -> None:
    """later.md has one hidden version (store 1) then two public ones (store 2, 3): bob
    sees versions 1 and 2, and his "revert to version 1" restores store version 2."""
    bob, alice = env["bob"], env["alice"]
    doc = "/kb/default/documents/later.md"
    assert [v["version_id"] for v in bob.get(doc + "/versions").json()] == [2, 1]
    assert bob.get(doc).json()["version_id"] == 2
    listed = bob.get("/kb/default/documents", params={"q": "later"}).json()["documents"]
    assert [d["version_id"] for d in listed] == [2]
    reverted = bob.post(doc + "/revert", json={"version": 1})
    assert reverted.status_code == 200, reverted.text
    assert reverted.json()["version_id"] == 3
    mine = bob.get(doc + "/versions").json()
    assert (mine[0]["version_id"], mine[0]["restored_from"]) == (3, 1)
    assert bob.get(doc).json()["content_sha256"] == mine[-1]["content_sha256"]
    # a principal who may read every version sees the store's own numbers
    theirs = alice.get(doc + "/versions").json()
    assert (theirs[0]["version_id"], theirs[0]["restored_from"]) == (4, 2)
    missing = bob.post(doc + "/revert", json={"version": 4})
    assert missing.status_code == 404 and "version 4" in missing.json()["error"]["message"]


def test_uploading_the_bytes_of_a_hidden_document_reads_as_a_new_write(
    env: dict[str, httpx.Client],
) -> None:
    """vault.md holds SECRET (alice only). Bob uploading the same bytes to vault.md must
    answer as uploading them to a path that never existed: ``added`` with his current
    revision number (the new version is alice's, so his number does not move)."""
    bob = env["bob"]
    fresh = bob.post("/kb/default/documents", files=_files("fresh-vault.md", SECRET))
    same = bob.post("/kb/default/documents", files=_files("vault.md", SECRET))
    assert fresh.status_code == same.status_code == 201
    f, s = fresh.json(), same.json()
    assert s["files"][0]["status"] == f["files"][0]["status"] == "added"
    assert s["revision"] is not None
    assert (s["revision"], s["revision_hash"]) == (f["revision"], f["revision_hash"])
    assert s["revision"] == bob.get("/kb/default").json()["revision"]


def test_query_results_number_versions_as_the_caller_sees_them(
    env: dict[str, httpx.Client],
) -> None:
    """Search hits, evidence fragments, answer citations and resolved citations of
    later.md (whose first store version bob may not read) carry bob's own version number;
    alice, who reads every version, gets the store's."""
    for who in ("bob", "alice"):
        c = env[who]
        mine = c.get("/kb/default/documents/later.md").json()["version_id"]
        hits = c.post("/kb/default/search", json={"query": "when does the shift start"}).json()
        later = [h for h in hits["hits"] if h["path"] == "later.md"]
        assert later and {h["version_id"] for h in later} == {mine}, who
        cited = c.get(f"/citations/{later[0]['citation_id']}").json()
        assert cited["version_id"] == mine, who
        pack = c.post("/kb/default/evidence", json={"query": "when does the shift start"}).json()
        frags = [f for f in pack["direct_evidence"] if f["path"] == "later.md"]
        assert frags and {f["version_id"] for f in frags} == {mine}, who
        ans = c.post("/kb/default/ask", json={"question": "When does the shift start?"}).json()
        cites = [x for x in ans["citations"] if x["path"] == "later.md"]
        assert {x["version_id"] for x in cites} <= {mine}, who
    bob = env["bob"].get("/kb/default/documents/later.md").json()["version_id"]
    alice = env["alice"].get("/kb/default/documents/later.md").json()["version_id"]
    assert alice == bob + 1  # alice also counts the first version, which bob may not read


@pytest.mark.subprocess
def test_cli_as_numbers_versions_as_that_principal(tmp_path: Path) -> None:
    """``citewise search|evidence --as bob`` number versions as bob sees them; without
    ``--as`` (the owner's CLI) the store's numbers stay."""
    home, src = tmp_path / "home", tmp_path / "src"
    src.mkdir()
    for data in (HIDDEN_EDIT, PUBLIC, PUBLIC2):
        (src / "later.md").write_bytes(data)
        run_cli("add", str(src), home=home, check=True)
    q = "when does the shift start"

    def versions(*args: str) -> set[int]:
        out = json.loads(run_cli(*args, "--json", home=home, check=True).stdout)
        frags = out["hits"] if "hits" in out else out["direct_evidence"]
        return {f["version_id"] for f in frags if f["path"] == "later.md"}

    assert versions("search", q, "--as", "bob") == {2}
    assert versions("evidence", q, "--as", "bob") == {2}
    assert versions("search", q, "--as", "alice") == {3}
    assert versions("search", q) == {3}
