"""Backup and restore (issue 38): ``citewise backup PATH`` / ``citewise restore PATH``.

A home with history (four revisions, a change, a deletion), saved answers and a signed
checkpoint in the ledger, and stored vectors, on each backend (SQLite, PostgreSQL in the
session's throwaway cluster): backup -> restore reproduces every revision hash and the
ledger's Merkle root, into SQLite and into PostgreSQL. Tampered archives fail naming what
did not match and leave no home behind; a non-empty target is refused. The archive reader
is fuzzed with hostile archives (path traversal, links, oversize members, no manifest).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import tarfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from citewise.audit import checkpoint as cp
from citewise.audit.keys import default_key_path
from citewise.cli.root import app
from citewise.core.search import SearchFilters
from citewise.errors import BackupInvalid, CitewiseError, RestoreTargetNotEmpty
from citewise.kb import Home
from citewise.sync import backup_archive as ba
from citewise.sync.backup import backup, ledger_root, restore, revisions_of
from tests.backends import Backend

pytestmark = pytest.mark.usefixtures("dense_off")

VECTORS = {"k1": b"\x00\x00\x80?" * 4, "k2": b"\x00\x00\x00@" * 4}


def _history(h: Home, docs: Path) -> None:
    kb = h.kb()
    docs.mkdir()
    (docs / "alpha.md").write_text("# Alpha\n\nThe heron feeder is refilled on Monday.\n")
    (docs / "beta.md").write_text("# Beta\n\nThe lantern drill covers the copper gate.\n")
    (docs / "vault.md").write_text("---\naccess: [alice]\n---\n# Vault\n\nThe tern code.\n")
    kb.add([docs])
    (docs / "alpha.md").write_text("# Alpha\n\nThe heron feeder is refilled on Thursday.\n")
    kb.add([docs])
    kb.delete("beta.md")
    h.create_kb("second", "another base")
    h.kb("second").add([docs / "alpha.md"])
    kb.ask("When is the heron feeder refilled?")
    h.store.put_vectors("test-encoder", VECTORS)
    cp.make_checkpoint(h.store.ledger, default_key_path(h.settings.home))


def _facts(h: Home) -> tuple[Any, Any]:
    return revisions_of(h.store), ledger_root(h.store)


@pytest.fixture
def source(backend: Backend, tmp_path: Path) -> Any:
    h = backend.open(tmp_path / "home")
    _history(h, tmp_path / "docs")
    yield h, backend
    h.close()


def test_backup_then_restore_reproduces_every_revision_hash_and_the_ledger_root(
    source: tuple[Home, Backend], tmp_path: Path
) -> None:
    h, backend = source
    want = _facts(h)
    archive = tmp_path / "kb.tar.gz"
    report = backup(h.store, archive)
    assert report.manifest["ledger"] == {"size": want[1][0], "root": want[1][1]}
    assert report.manifest["vectors"] == {"test-encoder": 2}
    assert [r["revision"] for r in report.manifest["knowledge_bases"]["default"]] == [1, 2, 3]
    # into a home's own SQLite store
    done = restore(archive, tmp_path / "restored")
    assert done.ledger_root == want[1][1]
    with Home.open(tmp_path / "restored") as got:
        assert _facts(got) == want
        assert got.store.integrity_check() == []
        assert got.store.get_vectors("test-encoder", ["k1", "k2"]) == VECTORS
        assert cp.verify(got.store.ledger, default_key_path(h.settings.home)).ok
        assert got.kb().document("alpha.md").version_id == 2
        assert "beta.md" not in {d.path for d in got.kb().documents()}
        answer = got.kb().ask("When is the heron feeder refilled?", revision=1)
        assert "Monday" in answer.answer
        # access lists travel with their versions: still alice's only
        bob = got.kb().search("tern code vault", filters=SearchFilters(principal="bob"))
        alice = got.kb().search("tern code vault", filters=SearchFilters(principal="alice"))
        assert "vault.md" not in {x.path for x in bob.hits}
        assert "vault.md" in {x.path for x in alice.hits}
    # into an empty PostgreSQL database, when a cluster runs (the PostgreSQL case)
    if backend.cluster is not None:
        url = backend.cluster.create_database(f"restore_{os.getpid()}_{id(h)}")
        restore(archive, tmp_path / "pg-home", url)
        with Home.open(tmp_path / "pg-home", store=url) as got:
            assert _facts(got) == want
            assert got.store.get_vectors("test-encoder", ["k1"]) == {"k1": VECTORS["k1"]}


@pytest.mark.subprocess  # the session's cluster: initdb and pg_ctl run as processes
def test_sqlite_archive_restores_into_postgresql(tmp_path: Path, pg_cluster: Any) -> None:
    with Home.open(tmp_path / "home") as h:
        _history(h, tmp_path / "docs")
        want = _facts(h)
        backup(h.store, tmp_path / "kb.tar")
    url = pg_cluster.create_database(f"sq2pg_{os.getpid()}")
    report = restore(tmp_path / "kb.tar", tmp_path / "pg-home", url)
    assert report.store == "postgresql"
    with Home.open(tmp_path / "pg-home", store=url) as got:
        assert _facts(got) == want
    # a database that now holds a store is refused as a target, naming the fix
    with pytest.raises(RestoreTargetNotEmpty, match="createdb"):
        restore(tmp_path / "kb.tar", tmp_path / "pg-home-2", url)
    assert not (tmp_path / "pg-home-2").exists()


def test_a_backup_taken_while_documents_are_added_restores_verified(tmp_path: Path) -> None:
    """The online copy is one consistent snapshot: taken while another thread keeps adding
    documents, it restores with every revision hash and the ledger root checked."""
    import threading

    docs = tmp_path / "docs"
    with Home.open(tmp_path / "home") as h:
        _history(h, docs)
        done = threading.Event()

        def writer() -> None:
            for i in range(30):
                (docs / f"more-{i}.md").write_text(f"# More {i}\n\nLine {i} of the log.\n")
                h.kb().add([docs / f"more-{i}.md"])
            done.set()

        t = threading.Thread(target=writer)
        t.start()
        archives = []
        while not done.is_set() and len(archives) < 5:
            archives.append(backup(h.store, tmp_path / f"kb-{len(archives)}.tar").manifest)
        t.join()
    for n, manifest in enumerate(archives):
        report = restore(tmp_path / f"kb-{n}.tar", tmp_path / f"r{n}")
        assert report.ledger_root == manifest["ledger"]["root"]


# -- refusals ----------------------------------------------------------------------------------
@pytest.fixture
def archive(tmp_path: Path) -> Path:
    with Home.open(tmp_path / "home") as h:
        _history(h, tmp_path / "docs")
        backup(h.store, tmp_path / "kb.tar")
    return tmp_path / "kb.tar"


def test_a_non_empty_home_is_refused_and_left_as_it_was(archive: Path, tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(RestoreTargetNotEmpty, match="new folder"):
        restore(archive, target)
    assert [p.name for p in target.iterdir()] == ["notes.txt"]


def test_backup_refuses_to_overwrite(archive: Path) -> None:
    with Home.open(archive.parent / "home") as h, pytest.raises(CitewiseError, match="exists"):
        backup(h.store, archive)


def _rewrite(archive: Path, out: Path, change: Any, *, fix_hash: bool) -> Path:
    """A copy of ``archive`` whose store went through ``change(sqlite connection)``; with
    ``fix_hash`` the manifest's file hash is made to match (a careful tamperer)."""
    work = out.parent / "work"
    work.mkdir(exist_ok=True)
    with tarfile.open(archive) as tar:
        manifest = json.loads(tar.extractfile(ba.MANIFEST).read())  # type: ignore[union-attr]
        (work / ba.STORE).write_bytes(tar.extractfile(ba.STORE).read())  # type: ignore[union-attr]
    conn = sqlite3.connect(work / ba.STORE)
    conn.execute("DROP TRIGGER IF EXISTS ledger_no_update")
    change(conn)
    conn.commit()
    conn.close()
    if fix_hash:
        data = (work / ba.STORE).read_bytes()
        import hashlib

        manifest["files"][ba.STORE] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }
    m = ba.read_manifest(json.dumps(manifest).encode())
    ba.write_archive(out, m, work / ba.STORE)
    return out


