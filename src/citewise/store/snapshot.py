"""A whole store as one SQLite database file, for backups (issue 38), and the checks of such
a file that need its tables.

An SQLite store is copied with SQLite's online backup API (one step: a consistent snapshot
even while other processes write). A PostgreSQL store is copied row for row, in one
``REPEATABLE READ`` snapshot on its own connection, into a fresh SQLite store: only the
SQLite schema's own columns are read (PostgreSQL's derived ones, the generation counter and
the pgvector column, are rebuilt where they are needed). The table list and its order are
``citewise migrate``'s (:data:`citewise.sync.migrate.TABLES` is the reverse direction);
they are repeated here so the store layer imports nothing above it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

from citewise.store._notes import NOTE_TABLE
from citewise.store._vectors import VECTOR_KEY, VECTOR_TABLE
from citewise.store.protocol import Store
from citewise.store.sqlite import SQLiteStore

#: Tables in foreign-key order (as ``citewise migrate`` copies them).
TABLES = (
    "kb",
    "revision",
    "document",
    "content",
    "version",
    "node",
    "chunk",
    "ledger",
    "checkpoint",
    "answer",
    "dense_vector",
    "note_revision",
)
_BATCH = 1000


def snapshot(store: Store, dest: Path) -> str:
    """Write ``store`` whole as the SQLite database ``dest``; returns the backend's name."""
    if isinstance(store, SQLiteStore):
        src = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True)
        dst = sqlite3.connect(dest)
        try:
            src.backup(dst)
        finally:
            dst.close()
            src.close()
        return "sqlite"
    _from_postgres(store, dest)
    return "postgresql"


def open_file(path: Path) -> Store:
    """The SQLite store in the file ``path`` (a snapshot being checked)."""
    return SQLiteStore(path)


def _from_postgres(store: Any, dest: Path) -> None:
    SQLiteStore(dest).close()  # the schema, and the default base (removed below)
    out = sqlite3.connect(dest)
    try:
        out.execute("BEGIN")
        out.execute("DELETE FROM kb")
        out.execute(VECTOR_TABLE)
        out.execute(VECTOR_KEY)
        out.execute(NOTE_TABLE)
        with store._read() as c:  # REPEATABLE READ, READ ONLY: one snapshot of every table
            for table in TABLES:
                mine = out.execute("SELECT name FROM pragma_table_info(?)", (table,))
                theirs = {
                    str(r["column_name"])
                    for r in c.execute(
                        "SELECT column_name FROM information_schema.columns WHERE "
                        "table_schema = current_schema() AND table_name = %s",
                        (table,),
                    )
                }
                if theirs:  # a table made by its first write may not exist yet
                    _copy_rows(c, out, table, [str(r[0]) for r in mine if str(r[0]) in theirs])
        out.execute("COMMIT")
    finally:
        out.close()


def _copy_rows(c: Any, out: sqlite3.Connection, table: str, cols: list[str]) -> None:
    """One table's rows; the names are both schemas' own, never data from a file."""
    from psycopg import sql  # the optional extra 'postgres' (a PostgreSQL store has it)

    query = sql.SQL("SELECT {cols} FROM {table}").format(
        cols=sql.SQL(", ").join(sql.Identifier(n) for n in cols), table=sql.Identifier(table)
    )
    names = ", ".join(f'"{n}"' for n in cols)
    insert = f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(cols))})'
    cur = c.execute(query)
    while batch := cur.fetchmany(_BATCH):
        out.executemany(insert, [tuple(_plain(r[n]) for n in cols) for r in batch])


def _plain(value: object) -> object:
    return bytes(value) if isinstance(value, memoryview | bytearray) else value


def vector_counts(db: Path) -> dict[str, int]:
    """Stored vectors per encoder fingerprint in the database file ``db``."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'dense_vector'").fetchone():
            return {}
        rows = conn.execute("SELECT fingerprint, count(*) FROM dense_vector GROUP BY fingerprint")
        return {str(f): int(n) for f, n in rows}
    finally:
        conn.close()


def bad_versions(db: Path) -> list[str]:
    """Versions in the database file ``db`` whose stored bytes do not match their sha256."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT vid, raw, raw_sha256 FROM version WHERE raw IS NOT NULL")
        return [
            f"version {vid}: stored bytes do not match their sha256"
            for vid, raw, want in rows
            if hashlib.sha256(bytes(raw)).hexdigest() != want
        ]
    finally:
        conn.close()
