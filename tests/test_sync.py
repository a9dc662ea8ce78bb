"""``sync``: the current revision mirrors a folder (library, CLI, HTTP); deletes are
consistent across every index and survive a crash; the user's files are never touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from citewise.core.search import SearchFilters
from citewise.errors import NotFoundError
from citewise.kb import Home, KnowledgeBase
from tests.conftest import REPO, run_cli


def _doc(title: str, word: str) -> str:
    return f"# {title}\n\nThe {word} procedure is described here in full detail.\n"


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def nodense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


@pytest.fixture
def lhome(tmp_path: Path, nodense: None) -> Iterator[Home]:
    h = Home.open(tmp_path / "home")
    yield h
    h.close()


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    _write(
        folder,
        {
            "alpha.md": _doc("Alpha", "zebrafish"),
            "beta.md": _doc("Beta", "quasar"),
            "gamma.md": _doc("Gamma", "marmoset"),
        },
    )
    return folder


def _hits(kb: KnowledgeBase, word: str) -> list[str]:
    return [h.path for h in kb.search(word, mode="lexical").hits]


def test_sync_adds_versions_and_deletes_in_one_revision(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    other = tmp_path / "elsewhere"
    _write(other, {"keep.md": _doc("Keep", "narwhal")})
    kb = lhome.kb()
    kb.add([other])
    first = kb.sync(folder)
    assert first.counts["added"] == 3 and first.revision is not None
    beta_node = next(n for n in kb.nodes("beta.md") if n.kind != "document")

    (folder / "alpha.md").write_text(_doc("Alpha", "zebrafish changed"), encoding="utf-8")
    (folder / "beta.md").unlink()
    (folder / "gamma.md").rename(folder / "delta.md")  # a rename: delete + add
    (folder / "img.png").write_bytes(b"\x89PNG")
    (folder / "bad.md").write_bytes(b"")
    revisions_before = len(kb.revisions())

    plan = kb.sync(folder, dry_run=True)
    assert plan.dry_run and plan.revision is None
    assert len(kb.revisions()) == revisions_before  # a dry run writes nothing
    assert {d.path for d in kb.documents()} == {"alpha.md", "beta.md", "gamma.md", "keep.md"}

    report = kb.sync(folder)
    status = {f.path: f.status for f in report.files}
    assert status == {
        "alpha.md": "changed",
        "beta.md": "deleted",
        "gamma.md": "deleted",
        "delta.md": "added",
        "img.png": "skipped",
        "bad.md": "failed",
    }
    assert {f.path: f.status for f in plan.files} == status  # the dry run said the same
    assert next(f for f in report.files if f.path == "bad.md").code == "EMPTY_FILE"
    assert len(kb.revisions()) == revisions_before + 1  # one revision for the batch
    # Documents added from elsewhere are never deletion candidates.
    assert {d.path for d in kb.documents()} == {"alpha.md", "delta.md", "keep.md"}
    assert _hits(kb, "quasar") == []  # gone from the index in the same state
    assert _hits(kb, "narwhal") == ["keep.md"]
    # History stays: the old citation still resolves to its exact text.
    cited = lhome.resolve(beta_node.id)
    assert cited.text == beta_node.text and not cited.current


def test_unchanged_sync_writes_nothing(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.sync(folder)
    again = kb.sync(folder)
    assert again.counts["unchanged"] == 3 and again.revision is None
    assert not again.changed_anything


def test_missing_folder_is_not_found_and_deletes_nothing(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.sync(folder)
    with pytest.raises(NotFoundError) as caught:
        kb.sync(tmp_path / "nope")
    assert caught.value.code == "NOT_FOUND" and "nope" in str(caught.value)
    assert len(kb.documents()) == 3


def test_an_emptied_folder_is_refused_not_emptied(lhome: Home, tmp_path: Path) -> None:
    from citewise.errors import UsageError

    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.sync(folder)
    for f in folder.iterdir():
        f.unlink()
    with pytest.raises(UsageError, match="no document"):
        kb.sync(folder)
    assert len(kb.documents()) == 3


def test_add_never_deletes_and_reports_missing(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.add([folder])
    (folder / "beta.md").unlink()
    report = kb.add([folder])
    assert report.missing == ("beta.md",)
    assert "beta.md" in {d.path for d in kb.documents()}


def test_delete_never_touches_the_source_file(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    source = folder / "alpha.md"
    before = (source.read_bytes(), source.stat().st_mtime_ns)
    kb = lhome.kb()
    kb.add([folder])
    kb.delete("alpha.md")
    assert (source.read_bytes(), source.stat().st_mtime_ns) == before
    assert _hits(kb, "zebrafish") == []


def test_delete_leaves_no_chunks_or_graph_points(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.add([folder])
    index = lhome.index(kb.name)
    scope = SearchFilters(path_prefixes=("b",))
    assert [h.path for h in kb.search("quasar", mode="lexical", filters=scope).hits] == [
        "beta.md"
    ]  # this scope is now cached in the published state
    kb.delete("beta.md")
    state = index.state  # published by the delete itself, no search needed
    assert all(c.path != "beta.md" for c in state.chunks.values())
    assert all(not cid or cid in state.chunks for cid in state.lexical.ids())
    assert all(p.path != "beta.md" for p in index.graph.sync().points.values())
    # The scope cached before the delete is not reused: scopes belong to one state.
    assert state.scopes == {}
    assert not kb.search("quasar", mode="lexical", filters=scope).hits


def test_a_failed_index_update_after_delete_is_retried(
    lhome: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citewise.errors import StoreError
    from citewise.index.manager import KBIndex

    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.add([folder])
    real = KBIndex.sync
    calls = {"n": 0}

    def flaky(self: KBIndex) -> object:
        calls["n"] += 1
        if calls["n"] == 1:
            raise StoreError("index update failed part-way")
        return real(self)

    monkeypatch.setattr(KBIndex, "sync", flaky)
    outcome = kb.delete("beta.md")  # the store commit stands
    assert outcome.action == "deleted" and calls["n"] == 1
    assert _hits(kb, "quasar") == []  # the next read re-syncs: no orphan chunks
    assert all(c.path != "beta.md" for c in lhome.index(kb.name).chunks.values())


@pytest.mark.model
def test_delete_drops_the_vectors_in_the_same_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    folder = _folder(tmp_path)
    with Home.open(tmp_path / "dense-home") as h:
        kb = h.kb()
        kb.add([folder])
        index = h.index(kb.name)
        if index.vectors is None:
            pytest.skip(f"dense route unavailable: {index.dense.reason}")
        beta = [c.chunk_id for c in index.chunks.values() if c.path == "beta.md"]
        assert beta and all(cid in index.vectors for cid in beta)
        kb.delete("beta.md")
        state = index.state
        assert state.vectors is not None
        assert not any(cid in state.vectors for cid in beta)
        assert not any(cid in state.chunks for cid in beta)


_CRASH = """
import sys
from citewise.kb import Home
with Home.open(sys.argv[1]) as h:
    h.kb().delete("beta.md")