TAMPERS = {
    "file hash": (lambda c: c.execute("UPDATE kb SET description = 'x'"), False, "sha256"),
    "revision hash": (
        lambda c: c.execute("UPDATE revision SET hash = ? WHERE revision = 2", ("0" * 64,)),
        True,
        "revisions of knowledge base 'default'",
    ),
    "version bytes": (
        lambda c: c.execute("UPDATE version SET raw = X'00' WHERE vid = 1"),
        True,
        "stored bytes do not match",
    ),
    "ledger entry": (
        lambda c: c.execute("UPDATE ledger SET payload = '{}' WHERE seq = 3"),
        True,
        "Ledger entry 3",
    ),
    "document text": (
        lambda c: c.execute("UPDATE content SET text = 'changed' WHERE content_id = 1"),
        True,
        "hash mismatch",
    ),
}


@pytest.mark.parametrize("what", list(TAMPERS))
def test_a_tampered_archive_fails_naming_what_did_not_match(
    archive: Path, tmp_path: Path, what: str
) -> None:
    change, fix, named = TAMPERS[what]
    bad = _rewrite(archive, tmp_path / "bad.tar", change, fix_hash=fix)
    with pytest.raises(BackupInvalid, match="nothing was restored") as err:
        restore(bad, tmp_path / "target")
    assert named in str(err.value)
    assert not (tmp_path / "target").exists()
    assert not [p for p in tmp_path.iterdir() if "restoring" in p.name]  # no staging left


