"""``sync`` cannot be raced or blocked (issue 32): a folder swapped for a link after the
walk is not read through it, FIFOs and sockets are skipped without blocking, files are
parsed outside the server's write lock, and only documents read from the synced folder
itself are ever deletion candidates (never uploads, never the home)."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citewise.sync.mirror as mirror
from citewise.kb import Home, KnowledgeBase

SECRET = "xylophonist"


def _doc(title: str, word: str) -> str:
    return f"# {title}\n\nThe {word} procedure is described here in full detail.\n"


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def lhome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    h = Home.open(tmp_path / "home")
    yield h
    h.close()


def _hits(kb: KnowledgeBase, word: str) -> list[str]:
    return [h.path for h in kb.search(word, mode="lexical").hits]


def _status(report: Any) -> dict[str, tuple[str, str]]:
    return {f.path: (f.status, f.code) for f in report.files}


# -- (a) a link swapped in between the walk and the read ---------------------------------
def _swap_after_walk(monkeypatch: pytest.MonkeyPatch, swap: Any) -> None:
    """Run ``swap`` right after the folder has been walked (before any file is read)."""
    real_walk = mirror.walk  # type: ignore[attr-defined]

    def walk_then_swap(path: Path) -> Iterator[Any]:
        found = list(real_walk(path))
        swap()
        yield from found

    monkeypatch.setattr(mirror, "walk", walk_then_swap)


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_link_swapped_in_after_the_walk_is_not_read(
    lhome: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    folder, outside = tmp_path / "notes", tmp_path / "outside"
    _write(folder, {"keep.md": _doc("Keep", "okapi"), "sub/a.md": _doc("A", "walrus")})
    _write(outside, {"a.md": _doc("Secret", SECRET)})

    def swap() -> None:
        if what == "folder":  # the sub-folder becomes a link to a folder outside
            (folder / "sub").rename(tmp_path / "moved")
            (folder / "sub").symlink_to(outside, target_is_directory=True)
        else:  # the file itself becomes a link to a file outside
            (folder / "sub" / "a.md").unlink()
            (folder / "sub" / "a.md").symlink_to(outside / "a.md")

    _swap_after_walk(monkeypatch, swap)
    kb = lhome.kb()
    report = kb.sync(folder)
    assert _status(report) == {"keep.md": ("added", ""), "sub/a.md": ("failed", "OUTSIDE_ROOT")}
    message = next(f.message for f in report.files if f.path == "sub/a.md")
    assert "link" in message and "Copy the file into the folder" in message
    assert _hits(kb, SECRET) == []
    assert {d.path for d in kb.documents()} == {"keep.md"}


def test_the_folder_itself_swapped_for_a_link_after_the_walk_is_not_read(
    lhome: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, outside = tmp_path / "notes", tmp_path / "outside"
    _write(folder, {"a.md": _doc("A", "walrus")})
    _write(outside, {"a.md": _doc("Secret", SECRET)})

    def swap() -> None:
        folder.rename(tmp_path / "moved")
        folder.symlink_to(outside, target_is_directory=True)

    _swap_after_walk(monkeypatch, swap)
    report = lhome.kb().sync(folder)
    assert _status(report) == {"a.md": ("failed", "OUTSIDE_ROOT")}
    assert _hits(lhome.kb(), SECRET) == []


def test_a_link_inside_the_folder_is_still_read(lhome: Home, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    _write(folder, {"real/a.md": _doc("A", "walrus")})
    (folder / "alias.md").symlink_to(folder / "real" / "a.md")
    report = lhome.kb().sync(folder)
    assert _status(report) == {"alias.md": ("added", ""), "real/a.md": ("added", "")}


# -- (b) FIFOs, sockets and devices -------------------------------------------------------
def _sync_in_thread(kb: KnowledgeBase, folder: Path, fifo: Path) -> Any:
    """Sync in a worker; a worker stuck on the FIFO fails the test instead of hanging it."""
    out: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", kb.sync(folder)), daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # release a reader blocked in open(): give it a writer, then EOF
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join(10)
        pytest.fail("sync blocked on a FIFO in the folder")
    return out["r"]


def test_a_fifo_and_a_socket_are_skipped_without_blocking(lhome: Home, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    _write(folder, {"a.md": _doc("A", "walrus")})
    fifo = folder / "pipe.md"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock_path = folder / "s.md"
    bound = len(str(sock_path)) < 100  # AF_UNIX path limit
    if bound:
        sock.bind(str(sock_path))
    try:
        report = _sync_in_thread(lhome.kb(), folder, fifo)
    finally:
        sock.close()
    status = _status(report)
    assert status["pipe.md"] == ("skipped", "NOT_REGULAR_FILE")
    assert status["a.md"] == ("added", "")
    pipe = next(f for f in report.files if f.path == "pipe.md")
    assert "FIFO" in pipe.message and "not a regular file" in pipe.message
    if bound:
        assert status["s.md"] == ("skipped", "NOT_REGULAR_FILE")
        assert "socket" in next(f.message for f in report.files if f.path == "s.md")
    assert report.ok  # a skipped special file is not a failure


@pytest.mark.subprocess
def test_cli_sync_skips_a_fifo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import run_cli

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    folder = tmp_path / "notes"
    _write(folder, {"a.md": _doc("A", "walrus")})
    os.mkfifo(folder / "pipe.md")
    done = run_cli("sync", str(folder), "--json", home=tmp_path / "clihome")  # 120 s timeout
    assert done.returncode == 0, done.stderr
    import json

    rows = {f["path"]: f for f in json.loads(done.stdout)["files"]}
    assert rows["pipe.md"]["status"] == "skipped" and "FIFO" in rows["pipe.md"]["message"]
    assert rows["a.md"]["status"] == "added"


# -- (c) commit-time checks of a plan made outside the lock --------------------------------
def test_a_document_changed_while_planning_is_not_overwritten_silently(
    lhome: Home, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    _write(folder, {"a.md": _doc("A", "walrus"), "b.md": _doc("B", "okapi")})
    kb = lhome.kb()
    kb.sync(folder)
    (folder / "b.md").write_text(_doc("B", "okapi changed"), encoding="utf-8")
    plan = mirror.plan_sync(kb.context, folder)
    assert _status(plan.report()) == {"a.md": ("unchanged", ""), "b.md": ("changed", "")}
    # Meanwhile another writer stores a new a.md, from elsewhere.
    _write(tmp_path / "other", {"a.md": _doc("A", "narwhal")})
    kb.add([tmp_path / "other" / "a.md"])
    report = mirror.apply_sync(kb.context, plan)
    assert _status(report) == {"a.md": ("failed", "CHANGED_DURING_SYNC"), "b.md": ("changed", "")}
    assert _hits(kb, "narwhal") == ["a.md"]  # the other write stands until the next sync
    again = kb.sync(folder)
    assert _status(again)["a.md"] == ("changed", "")
    assert _hits(kb, "narwhal") == [] and _hits(kb, "walrus") == ["a.md"]


# -- (d) what a sync may delete -------------------------------------------------------------
def test_documents_from_elsewhere_are_never_deletion_candidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    folder = tmp_path / "notes"
    _write(folder, {"a.md": _doc("A", "walrus"), "sub/b.md": _doc("B", "okapi")})
    with Home.open(folder / "kbhome") as h:  # the home lives inside the synced folder
        kb = h.kb()
        kb.add([folder / "sub"])  # from a sub-folder: b.md, read from notes/sub/b.md
        staged = folder / "kbhome" / "uploads" / "1-0000000000000000"
        _write(staged, {"up.md": _doc("Up", "narwhal")})  # as an upload records it
        kb.add([staged])
        _write(folder / "kbhome", {"inhome.md": _doc("Home", SECRET)})
        report = kb.sync(folder)
        status = _status(report)
        assert status == {"a.md": ("added", ""), "sub/b.md": ("added", "")}
        assert {d.path for d in kb.documents()} == {"a.md", "b.md", "sub/b.md", "up.md"}
        assert _hits(kb, SECRET) == []  # nothing of the home is ingested
        (folder / "a.md").unlink()
        (folder / "sub" / "b.md").unlink()
        _write(folder, {"c.md": _doc("C", "marmoset")})
        report = kb.sync(folder)
        assert _status(report) == {
            "a.md": ("deleted", ""),
            "sub/b.md": ("deleted", ""),
            "c.md": ("added", ""),
        }
        assert {d.path for d in kb.documents()} == {"b.md", "c.md", "up.md"}


def test_add_reads_a_fifo_never_and_blocks_not(lhome: Home, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    _write(folder, {"a.md": _doc("A", "walrus")})
    fifo = folder / "pipe.md"
    os.mkfifo(fifo)
    kb = lhome.kb()
    out: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", kb.add([folder])), daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
        pytest.fail("add blocked on a FIFO in the folder")
    status = {f.path: (f.status, f.code) for f in out["r"].files}
    assert status == {"a.md": ("added", ""), "pipe.md": ("failed", "NOT_REGULAR_FILE")}


# -- properties of the two pure rules -------------------------------------------------------
_NAME = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\x00"),
    min_size=1,
    max_size=8,
).filter(lambda s: s not in (".", ".."))
_REL = st.lists(_NAME, min_size=1, max_size=4).map("/".join)


@given(rel=_REL, other=_REL)
@settings(max_examples=200, deadline=None)
def test_came_from_is_exactly_the_folder_joined_with_the_path(rel: str, other: str) -> None:
    from citewise.sync.folder import came_from

    root, home = Path("/srv/docs"), Path("/srv/docs/kbhome")
    assert came_from(str(root / rel), rel, root)
    inside_home = rel == "kbhome" or rel.startswith("kbhome/")
    assert came_from(str(root / rel), rel, root, home) == (not inside_home)
    assert not came_from(str(home / "uploads" / "1-00" / rel), rel, root, home)
    assert not came_from("", rel, root)
    if other != rel:  # read from another place under the folder: another document
        assert not came_from(str(root / other), rel, root, home)


@given(
    before=st.text(max_size=20),
    after=st.text(max_size=20),
    tail=st.sampled_from(["", "/x.md", "/notes/a.md"]),
)
@settings(max_examples=200, deadline=None)
def test_scrub_leaves_no_server_folder(before: str, after: str, tail: str) -> None:
    from citewise.facade.sync_view import folder_names, scrub

    roots = (Path("/srv/shared"), Path("/srv/shared-2"))
    names = folder_names(roots, 0, Path("/srv/shared/notes"))
    text = scrub(f"{before}/srv/shared{tail}{after}", names)
    if "/srv/" not in before + after:
        assert "/srv/shared" not in text
