"""``POST /kb/{kb}/sync`` on a real server (issue 32): searches go on while a sync parses,
uploads survive a sync of a folder holding the home, the report shows only what the
caller's principal may read, and no response names a server folder."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import citewise.sync.mirror as mirror
from citewise.facade.caller import LOCAL
from citewise.facade.service import Service
from citewise.ingest.parse import parse_document
from citewise.kb import Home
from citewise.server.auth import KeyStore
from citewise.store.sqlite import SQLiteStore
from tests._server import running_server


def _doc(title: str, word: str, access: str = "") -> str:
    head = f"---\naccess: [{access}]\n---\n" if access else ""
    return f"{head}# {title}\n\nThe {word} procedure is described here in full detail.\n"


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture(autouse=True)
def nodense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


def _search(url: str, word: str, headers: dict[str, str] | None = None) -> list[str]:
    r = httpx.post(
        f"{url}/kb/default/search",
        json={"query": word, "mode": "lexical"},
        headers=headers,
        timeout=60,
    )
    assert r.status_code == 200, r.text
    return [h["path"] for h in r.json()["hits"]]


# -- (c) parsing is outside the write lock ------------------------------------------------
def test_a_search_answers_while_a_sync_is_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = tmp_path / "shared"
    _write(roots / "notes", {"old.md": _doc("Old", "gamma")})
    parsing, release = threading.Event(), threading.Event()
    real = parse_document
    with running_server(tmp_path / "home", sync_roots=[roots]) as url:
        assert httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"}).status_code == 200
        _write(roots / "notes", {"new.md": _doc("New", "delta")})

        def slow_parse(*args: Any, **kw: Any) -> Any:
            parsing.set()
            assert release.wait(120), "the test never released the parser"
            return real(*args, **kw)

        monkeypatch.setattr(mirror, "parse_document", slow_parse)
        out: dict[str, httpx.Response] = {}
        worker = threading.Thread(
            target=lambda: out.setdefault(
                "r", httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"}, timeout=120)
            )
        )
        worker.start()
        try:
            assert parsing.wait(60)
            # The sync is mid-parse: a search gets the shared lock and answers from the old
            # state before the parser is let go (a lock held over the parse would hang here
            # until the client's timeout).
            assert _search(url, "gamma") == ["old.md"]
            assert _search(url, "delta") == []
            assert worker.is_alive() and not release.is_set()
        finally:
            release.set()
            worker.join(120)
        assert out["r"].status_code == 200 and out["r"].json()["counts"]["added"] == 1
        assert _search(url, "delta") == ["new.md"]


def test_sync_parses_without_and_stores_with_the_write_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = tmp_path / "shared"
    _write(roots / "notes", {"a.md": _doc("A", "alpha"), "b.md": _doc("B", "beta")})
    with Home.open(tmp_path / "home") as home:
        service = Service(home, sync_roots=(roots,))
        seen: dict[str, list[bool]] = {"parse": [], "store": []}
        parse, ingest = parse_document, SQLiteStore.ingest_document

        def parse_spy(*args: Any, **kw: Any) -> Any:
            seen["parse"].append(service.lock.writing)
            return parse(*args, **kw)

        def ingest_spy(self: SQLiteStore, *args: Any, **kw: Any) -> Any:
            seen["store"].append(service.lock.writing)
            return ingest(self, *args, **kw)

        monkeypatch.setattr(mirror, "parse_document", parse_spy)
        monkeypatch.setattr(SQLiteStore, "ingest_document", ingest_spy)
        report = service.sync(LOCAL, "default", "notes")
        assert report.counts["added"] == 2
        assert seen == {"parse": [False, False], "store": [True, True]}


# -- (d) uploads survive a sync of a folder that holds the home ---------------------------
def test_uploads_survive_a_sync_of_the_folder_holding_the_home(tmp_path: Path) -> None:
    roots = tmp_path / "shared"
    _write(roots, {"a.md": _doc("A", "alpha")})
    with running_server(roots / "home", sync_roots=[roots]) as url:
        files = [("files", ("up.md", io.BytesIO(_doc("Up", "upsilon").encode()), "text/markdown"))]
        r = httpx.post(f"{url}/kb/default/documents", files=files)
        assert r.status_code == 201, r.text
        for _ in range(2):  # the second sync is where an upload used to be deleted
            r = httpx.post(f"{url}/kb/default/sync", json={})
            assert r.status_code == 200, r.text
            assert r.json()["counts"]["deleted"] == 0
            assert all(not f["path"].startswith("home/") for f in r.json()["files"])
        docs = httpx.get(f"{url}/kb/default/documents").json()["documents"]
        assert {d["path"] for d in docs} == {"a.md", "up.md"}
        assert _search(url, "upsilon") == ["up.md"]


# -- LOW: the caller's view, and no server path --------------------------------------------
@pytest.fixture
def two_principals(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], dict[str, str], Path]]:
    roots = tmp_path / "shared"
    _write(
        roots / "notes",
        {"pub.md": _doc("Pub", "okapi"), "priv.md": _doc("Priv", "walrus", "alice")},
    )
    (tmp_path / "home").mkdir()
    keys = KeyStore(tmp_path / "home")
    root_key = {"x-api-key": keys.add("admin", "root", ["*"])}
    alice_key = {"x-api-key": keys.add("alice-all", "alice", ["*"])}
    with running_server(tmp_path / "home", sync_roots=[roots]) as url:
        yield url, root_key, alice_key, roots / "notes"


def _sync(url: str, key: dict[str, str], **body: Any) -> dict[str, Any]:
    r = httpx.post(f"{url}/kb/default/sync", json={"folder": "notes", **body}, headers=key)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def _ask(url: str, key: dict[str, str], question: str) -> str:
    r = httpx.post(f"{url}/kb/default/ask", json={"question": question}, headers=key, timeout=60)
    assert r.status_code == 200, r.text
    assert r.json()["citations"], r.text
    return str(r.json()["trace_id"])


def test_a_sync_report_shows_only_what_its_principal_may_read(
    two_principals: tuple[str, dict[str, str], dict[str, str], Path],
) -> None:
    url, root_key, alice_key, folder = two_principals
    plan = _sync(url, root_key, dry_run=True)
    assert {f["path"] for f in plan["files"]} == {"pub.md"}
    assert plan["counts"]["added"] == 1
    first = _sync(url, root_key)
    assert {f["path"]: f["status"] for f in first["files"]} == {"pub.md": "added"}
    assert first["counts"]["added"] == 1
    mine = _ask(url, root_key, "What is the okapi procedure?")
    hers = _ask(url, alice_key, "What is the walrus procedure?")
    _write(folder, {"pub.md": _doc("Pub", "okapi renewed")})
    _write(folder, {"priv.md": _doc("Priv", "walrus renewed", "alice")})
    r = httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"}, headers=root_key)
    assert r.status_code == 200, r.text
    assert "priv.md" not in r.text and hers not in r.text
    data = r.json()
    assert {f["path"]: f["status"] for f in data["files"]} == {"pub.md": "changed"}
    assert [a["answer_id"] for a in data["stale_answers"]] == [mine]
    # alice's own view of a later sync shows both documents and only her answer
    (folder / "priv.md").unlink()
    (folder / "pub.md").write_text(_doc("Pub", "okapi third"), encoding="utf-8")
    r = httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"}, headers=alice_key)
    data = r.json()
    assert {f["path"]: f["status"] for f in data["files"]} == {
        "pub.md": "changed",
        "priv.md": "deleted",
    }
    assert [a["answer_id"] for a in data["stale_answers"]] == [hers]


def test_no_server_path_in_sync_responses(tmp_path: Path) -> None:
    roots = tmp_path / "shared"
    folder = roots / "notes"
    _write(folder, {"a.md": _doc("A", "alpha")})
    _write(tmp_path / "private", {"secret.md": _doc("S", "sigma")})
    (folder / "out.md").symlink_to(tmp_path / "private" / "secret.md")  # OUTSIDE_ROOT
    os.mkfifo(folder / "pipe.md")
    (roots / "empty").mkdir()
    with running_server(tmp_path / "home", sync_roots=[roots]) as url:
        answers = [
            httpx.post(f"{url}/kb/default/sync", json={"folder": "notes", "dry_run": True}),
            httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"}),
            httpx.post(f"{url}/kb/default/sync", json={"folder": "empty"}),
            httpx.post(f"{url}/kb/default/sync", json={"folder": "nope"}),
        ]
    assert [r.status_code for r in answers] == [200, 200, 400, 404]
    for r in answers:
        assert str(tmp_path) not in r.text and str(tmp_path.resolve()) not in r.text, r.text
    data = answers[1].json()
    assert data["folder"] == "notes"
    rows = {f["path"]: f for f in data["files"]}
    assert rows["out.md"]["code"] == "OUTSIDE_ROOT" and "folder notes" in rows["out.md"]["message"]
    assert rows["pipe.md"]["status"] == "skipped"
    assert "empty" in answers[2].json()["error"]["message"]


def test_a_row_is_judged_by_the_versions_it_is_about() -> None:
    from citewise.facade.sync_view import file_as_seen
    from citewise.sync.folder import SyncFile

    hidden = {"access": ["bob"]}
    can = {1: True, 2: False, 3: True}.__getitem__
    changed = SyncFile("a.md", "changed")
    # stored run: live[0] is the version just written, live[1] the one it replaced
    assert file_as_seen(changed, [3, 1], can, None, "al") == changed
    assert file_as_seen(changed, [3, 2], can, None, "al") == SyncFile("a.md", "added")
    assert file_as_seen(changed, [2, 1], can, None, "al") is None
    assert file_as_seen(SyncFile("a.md", "deleted"), [2], can, None, "al") is None
    assert file_as_seen(SyncFile("x.png", "skipped"), [], can, None, "al") is not None
    # dry run: judged by the parsed metadata of the file it would write
    assert file_as_seen(changed, [1], can, hidden, "al") is None
    assert file_as_seen(changed, [2], can, {}, "al") == SyncFile("a.md", "added")
    assert file_as_seen(SyncFile("n.md", "added"), [], can, {}, "al") is not None
