"""Schema 3 of the SQLite store: tables whose rows outgrow an index b-tree leaf, rebuilt as
ordinary rowid tables with their key as a UNIQUE constraint.

A ``WITHOUT ROWID`` table is an index b-tree: a row keeps about 1 KB inline (on a 4 KB page)
and the rest goes to an overflow page of its own, so a 1.5 KB vector took 4.7 KB on disk and
a 2 KB paragraph node about 4.6 KB. A rowid table keeps up to about 4 KB inline. Rebuilt:
``dense_vector`` (1,536-byte vectors), ``node`` (paragraph text and its search text, 2.2 KB
a row on SciFact) and ``chunk`` (1.7 KB). Lookups and ``INSERT OR IGNORE`` are unchanged:
the UNIQUE index holds the same key. ``revision`` rows (about 150 bytes) stay as they are.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from citewise.store._vectors import VECTOR_KEY, VECTOR_TABLE

#: The tables schema 3 rebuilds when an older store made them ``WITHOUT ROWID``.
ROWID_TABLES = ("node", "chunk", "dense_vector")


def _is_without_rowid(c: sqlite3.Connection, table: str) -> bool:
    row = c.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    return row is not None and "WITHOUT ROWID" in str(row[0]).upper()


def rebuild_as_rowid(
    c: sqlite3.Connection, table: str, create: str, indexes: Sequence[str]
) -> None:
    """Copy ``table`` into a new table made by ``create`` (its DDL under the same name),
    drop the old one (and its indexes), rename the new one and make ``indexes``. The caller
    holds the write transaction: a crash anywhere leaves the old table as it was."""
    new = f"{table}_rowid"
    ddl, made = re.subn(
        rf"^CREATE TABLE (IF NOT EXISTS )?{table}\b", f"CREATE TABLE {new}", create.strip()
    )
    if made != 1:
        raise ValueError(f"not the DDL of table {table}: {create[:60]!r}")
    cols = ", ".join(str(r[1]) for r in c.execute(f"PRAGMA table_info({table})"))
    c.execute(ddl)
    c.execute(f"INSERT INTO {new} ({cols}) SELECT {cols} FROM {table}")
    c.execute(f"DROP TABLE {table}")
    c.execute(f"ALTER TABLE {new} RENAME TO {table}")
    for statement in indexes:
        c.execute(statement)


def _schema_parts(schema: Sequence[str], table: str) -> tuple[str, list[str]]:
    """The CREATE TABLE statement of ``table`` in ``schema`` and its CREATE INDEX ones."""
    create = [s for s in schema if re.match(rf"CREATE TABLE {table}\b", s)]
    indexes = [
        s
        for s in schema
        if re.match(rf"CREATE (UNIQUE )?INDEX (IF NOT EXISTS )?\w+ ON {table}\(", s)
    ]
    if len(create) != 1:
        raise ValueError(f"schema.sql has no single CREATE TABLE {table}")
    return create[0], indexes


def to_rowid_tables(c: sqlite3.Connection, schema: Sequence[str]) -> list[str]:
    """Rebuild each of :data:`ROWID_TABLES` that an older store made ``WITHOUT ROWID``
    (``schema``: the statements of schema.sql); the names of those rebuilt. A table never
    made (``dense_vector`` before the first vector) needs nothing."""
    rebuilt = []
    for table in ROWID_TABLES:
        if not _is_without_rowid(c, table):
            continue
        if table == "dense_vector":
            rebuild_as_rowid(c, table, VECTOR_TABLE, [VECTOR_KEY])
        else:
            rebuild_as_rowid(c, table, *_schema_parts(schema, table))
        rebuilt.append(table)
    return rebuilt