"""


@pytest.mark.subprocess
def test_kill_between_delete_commit_and_index_update(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.add([folder])
    assert _hits(kb, "quasar") == ["beta.md"]  # the index on disk holds beta's chunks
    lhome.close()
    env = dict(os.environ, CITEWISE_CRASH_AT="after_delete_commit", CITEWISE_DENSE="off")
    env["PYTHONPATH"] = str(REPO / "src")
    proc = subprocess.run(
        [sys.executable, "-c", _CRASH, str(tmp_path / "home")],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == -9, proc.stderr.decode()  # SIGKILLed at the hook
    with Home.open(tmp_path / "home") as again:
        kb2 = again.kb()
        assert "beta.md" not in {d.path for d in kb2.documents()}
        assert _hits(kb2, "quasar") == []  # the stale on-disk index does not bring it back
        assert all(c.path != "beta.md" for c in again.index(kb2.name).chunks.values())
        assert again.verify() == []


def test_watch_picks_up_a_change_and_a_delete(lhome: Home, tmp_path: Path) -> None:
    from citewise.sync.folder import SyncReport
    from citewise.sync.watch import watch_folder

    folder = _folder(tmp_path)
    kb = lhome.kb()
    reports: list[SyncReport] = []
    stop = threading.Event()
    worker = threading.Thread(
        target=watch_folder, args=(kb.context, folder, reports.append), kwargs={"stop": stop}
    )
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while not reports and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reports and reports[0].counts["added"] == 3
        time.sleep(0.3)  # let the watcher settle on the initial state
        (folder / "alpha.md").write_text(_doc("Alpha", "okapi"), encoding="utf-8")
        (folder / "beta.md").unlink()
        seen: dict[str, str] = {}
        while time.monotonic() < deadline and seen != {
            "alpha.md": "changed",
            "beta.md": "deleted",
        }:
            for r in reports[1:]:
                seen.update({f.path: f.status for f in r.files if f.status != "unchanged"})
            time.sleep(0.05)
        assert seen == {"alpha.md": "changed", "beta.md": "deleted"}
    finally:
        stop.set()
        worker.join(timeout=10)
    assert not worker.is_alive()
    assert {d.path for d in kb.documents()} == {"alpha.md", "gamma.md"}


def test_a_file_changing_while_read_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citewise.ingest import safe_open
    from citewise.sync import folder as sync_mod

    path = tmp_path / "growing.md"
    path.write_text("# Half", encoding="utf-8")
    calls = {"n": 0}
    real_read = safe_open._read_fd

    def read_then_append(fd: int, limit: int) -> bytes:
        data = real_read(fd, limit)
        if calls["n"] < 1:
            calls["n"] += 1
            with path.open("a", encoding="utf-8") as fh:  # a writer appends mid-read
                fh.write("\n\nThe rest of the document.\n")
        return data

    monkeypatch.setattr(safe_open, "_read_fd", read_then_append)
    data = sync_mod.read_stable(path, 10_000, wait=0.0)
    assert calls["n"] == 1
    assert data == path.read_bytes()
    assert data.endswith(b"The rest of the document.\n")


def test_stale_answers_after_sync(lhome: Home, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    kb = lhome.kb()
    kb.sync(folder)
    answer = kb.ask("What is the quasar procedure?")
    assert answer.citations, answer.outcome
    assert kb.stale_answers() == []
    (folder / "beta.md").unlink()
    report = kb.sync(folder)
    assert [a.answer_id for a in report.stale_answers] == [answer.trace_id]
    assert [a.answer_id for a in kb.stale_answers()] == [answer.trace_id]


@pytest.mark.subprocess
def test_cli_sync_dry_run_json_and_add_hint(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    home = tmp_path / "clihome"
    os.environ.setdefault("CITEWISE_DENSE", "off")
    run_cli("add", str(folder), home=home, check=True)
    (folder / "beta.md").unlink()
    added = run_cli("add", str(folder), home=home, check=True)
    assert "beta.md" in added.stderr and "citewise sync" in added.stderr
    dry = run_cli("sync", str(folder), "--dry-run", "--json", home=home, check=True)
    data = json.loads(dry.stdout)
    assert data["dry_run"] is True
    assert {f["path"]: f["status"] for f in data["files"]}["beta.md"] == "deleted"
    listed = run_cli("docs", "list", "--json", home=home, check=True)
    assert "beta.md" in listed.stdout  # the dry run wrote nothing
    done = run_cli("sync", str(folder), home=home, check=True)
    assert "1 deleted" in done.stdout and "deleted" in done.stdout
    listed = run_cli("docs", "list", "--json", home=home, check=True)
    assert "beta.md" not in listed.stdout
    stale = run_cli("cite", "stale", home=home)
    assert stale.returncode == 0 and "0 stale answer(s)" in stale.stdout


def test_http_sync_only_under_sync_roots(tmp_path: Path, nodense: None) -> None:
    from tests._server import running_server

    roots = tmp_path / "shared"
    folder = _folder(roots)
    outside = _folder(tmp_path / "private")
    with running_server(tmp_path / "home") as url:
        r = httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"})
        assert r.status_code == 403 and "--sync-root" in r.json()["error"]["message"]
    with running_server(tmp_path / "home", sync_roots=[roots]) as url:
        for bad in ("../private/notes", str(outside)):
            r = httpx.post(f"{url}/kb/default/sync", json={"folder": bad})
            assert r.status_code in (400, 403), r.text
        (roots / "link").symlink_to(outside, target_is_directory=True)
        r = httpx.post(f"{url}/kb/default/sync", json={"folder": "link"})
        assert r.status_code == 403, r.text
        r = httpx.post(f"{url}/kb/default/sync", json={"folder": "notes", "dry_run": True})
        assert r.status_code == 200 and r.json()["counts"]["added"] == 3
        assert httpx.get(f"{url}/kb/default/documents").json()["total"] == 0
        r = httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"})
        assert r.status_code == 200 and r.json()["revision"] is not None
        (folder / "beta.md").unlink()
        r = httpx.post(f"{url}/kb/default/sync", json={"folder": "notes"})
        assert r.json()["counts"]["deleted"] == 1
        docs = httpx.get(f"{url}/kb/default/documents").json()["documents"]
        assert {d["path"] for d in docs} == {"alpha.md", "gamma.md"}


def test_http_sync_needs_a_key_for_all_bases(tmp_path: Path, nodense: None) -> None:
    from citewise.server.auth import KeyStore
    from tests._server import running_server

    roots = tmp_path / "shared"
    _folder(roots)
    (tmp_path / "home").mkdir()
    keys = KeyStore(tmp_path / "home")
    narrow = keys.add("reader", "ops", ["default"])
    admin = keys.add("admin", "root", ["*"])
    with running_server(tmp_path / "home", sync_roots=[roots]) as url:
        body = {"folder": "notes"}
        r = httpx.post(f"{url}/kb/default/sync", json=body, headers={"x-api-key": narrow})
        assert r.status_code == 403, r.text
        r = httpx.post(f"{url}/kb/default/sync", json=body, headers={"x-api-key": admin})
        assert r.status_code == 200 and r.json()["counts"]["added"] == 3