def test_cli_backup_and_restore(archive: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    home = tmp_path / "home"
    out = runner.invoke(app, ["backup", str(tmp_path / "cli.tar"), "--home", str(home), "--json"])
    assert out.exit_code == 0, out.output
    root = json.loads(out.output)["manifest"]["ledger"]["root"]
    out = runner.invoke(app, ["restore", str(tmp_path / "cli.tar"), "--home", str(tmp_path / "r")])
    assert out.exit_code == 0 and root in out.output
    out = runner.invoke(app, ["restore", str(tmp_path / "cli.tar"), "--home", str(tmp_path / "r")])
    assert isinstance(out.exception, RestoreTargetNotEmpty) and out.exception.exit_code == 4


# -- the archive reader against hostile archives ------------------------------------------------
LIMITS = ba.RestoreLimits(max_members=4, max_manifest_bytes=4096, max_store_bytes=2048)
_NAMES = st.sampled_from(
    [ba.MANIFEST, ba.STORE, "../store.db", "/etc/store.db", "./store.db", "a/../../x",
     "store.db/..", "manifest.json\x00x", "", "STORE.DB"]
)  # fmt: skip
_KINDS = st.sampled_from(
    [tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.DIRTYPE, tarfile.FIFOTYPE]
)
_BODY = st.one_of(st.binary(max_size=64), st.just(b"\x00" * 5000), st.just(b"{}"))


def _manifest_for(store: bytes, *, size: int | None = None) -> bytes:
    import hashlib

    m = ba.Manifest(
        "sqlite", "", "", {"default": [(1, "a" * 64, 1)]}, 0, "b" * 64, {},
        {ba.STORE: (hashlib.sha256(store).hexdigest(), len(store) if size is None else size)},
    )  # fmt: skip
    return json.dumps(m.to_json()).encode()


def _tar(members: list[tuple[str, int, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, kind, body in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind == tarfile.REGTYPE:
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
            else:
                info.linkname = "/etc/passwd" if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE) else ""
                tar.addfile(info)
    return buf.getvalue()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    members=st.lists(st.tuples(_NAMES, _KINDS, _BODY), max_size=6),
    with_manifest=st.booleans(),
)
def test_hostile_archives_are_refused_and_nothing_leaves_the_folder(
    tmp_path_factory: pytest.TempPathFactory,
    members: list[tuple[str, int, bytes]],
    with_manifest: bool,
) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    into = root / "into"
    into.mkdir()
    store = b"SQLite format 3\x00" + b"\x01" * 32
    head = [(ba.MANIFEST, tarfile.REGTYPE, _manifest_for(store))] if with_manifest else []
    path = root / "a.tar"
    path.write_bytes(_tar(head + members))
    try:
        manifest = ba.unpack(path, into, LIMITS)
    except BackupInvalid as exc:
        assert "nothing was restored" in str(exc)
    else:  # only an archive with exactly the manifest and its matching store gets through
        assert manifest.files[ba.STORE][0] and (into / ba.STORE).read_bytes() == store
    outside = {p.name for p in root.iterdir()}
    assert outside == {"into", "a.tar"}
    assert {p.name for p in into.iterdir()} <= {ba.STORE}


@pytest.mark.parametrize(
    "members, named",
    [
        ([], "manifest.json is missing"),
        ([(ba.STORE, tarfile.REGTYPE, b"x")], "manifest.json is missing"),
        ([(ba.MANIFEST, tarfile.SYMTYPE, b"")], "not a regular file"),
        ([(ba.MANIFEST, tarfile.REGTYPE, b"not json")], "not JSON"),
        ([(ba.MANIFEST, tarfile.REGTYPE, _manifest_for(b"s")), ("../x", tarfile.REGTYPE, b"")],
         "unexpected member"),
        ([(ba.MANIFEST, tarfile.REGTYPE, _manifest_for(b"s" * 3000)),
          (ba.STORE, tarfile.REGTYPE, b"s" * 3000)], "larger than the restore budget"),
        ([(ba.MANIFEST, tarfile.REGTYPE, _manifest_for(b"s"))], "missing"),
        ([(ba.MANIFEST, tarfile.REGTYPE, _manifest_for(b"s")),
          (ba.STORE, tarfile.REGTYPE, b"t")], "does not match the manifest"),
    ],
)  # fmt: skip
def test_the_reader_names_each_hostile_shape(
    tmp_path: Path, members: list[tuple[str, int, bytes]], named: str
) -> None:
    path = tmp_path / "a.tar"
    path.write_bytes(_tar(members))
    (tmp_path / "into").mkdir()
    with pytest.raises(BackupInvalid, match=named):
        ba.unpack(path, tmp_path / "into", LIMITS)


def test_a_file_that_is_not_an_archive_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.tar"
    path.write_bytes(b"\x89PNG not a tar at all" * 40)
    (tmp_path / "into").mkdir()
    with pytest.raises(BackupInvalid, match="tar archive"):
        ba.unpack(path, tmp_path / "into", LIMITS)
    shutil.rmtree(tmp_path / "into")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**70) | st.text(max_size=70),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner, max_size=5)
    ),
    max_leaves=20,
)
_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "format": st.sampled_from([ba.FORMAT, "citewise-backup/2", 1]),
        "knowledge_bases": _JSON,
        "ledger": st.one_of(_JSON, st.just({"size": 3, "root": "c" * 64})),
        "vectors": st.one_of(_JSON, st.just({})),
        "files": st.one_of(_JSON, st.just({ba.STORE: {"sha256": "d" * 64, "size": 9}})),
    },
)


@settings(max_examples=200, deadline=None)
@given(doc=st.one_of(_JSON, _FIELDS), raw=st.binary(max_size=64), use_raw=st.booleans())
def test_the_manifest_reader_gives_a_manifest_or_names_the_problem(
    doc: Any, raw: bytes, use_raw: bool
) -> None:
    """Any bytes: a checked :class:`Manifest`, or ``BackupInvalid`` (never another error)."""
    data = raw if use_raw else json.dumps(doc).encode()
    try:
        m = ba.read_manifest(data)
    except BackupInvalid as exc:
        assert "not valid" in exc.message
    else:
        assert m.files == {ba.STORE: ("d" * 64, 9)} and len(m.ledger_root) == 64
        assert all(n == i + 1 for revs in m.revisions.values() for i, (n, _, _) in enumerate(revs))
