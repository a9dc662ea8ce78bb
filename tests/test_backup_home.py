"""Backup and restore carry the home's governance files (issue 38): the policy file, a held
candidate in the review queue and a resolved conflict come back byte for byte on SQLite
and PostgreSQL (notes are store rows and come back too); after the restore the candidate
can still be approved and the resolution is still honoured. ``home.tar`` is read as
hostile: an unexpected name, a file that does not match the manifest or a missing one
fails the restore and leaves nothing behind."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any

import pytest

from citewise.errors import BackupInvalid
from citewise.governance import review
from citewise.governance.review import Reviewer
from citewise.kb import Home
from citewise.sync import backup_archive as ba
from citewise.sync import backup_home as bh
from citewise.sync.backup import backup, ledger_root, restore, revisions_of
from tests.backends import Backend
from tests.test_conflict_review import WHEN
from tests.test_review import set_policy, write
from tests.test_slot_conflicts import GUIDE, REPORT

pytestmark = pytest.mark.usefixtures("dense_off")

POLICY = "publication: review\npublishers: [alice]\nconflicts: degrade\n"
HELD_TEXT = "# Held\n\nThe osprey ledger is kept in the blue cabinet.\n"


def _governed(h: Home, tmp: Path) -> dict[str, bytes]:
    """A base with a resolved conflict, notes, then review mode with one held candidate;
    the home files it leaves, by name."""
    kb = h.kb()
    assert kb.add([write(tmp / "corpus", {"report.txt": REPORT, "guide.md": GUIDE})]).ok
    kb.ask(WHEN)
    (rec,) = kb.conflicts()
    kb.resolve_conflict(rec.id, "report.txt", note="the report is the record")
    kb.build_notes()
    set_policy(h.settings.home, POLICY)
    report = kb.add([write(tmp / "held", {"held.md": HELD_TEXT})])
    assert {f.code for f in report.files} == {"HELD_FOR_REVIEW"}
    names = bh.collect(h.settings.home, ["default"])
    assert "kbs/default/policy.yaml" in names
    assert any("/review/c_" in n and n.endswith("manifest.json") for n in names)
    assert any("/review/c_" in n and "/blobs/" in n for n in names)
    assert [n for n in names if "/conflicts/" in n] == [f"kbs/default/conflicts/{rec.id}.json"]
    return {n: (h.settings.home / n).read_bytes() for n in names}


def _after(home: Path, want: dict[str, bytes], store: str | None = None) -> None:
    assert {n: (home / n).read_bytes() for n in bh.collect(home, ["default"])} == want
    with Home.open(home, store=store) as got:
        kb = got.kb()
        answer = kb.ask(WHEN)  # the resolution is honoured after the restore
        assert answer.degradation != "conflict"
        assert {c.path for c in answer.citations} == {"report.txt"}
        (candidate,) = review.queue(kb.context)
        review.approve(kb.context, candidate.id, Reviewer("alice"))
        assert "osprey" in kb.search("osprey ledger cabinet", mode="lexical").hits[0].excerpt


def test_governance_files_survive_backup_and_restore(backend: Backend, tmp_path: Path) -> None:
    h = backend.open(tmp_path / "home")
    try:
        want = _governed(h, tmp_path)
        facts = revisions_of(h.store), ledger_root(h.store)
        notes = [n.topic for n in h.kb().notes()]
        report = backup(h.store, tmp_path / "kb.tar.gz", h.settings.home)
    finally:
        h.close()
    listed = report.manifest["home_files"]
    assert sorted(listed) == sorted(want)
    assert all(v["sha256"] == hashlib.sha256(want[n]).hexdigest() for n, v in listed.items())
    done = restore(tmp_path / "kb.tar.gz", tmp_path / "restored")
    assert "home files" in done.checked
    with Home.open(tmp_path / "restored") as got:
        assert (revisions_of(got.store), ledger_root(got.store)) == facts
        assert [n.topic for n in got.kb().notes()] == notes
    _after(tmp_path / "restored", want)
    if backend.cluster is not None:  # the same archive into an empty PostgreSQL database
        url = backend.cluster.create_database(f"homefiles_{os.getpid()}_{id(want)}")
        restore(tmp_path / "kb.tar.gz", tmp_path / "pg-home", url)
        _after(tmp_path / "pg-home", want, url)


# -- home.tar read as hostile ------------------------------------------------------------------
@pytest.fixture
def archive(tmp_path: Path) -> Path:
    with Home.open(tmp_path / "home") as h:
        _governed(h, tmp_path)
        backup(h.store, tmp_path / "kb.tar", h.settings.home)
    return tmp_path / "kb.tar"


def _members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]


def _tar(members: list[tuple[str, bytes]], kind: bytes = tarfile.REGTYPE) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, body in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind == tarfile.REGTYPE:
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
            else:
                info.linkname = "/etc/passwd"
                tar.addfile(info)
    return buf.getvalue()


def _with_home(archive: Path, out: Path, inner: bytes, listed: dict[str, Any] | None) -> Path:
    """``archive`` with ``home.tar`` replaced (its outer hash fixed, so only the inner checks
    can catch it) and, when given, ``home_files`` replaced."""
    parts = _members(archive)
    manifest = json.loads(parts[ba.MANIFEST])
    manifest["files"][bh.HOME] = {"sha256": hashlib.sha256(inner).hexdigest(), "size": len(inner)}
    if listed is not None:
        manifest["home_files"] = listed
    body = json.dumps(manifest).encode()
    out.write_bytes(_tar([(ba.MANIFEST, body), (ba.STORE, parts[ba.STORE]), (bh.HOME, inner)]))
    return out


def _entry(body: bytes) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}


POLICY_NAME = "kbs/default/policy.yaml"


@pytest.mark.parametrize(
    ("inner", "listed", "named"),
    [
        (_tar([(POLICY_NAME, b"publication: open\n")]), None, "does not match the manifest"),
        (_tar([("../escape.yaml", b"x")]), {}, "unexpected home file"),
        (_tar([("kbs/default/keys.yaml", b"x")]), {}, "unexpected home file"),
        (_tar([("kbs/other/policy.yaml", b"x")]), {"kbs/other/policy.yaml": _entry(b"x")},
         "not backed up"),
        (_tar([(POLICY_NAME, b"")], tarfile.SYMTYPE), {POLICY_NAME: _entry(b"")},
         "not a regular file"),
        (_tar([(POLICY_NAME, b"a"), (POLICY_NAME, b"a")]), {POLICY_NAME: _entry(b"a")},
         "appears twice"),
        (_tar([]), {POLICY_NAME: _entry(b"a")}, "are missing"),
    ],
)  # fmt: skip
def test_a_tampered_home_tar_fails_and_leaves_nothing(
    archive: Path, tmp_path: Path, inner: bytes, listed: dict[str, Any] | None, named: str
) -> None:
    bad = _with_home(archive, tmp_path / "bad.tar", inner, listed)
    with pytest.raises(BackupInvalid, match="nothing was restored") as err:
        restore(bad, tmp_path / "target")
    assert named in str(err.value)
    assert not (tmp_path / "target").exists()
    assert not [p for p in tmp_path.iterdir() if "restoring" in p.name]


def test_the_manifest_names_only_allowed_home_files() -> None:
    assert bh.allowed("kbs/default/policy.yaml") == "default"
    assert bh.allowed(f"kbs/a-b/review/q_{'0' * 16}/blobs/{'f' * 64}") == "a-b"
    assert bh.allowed(f"kbs/a/conflicts/k_{'1' * 16}.json") == "a"
    for name in (
        "keys/audit_ed25519",
        "kbs/default/../policy.yaml",
        "/kbs/default/policy.yaml",
        f"kbs/default/review/.tmp-c_{'0' * 16}/manifest.json",
        "kbs/Default/policy.yaml",
        "conversations/x.json",
    ):
        assert bh.allowed(name) is None, name
