"""The embedded SQLite backend of the :class:`~citewise.store.protocol.Store` protocol
(its :class:`~citewise.store.protocol.Ledger` is :class:`~citewise.store._ledger.SQLiteLedger`).

One database file per home directory, WAL journal, ``synchronous=FULL``,
foreign keys on. Every write is one explicit ``BEGIN IMMEDIATE`` ... ``COMMIT``
transaction, so a file is ingested whole or not at all, and a process killed
mid-ingest leaves the previous consistent state (the same ingest completes on
re-run). The schema is in ``schema.sql`` beside this module.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from citewise.errors import (
    DocumentNotFound,
    KBExists,
    KBInUse,
    KBIsDefault,
    StoreError,
    UsageError,
    VersionNotFound,
)
from citewise.ingest.models import ParsedDocument, stable_id
from citewise.store import _convert as cv
from citewise.store import _ledger as sqlite_ledger
from citewise.store import adhash, checks
from citewise.store._lookup import SQLiteLookup
from citewise.store._near import SQLiteNear
from citewise.store._resolve import SQLiteResolve
from citewise.store.models import IngestAction, IngestOutcome, KBInfo, RevisionInfo

SCHEMA_VERSION = 2
NODE_BY_START = "CREATE INDEX IF NOT EXISTS node_by_start ON node(content_id, char_start)"
#: The stored change counter read by ``generation`` (a COUNT over every version cost a
#: fifth of a search at 5k documents): bumped by a trigger in the transaction of every
#: version row, i.e. of every add, change, revert and delete. Added without a schema
#: version bump (older citewise ignores it; the trigger keeps counting for them too).
GENERATION_DDL = (
    "CREATE TABLE kb_generation (kb TEXT PRIMARY KEY REFERENCES kb(name) ON DELETE CASCADE, "
    "n INTEGER NOT NULL)",
    "INSERT INTO kb_generation(kb, n) SELECT d.kb, count(*) FROM version v "
    "JOIN document d ON d.doc_id = v.doc_id GROUP BY d.kb",
    "CREATE TRIGGER version_bumps_generation AFTER INSERT ON version BEGIN "
    "INSERT INTO kb_generation(kb, n) SELECT kb, 1 FROM document WHERE doc_id = NEW.doc_id "
    "ON CONFLICT(kb) DO UPDATE SET n = n + 1; END",
)
DEFAULT_KB = "default"


def _ensure_generation(c: sqlite3.Connection) -> None:
    """Create the stored change counter (:data:`GENERATION_DDL`) unless it exists."""
    if not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'kb_generation'").fetchone():
        for statement in GENERATION_DDL:
            c.execute(statement)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class SQLiteStore(SQLiteResolve, SQLiteLookup, SQLiteNear):
    """``SQLiteStore(home / "citewise.db")``; thread-safe via one lock per store."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        # kb -> revision opened by the current batch (None until its first change).
        self._batches: dict[str, int | None] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=30.0
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"Cannot open the store at {self.path}: {exc}.",
                hint="Check that the home directory exists and is writable.",
            ) from exc
        conn.row_factory = sqlite3.Row
        self._conn = conn
        self.ledger = sqlite_ledger.SQLiteLedger(conn, self._lock)
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            conn.execute("PRAGMA synchronous = FULL")
            self._migrate()
            self._ensure_default()
        except BaseException:
            conn.close()
            raise

    # -- plumbing ------------------------------------------------------------
    def _migrate(self) -> None:
        with self._write() as c:
            version = int(c.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"The store at {self.path} has schema version {version}, newer than "
                    f"this citewise supports ({SCHEMA_VERSION}).",
                    hint="Upgrade citewise to open it; it was not modified.",
                )
            if version == SCHEMA_VERSION:
                # Read accelerators added without a version bump (see store/_near.py).
                if not c.execute(
                    "SELECT 1 FROM sqlite_master WHERE name = 'node_by_start'"
                ).fetchone():
                    c.execute(NODE_BY_START)
                _ensure_generation(c)
                return
            if version == 1:  # version 2 only added the audit tables
                for statement in _schema_statements():
                    if "IF NOT EXISTS" in statement:
                        c.execute(statement)
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                _ensure_generation(c)
                return
            tables = c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise StoreError(
                    f"{self.path} is an SQLite database but not a citewise store.",
                    hint="Point citewise at another home directory.",
                )
            for statement in _schema_statements():
                c.execute(statement)
            c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            _ensure_generation(c)

    def _ensure_default(self) -> None:
        with self._write() as c:
            c.execute(
                "INSERT OR IGNORE INTO kb(name, description, created_at) VALUES (?, ?, ?)",
                (DEFAULT_KB, "The default knowledge base.", _now()),
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- knowledge bases -----------------------------------------------------
    def create_kb(self, name: str, description: str = "") -> KBInfo:
        checks.check_kb_name(name)
        with self._write() as c:
            if c.execute("SELECT 1 FROM kb WHERE name = ?", (name,)).fetchone():
                raise KBExists(
                    f"Knowledge base {name!r} already exists.",
                    hint="Pick another name, or use the existing one.",
                )
            c.execute(
                "INSERT INTO kb(name, description, created_at) VALUES (?, ?, ?)",
                (name, description, _now()),
            )
        return self.get_kb(name)

    def update_kb(self, name: str, description: str) -> KBInfo:
        with self._write() as c:
            self._require_kb(c, name)
            c.execute("UPDATE kb SET description = ? WHERE name = ?", (description, name))
        return self.get_kb(name)

    def delete_kb(self, name: str, *, force: bool = False) -> None:
        checks.check_kb_name(name)
        if name == DEFAULT_KB:
            raise KBIsDefault(
                "The default knowledge base cannot be deleted.",
                hint="Delete its documents instead, or create and use another base.",
            )
        with self._write() as c:
            self._require_kb(c, name)
            held = self._current_count(c, name)
            if held and not force:
                raise KBInUse(
                    f"Knowledge base {name!r} still holds {held} document(s).",
                    hint="Delete the documents first, or force the deletion (--force) "
                    "to remove the base with all its history.",
                )
            c.execute("DELETE FROM kb WHERE name = ?", (name,))
            self._batches.pop(name, None)
            sqlite_ledger.append_entry(c, "kb_delete", {"kb": name, "documents": held}, kb=name)

    # -- batches and revisions -------------------------------------------------
    def begin_batch(self, kb: str) -> None:
        with self._write() as c:
            self._require_kb(c, kb)
            if kb in self._batches:
                raise UsageError(
                    f"A batch is already open for {kb!r}.",
                    hint="End it (end_batch) before beginning another.",
                )
            # A batch cut short by a crash left an unsealed revision: seal it now.
            c.execute(
                "UPDATE revision SET sealed_at = ? WHERE kb = ? AND sealed_at IS NULL",
                (_now(), kb),
            )
            self._batches[kb] = None

    def end_batch(self, kb: str) -> RevisionInfo | None:
        with self._write() as c:
            self._require_kb(c, kb)
            if kb not in self._batches:
                return None
            rev = self._batches.pop(kb)
            if rev is None:
                return None
            c.execute(
                "UPDATE revision SET sealed_at = ? WHERE kb = ? AND revision = ? "
                "AND sealed_at IS NULL",
                (_now(), kb, rev),
            )
            row = c.execute(
                "SELECT * FROM revision WHERE kb = ? AND revision = ?", (kb, rev)
            ).fetchone()
        return None if row is None else cv.revision_info(row)

    def _open_revision(self, c: sqlite3.Connection, kb: str) -> int:
        """The revision this change belongs to, creating revision N+1 if needed."""
        head = c.execute(
            "SELECT * FROM revision WHERE kb = ? ORDER BY revision DESC LIMIT 1", (kb,)
        ).fetchone()
        wanted = self._batches.get(kb)
        if (
            wanted is not None
            and head is not None
            and head["revision"] == wanted
            and head["sealed_at"] is None
        ):
            return wanted
        now = _now()
        c.execute("UPDATE revision SET sealed_at = ? WHERE kb = ? AND sealed_at IS NULL", (now, kb))
        number = 1 if head is None else head["revision"] + 1
        c.execute(
            "INSERT INTO revision(kb, revision, hash, document_count, created_at, sealed_at) "
            "VALUES (?, ?, ?, ?, ?, NULL)",
            (
                kb,
                number,
                adhash.EMPTY_HASH if head is None else head["hash"],
                0 if head is None else head["document_count"],
                now,
            ),
        )
        if kb in self._batches:
            self._batches[kb] = number
        parent = adhash.EMPTY_HASH if head is None else head["hash"]
        sqlite_ledger.append_entry(
            c, "revision", {"kb": kb, "revision": number, "parent_hash": parent}, kb=kb
        )
        return number

    def _finish_change(
        self, c: sqlite3.Connection, kb: str, rev: int, hash_hex: str, count_delta: int
    ) -> None:
        c.execute(
            "UPDATE revision SET hash = ?, document_count = document_count + ? "
            "WHERE kb = ? AND revision = ?",
            (hash_hex, count_delta, kb, rev),
        )
        if kb not in self._batches:  # a change outside a batch is its own revision
            c.execute(
                "UPDATE revision SET sealed_at = ? WHERE kb = ? AND revision = ?",
                (_now(), kb, rev),
            )

    # -- ingest ------------------------------------------------------------------
    def ingest_document(
        self,
        kb: str,
        path: str,
        raw: bytes,
        parsed: ParsedDocument,
        *,
        source: str = "",
        restored_from: int | None = None,
    ) -> IngestOutcome:
        checks.check_doc_path(path)
        checks.check_parsed(parsed)
        content_sha = parsed.content_sha256
        raw_sha = hashlib.sha256(raw).hexdigest()
        doc_id = stable_id("d", kb, path)
        with self._write() as c:
            self._require_kb(c, kb)
            head = self._head(c, doc_id)
            live = head is not None and head["action"] != "deleted"
            if restored_from is not None:
                self._require_restorable(c, doc_id, path, restored_from)
            if (
                head is not None
                and live
                and head["content_sha256"] == content_sha
                and head["raw_sha256"] == raw_sha
            ):
                return IngestOutcome(
                    "unchanged",
                    doc_id,
                    path,
                    head["version_no"],
                    self._head_revision(c, kb),
                    head["node_count"],
                    head["chunk_count"],
                )
            action: IngestAction = (
                "reverted" if restored_from is not None else "changed" if live else "added"
            )
            rev = self._open_revision(c, kb)
            now = _now()
            if head is None:
                c.execute(
                    "INSERT OR IGNORE INTO document(doc_id, kb, path, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    (doc_id, kb, path, now),
                )
            content_id = self._store_content(c, doc_id, content_sha, parsed)
            hash_hex = self._revision_hash(c, kb, rev)
            delta = 1
            if head is not None and live:
                c.execute("UPDATE version SET rev_removed = ? WHERE vid = ?", (rev, head["vid"]))
                hash_hex = adhash.remove(hash_hex, path, head["content_sha256"])
                delta = 0
            version_no = 1 if head is None else head["version_no"] + 1
            cur = c.execute(
                "INSERT INTO version(doc_id, version_no, action, content_id, content_sha256, "
                "raw, raw_sha256, size_bytes, format, title, metadata_json, source, "
                "restored_from, rev_added, rev_removed, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                (
                    doc_id,
                    version_no,
                    action,
                    content_id,
                    content_sha,
                    raw,
                    raw_sha,
                    len(raw),
                    parsed.format,
                    parsed.title,
                    cv.dumps(parsed.metadata),
                    source,
                    restored_from,
                    rev,
                    now,
                ),
            )
            c.execute("UPDATE document SET head_vid = ? WHERE doc_id = ?", (cur.lastrowid, doc_id))
            hash_hex = adhash.add(hash_hex, path, content_sha)
            self._finish_change(c, kb, rev, hash_hex, delta)
            event = {
                "kb": kb,
                "path": path,
                "doc_id": doc_id,
                "action": action,
                "version": version_no,
                "content_sha256": content_sha,
                "raw_sha256": raw_sha,
                "size_bytes": len(raw),
                "revision": rev,
                "revision_hash": hash_hex,
                "restored_from": restored_from,
            }
            sqlite_ledger.append_entry(
                c, "revert" if action == "reverted" else "ingest", event, kb=kb
            )
        return IngestOutcome(
            action, doc_id, path, version_no, rev, len(parsed.nodes), len(parsed.chunks)
        )

    def _store_content(
        self, c: sqlite3.Connection, doc_id: str, content_sha: str, parsed: ParsedDocument
    ) -> int:
        return cv.insert_content(c, doc_id, content_sha, parsed)

    def delete_document(self, kb: str, path: str) -> IngestOutcome:
        doc_id = stable_id("d", kb, path)
        with self._write() as c:
            self._require_kb(c, kb)
            head = self._head(c, doc_id)
            if head is None or head["action"] == "deleted":
                raise DocumentNotFound(
                    f"No current document {path!r} in knowledge base {kb!r}.",
                    hint="List documents to check the path; deleted documents keep their history.",
                )
            rev = self._open_revision(c, kb)
            c.execute("UPDATE version SET rev_removed = ? WHERE vid = ?", (rev, head["vid"]))
            cur = c.execute(
                "INSERT INTO version(doc_id, version_no, action, rev_added, rev_removed, "
                "created_at) VALUES (?, ?, 'deleted', ?, ?, ?)",
                (doc_id, head["version_no"] + 1, rev, rev, _now()),
            )
            c.execute("UPDATE document SET head_vid = ? WHERE doc_id = ?", (cur.lastrowid, doc_id))
            hash_hex = adhash.remove(self._revision_hash(c, kb, rev), path, head["content_sha256"])
            self._finish_change(c, kb, rev, hash_hex, -1)
            event = {
                "kb": kb,
                "path": path,
                "doc_id": doc_id,
                "version": head["version_no"] + 1,
                "removed_content_sha256": head["content_sha256"],
                "revision": rev,
                "revision_hash": hash_hex,
            }
            sqlite_ledger.append_entry(c, "delete", event, kb=kb)
        return IngestOutcome("deleted", doc_id, path, head["version_no"] + 1, rev, 0, 0)

    def _require_restorable(
        self, c: sqlite3.Connection, doc_id: str, path: str, version_no: int
    ) -> None:
        row = c.execute(
            "SELECT action FROM version WHERE doc_id = ? AND version_no = ?", (doc_id, version_no)
        ).fetchone()
        if row is None or row["action"] == "deleted":
            raise VersionNotFound(
                f"{path!r} has no version {version_no} with content to restore.",
                hint="List the document's versions to pick one.",
            )

    @staticmethod
    def _revision_hash(c: sqlite3.Connection, kb: str, rev: int) -> str:
        row = c.execute(
            "SELECT hash FROM revision WHERE kb = ? AND revision = ?", (kb, rev)
        ).fetchone()
        if row is None:
            raise StoreError(f"Revision {rev} of {kb!r} vanished mid-transaction.")
        return str(row[0])


def _schema_statements() -> list[str]:
    script = importlib.resources.files("citewise.store").joinpath("schema.sql").read_text("utf-8")
    statements: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            statements.append(buf.strip())
            buf = ""
    if buf.strip():
        raise StoreError("schema.sql ends with an incomplete statement.")
    return statements
