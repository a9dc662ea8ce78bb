"""``citewise backup PATH`` / ``citewise restore PATH`` (issue 38): one archive holding the
whole store (documents with every version's bytes, revisions, the ledger with its
checkpoints and saved answers, the stored vectors) and a manifest of the hashes a restore
must reproduce.

The store travels as one SQLite database whatever the backend: an SQLite store is copied
with SQLite's online backup API (a consistent snapshot while others read and write); a
PostgreSQL store is copied row for row, in one ``REPEATABLE READ`` snapshot, into a fresh
SQLite store (:mod:`citewise.store.snapshot`). So every archive restores into either backend:
into a home's own ``citewise.db``, or through the checked copy of ``citewise migrate`` into
an empty PostgreSQL database.

A restore verifies before it succeeds: every member's sha256 and size (while unpacking,
:mod:`citewise.sync.backup_archive`), then, on the unpacked store, every revision's hash
and count against the manifest and recomputed from its membership, every stored version's
bytes against their sha256, every node against its text, and the ledger's leaves and Merkle
root. Only then is the store put in place, in one rename (SQLite) or one transaction
(PostgreSQL); a failure leaves the target as it was.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.core import merkle
from citewise.errors import BackupInvalid, RestoreTargetNotEmpty, StoreError, UsageError
from citewise.store import snapshot
from citewise.store.factory import DB_NAME, parse_location
from citewise.store.protocol import Store
from citewise.sync import backup_home
from citewise.sync.backup_archive import (
    STORE,
    Manifest,
    RestoreLimits,
    unpack,
    write_archive,
)
from citewise.sync.migrate import migrate_store


@dataclass(frozen=True, slots=True)
class BackupReport:
    path: str
    manifest: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RestoreReport:
    home: str
    store: str  # where the store now is (the home's citewise.db, or the database)
    knowledge_bases: dict[str, int]  # name -> revisions restored
    ledger_size: int
    ledger_root: str
    checked: tuple[str, ...]


# -- what the manifest records, read from a store --------------------------------------------
def ledger_root(store: Store) -> tuple[int, str]:
    """The ledger's size and Merkle root, recomputed from the stored entries (an entry whose
    stored hash differs from its recomputed one is refused)."""
    leaves = []
    for seq, leaf, stored, _, _ in store.ledger.iter_leaves():
        if leaf.hex() != stored:
            raise BackupInvalid(f"Ledger entry {seq} does not match its stored hash.")
        leaves.append(leaf)
    return len(leaves), merkle.root(leaves).hex()


def revisions_of(store: Store) -> dict[str, list[tuple[int, str, int]]]:
    return {
        kb.name: [(r.revision, r.hash, r.document_count) for r in store.list_revisions(kb.name)]
        for kb in store.list_kbs()
    }


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1024 * 1024):
            digest.update(block)
    return digest.hexdigest()


# -- backup ------------------------------------------------------------------------------
def _os_error(what: str, exc: OSError) -> StoreError:
    return StoreError(
        f"Cannot {what}: {exc.strerror or exc} ({exc.filename or ''}).",
        hint="Check the folder exists, is writable and has room; nothing was left half-written.",
    )


def backup(store: Store, dest: Path, home: Path | None = None) -> BackupReport:
    """Write the archive of ``store`` at ``dest`` (refused when ``dest`` exists); with
    ``home``, the governance files its knowledge bases keep there too (``home.tar``:
    policy files, review queues, conflict records; sync/backup_home.py)."""
    try:
        return _backup(store, Path(dest).expanduser(), home)
    except OSError as exc:
        raise _os_error(f"write the backup {dest}", exc) from None


def _backup(store: Store, dest: Path, home: Path | None) -> BackupReport:
    from citewise import installed_version

    if dest.exists():
        raise UsageError(f"{dest} already exists.", hint="Give a new file name for the backup.")
    if not dest.parent.is_dir():
        raise UsageError(f"No folder {dest.parent}.", hint="Create it, or choose another path.")
    with tempfile.TemporaryDirectory(prefix=".citewise-backup-", dir=dest.parent) as tmp:
        db = Path(tmp) / STORE
        backend = snapshot.snapshot(store, db)
        copy = snapshot.open_file(db)  # the manifest is read from the copy, not the live store
        try:
            size, root = ledger_root(copy)
            revisions = revisions_of(copy)
        finally:
            copy.close()
        manifest = Manifest(
            backend=backend,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            version=installed_version(),
            revisions=revisions,
            ledger_size=size,
            ledger_root=root,
            vectors=snapshot.vector_counts(db),
            files={STORE: (_sha256(db), db.stat().st_size)},
        )
        inner = _pack_home(home, list(revisions), Path(tmp))
        if inner is not None:
            listed = backup_home.pack(home or Path(), inner[1], inner[0])
            files = manifest.files | {
                backup_home.HOME: (_sha256(inner[0]), inner[0].stat().st_size)
            }
            manifest = replace(manifest, files=files, home_files=listed)
        write_archive(dest, manifest, db, None if inner is None else inner[0])
    return BackupReport(str(dest), manifest.to_json())


def _pack_home(home: Path | None, kbs: list[str], tmp: Path) -> tuple[Path, list[str]] | None:
    """Where ``home.tar`` goes and the home files it holds; None when there are none."""
    names = backup_home.collect(home, kbs) if home is not None else []
    return (tmp / backup_home.HOME, names) if names else None


# -- restore -----------------------------------------------------------------------------
def check_store(db: Path, manifest: Manifest) -> list[str]:
    """What in the unpacked store does not match the manifest or its own hashes (empty:
    all of it does)."""
    problems: list[str] = []
    try:
        store = snapshot.open_file(db)
    except StoreError as exc:
        return [f"the store does not open ({exc.message})"]
    try:
        got = revisions_of(store)
        for kb in sorted(set(got) | set(manifest.revisions)):
            if got.get(kb) != manifest.revisions.get(kb):
                problems.append(f"the revisions of knowledge base {kb!r} differ from the manifest")
        problems += store.integrity_check()
        try:
            size, root = ledger_root(store)
        except BackupInvalid as exc:
            problems.append(exc.message)
        else:
            if (size, root) != (manifest.ledger_size, manifest.ledger_root):
                problems.append("the ledger's size or Merkle root differs from the manifest")
    finally:
        store.close()
    problems += snapshot.bad_versions(db)
    if snapshot.vector_counts(db) != manifest.vectors:
        problems.append("the stored vectors differ from the manifest's counts")
    return problems


def _require_empty_home(home: Path) -> None:
    if home.exists() and (not home.is_dir() or any(home.iterdir())):
        raise RestoreTargetNotEmpty(
            f"The home {home} is not empty; a restore writes only into an empty home.",
            hint="Restore into a new folder (citewise --home NEW restore ARCHIVE), or move "
            "this one aside first.",
        )


def _require_empty_database(url: str) -> None:
    """The PostgreSQL target holds nothing but the empty default base its opening made."""
    from citewise.store.factory import open_store

    db = open_store(url)
    try:
        kbs = db.list_kbs()
        empty = not db.ledger.ledger_size() and [(k.name, k.revision) for k in kbs] == [
            ("default", 0)
        ]
    finally:
        db.close()
    if not empty:
        raise RestoreTargetNotEmpty(
            "The target database already holds a citewise store; a restore writes only into "
            "an empty one.",
            hint="Create a new database (createdb citewise2) and restore into it.",
        )


def restore(archive: Path, home: Path, store: str | None = None) -> RestoreReport:
    """Restore ``archive`` into the empty ``home`` (its own ``citewise.db``), or into the
    empty PostgreSQL database ``store``, after verifying every hash."""
    try:
        return _restore(Path(archive).expanduser(), Path(home).expanduser(), store)
    except OSError as exc:
        raise _os_error(f"restore into {home}", exc) from None


def _restore_home_files(staging: Path, manifest: Manifest) -> tuple[str, ...]:
    """Unpack ``home.tar`` (when the archive has one) into the staged home, each file
    checked against the manifest; what was checked."""
    if backup_home.HOME not in manifest.files:
        return ()
    inner = staging / backup_home.HOME
    cap = RestoreLimits.from_env().max_store_bytes
    backup_home.unpack_home(inner, staging, manifest.home_files, set(manifest.revisions), cap)
    inner.unlink()
    return ("home files",)


def _restore(archive: Path, home: Path, store: str | None) -> RestoreReport:
    if not archive.is_file():
        raise UsageError(f"No backup archive at {archive}.", hint="Give the file backup wrote.")
    target = parse_location(store) if store else None
    if target is not None and target.backend == "sqlite":
        raise UsageError(
            "restore writes an SQLite store into the home's own citewise.db.",
            hint="Leave --store out (and give an empty --home), or give a PostgreSQL URL.",
        )
    _require_empty_home(home)
    if target is not None:
        _require_empty_database(target.target)
    home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{home.name}.restoring-", dir=home.parent))
    try:
        manifest = unpack(archive, staging, RestoreLimits.from_env())
        db = staging / STORE
        problems = check_store(db, manifest)
        if problems:
            raise BackupInvalid(
                "The backup does not match its manifest: "
                + "; ".join(problems[:5])
                + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
                + "; nothing was restored.",
                hint="Restore from another copy of the archive.",
            )
        checked: tuple[str, ...] = ("file hashes", "revision hashes", "version bytes", "nodes")
        checked += ("ledger root", *_restore_home_files(staging, manifest))
        if target is not None:
            migrate_store(f"sqlite:{db}", target.target)  # one transaction, checked again
            db.unlink()
            where = "postgresql"
        else:
            db.rename(staging / DB_NAME)
            where = str(home / DB_NAME)
        _require_empty_home(home)  # nothing appeared meanwhile
        if home.exists():
            home.rmdir()
        staging.rename(home)  # the home appears whole, in one step
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return RestoreReport(
        str(home),
        where,
        {kb: len(revs) for kb, revs in manifest.revisions.items()},
        manifest.ledger_size,
        manifest.ledger_root,
        checked,
    )
