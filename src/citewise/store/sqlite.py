"""The embedded SQLite backend of the :class:`~citewise.store.protocol.Store` protocol
(its :class:`~citewise.store.protocol.Ledger` is :class:`~citewise.store._ledger.SQLiteLedger`).

One database file per home directory, WAL journal, ``synchronous=FULL``,
foreign keys on. Every write is one explicit ``BEGIN IMMEDIATE`` ... ``COMMIT``
transaction, so a file is ingested whole or not at all, and a process killed
mid-ingest leaves the previous consistent state (the same ingest completes on
re-run). The schema is in ``schema.sql`` beside this module.
"""

from __future__ import annotations

import importlib.resources
import logging
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.core.records import ParsedDocument
from citewise.errors import (
    StoreError,
)
from citewise.store import _convert as cv
from citewise.store import _ledger as sqlite_ledger
from citewise.store._at_revision import SQLRevisionReads
from citewise.store._lookup import SQLiteLookup
from citewise.store._near import SQLiteNear
from citewise.store._node_cache import NodeCache
from citewise.store._notes import SQLNotes
from citewise.store._rebuild import to_rowid_tables
from citewise.store._resolve import SQLiteResolve
from citewise.store._vectors import SQLiteVectors
from citewise.store._window_cache import WindowCache
from citewise.store._withhold import SQLWithhold
from citewise.store._writes import DEFAULT_KB, SQLWrites

#: 3: ``node``, ``chunk`` and ``dense_vector`` are rowid tables (store/_rebuild.py);
#: 2: the audit tables.
SCHEMA_VERSION = 3
log = logging.getLogger("citewise.store")
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


def _ensure_accelerators(c: sqlite3.Connection) -> None:
    """Read accelerators added without a version bump: :data:`NODE_BY_START` (see
    store/_near.py) and the stored change counter (:data:`GENERATION_DDL`)."""
    if not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'node_by_start'").fetchone():
        c.execute(NODE_BY_START)
    _ensure_generation(c)


def _ensure_generation(c: sqlite3.Connection) -> None:
    """Create the stored change counter (:data:`GENERATION_DDL`) unless it exists."""
    if not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'kb_generation'").fetchone():
        for statement in GENERATION_DDL:
            c.execute(statement)


def _compact(conn: sqlite3.Connection, path: Path) -> None:
    """VACUUM once after the schema-3 rebuild, which left the old tables' pages free inside
    the file (reused, but not returned to the disk). Not needed for correctness: a failure
    (say, no room for the temporary copy) is logged and the store opens as it is."""
    try:
        conn.execute("VACUUM")
    except sqlite3.Error as exc:
        log.warning("Could not compact %s after upgrading it: %s. Run VACUUM later.", path, exc)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class SQLiteStore(
    SQLiteResolve,
    SQLiteLookup,
    SQLiteNear,
    SQLiteVectors,
    SQLWrites,
    SQLRevisionReads,
    SQLNotes,
    SQLWithhold,
):
    """``SQLiteStore(home / "citewise.db")``; thread-safe via one lock per store."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._node_cache = NodeCache()
        self._window_cache = WindowCache()
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
            if self._migrate():
                _compact(conn, self.path)
            self._ensure_default()
        except BaseException:
            conn.close()
            raise

    # -- plumbing ------------------------------------------------------------
    def _migrate(self) -> bool:
        """Bring the file to :data:`SCHEMA_VERSION`; whether tables were rebuilt."""
        with self._write() as c:
            version = int(c.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"The store at {self.path} has schema version {version}, newer than "
                    f"this citewise supports ({SCHEMA_VERSION}).",
                    hint="Upgrade citewise to open it; it was not modified.",
                )
            if version == SCHEMA_VERSION:
                _ensure_accelerators(c)
                return False
            if version in (1, 2):
                if version == 1:  # version 2 only added the audit tables
                    for statement in _schema_statements():
                        if "IF NOT EXISTS" in statement:
                            c.execute(statement)
                rebuilt = to_rowid_tables(c, _schema_statements())  # version 3: _rebuild.py
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                _ensure_accelerators(c)
                return bool(rebuilt)
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
        return False

    def _ensure_default(self) -> None:
        with self._write() as c:
            c.execute(
                "INSERT OR IGNORE INTO kb(name, description, created_at) VALUES (?, ?, ?)",
                (DEFAULT_KB, "The default knowledge base.", _now()),
            )

    def _forget_contents(self) -> None:
        self._node_cache.clear()
        self._window_cache.clear()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- revisions (batches and opening them: store/_revisions.py) ------------------
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

    # -- ingest and delete (store/_writes.py): how this backend stores content -----
    def _store_content(
        self, c: sqlite3.Connection, doc_id: str, content_sha: str, parsed: ParsedDocument
    ) -> int:
        return cv.insert_content(c, doc_id, content_sha, parsed)

    @staticmethod
    def _insert_id(c: sqlite3.Connection, column: str, sql: str, args: tuple[Any, ...]) -> int:
        rowid = c.execute(sql, args).lastrowid
        assert rowid is not None
        return rowid


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
