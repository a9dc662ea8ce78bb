"""``citewise migrate``: copy a whole SQLite store into an empty PostgreSQL database.

Every row is copied as stored (knowledge bases, revisions with their hashes, documents,
every version with its exact bytes, content, nodes, chunks, the ledger, checkpoints and
saved answers), in one PostgreSQL transaction under the write lock, so the copy is whole or
absent. Then the copy is checked: revision hashes and counts equal the source's, every
revision hash recomputes from its membership (``integrity_check``), every version's bytes
match their sha256, and the ledger's leaves recompute to the same Merkle root as the
source's. A failed check raises (drop the target database and run again).

Column names are the PostgreSQL store's own (its ``information_schema``), never the source
file's, and every identifier is quoted: a column name in the file is data. A source column
the schema does not know is refused before anything is written.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewise.core import merkle
from citewise.errors import StoreError, UsageError
from citewise.store._notes import NOTE_TABLE
from citewise.store.factory import parse_location
from citewise.store.postgres.lexical import fill_chunk_terms
from citewise.store.postgres.store import PostgresStore
from citewise.store.postgres.vectors import fill_embeddings
from citewise.store.protocol import Ledger, Store
from citewise.store.sqlite import SQLiteStore

#: Tables in foreign-key order, with the identity column PostgreSQL must take as given.
TABLES: tuple[tuple[str, str | None], ...] = (
    ("kb", None),
    ("revision", None),
    ("document", None),
    ("content", "content_id"),
    ("version", "vid"),
    ("node", None),
    ("chunk", None),
    ("ledger", None),
    ("checkpoint", "id"),
    ("answer", None),
    ("dense_vector", None),  # derived, but copied: the new server need not encode again
    ("note_revision", None),  # derived notes with their history (issue 38: backups keep them)
)
_BATCH = 1000


@dataclass(frozen=True, slots=True)
class MigrateReport:
    rows: dict[str, int]
    ledger_root: str  # hex Merkle root of the copied ledger (equal to the source's)
    revisions: int


def migrate_store(source: str, target: str) -> MigrateReport:
    """Copy the SQLite store at ``source`` into the empty PostgreSQL database ``target``."""
    src, dst = parse_location(source), parse_location(target)
    if src.backend != "sqlite" or dst.backend != "postgresql":
        raise UsageError(
            "migrate copies an SQLite store into PostgreSQL.",
            hint="citewise migrate --from sqlite:PATH --to postgresql://USER@HOST/DB",
        )
    path = Path(src.target).expanduser()
    if not path.is_file():
        raise UsageError(f"No SQLite store at {path}.", hint="Give the home's citewise.db.")
    SQLiteStore(path).close()  # refuses a non-citewise file; upgrades an old schema
    old = SQLiteStore(path)
    new = PostgresStore(dst.target)
    try:
        _require_empty(new)
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = _copy(conn, new)
        finally:
            conn.close()
        return _check(old, new, rows)
    finally:
        old.close()
        new.close()


def _require_empty(store: PostgresStore) -> None:
    kbs = store.list_kbs()
    if store.ledger.ledger_size() or [k.name for k in kbs] != ["default"] or kbs[0].revision:
        raise StoreError(
            f"The target database {store.where} already holds a citewise store.",
            hint="Migrate into a new, empty database (createdb citewise2).",
        )


def source_columns(conn: sqlite3.Connection, table: str) -> list[str] | None:
    """The column names of ``table`` in the SQLite source, or None when it has no such table.
    The names are data from the file: they are only compared, never put into SQL."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
        return None
    return [str(row[1]) for row in conn.execute("SELECT * FROM pragma_table_info(?)", (table,))]


def target_columns(c: Any, table: str) -> list[str]:
    """The column names of ``table`` in the PostgreSQL store's own schema, in table order."""
    rows = c.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = %s ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [str(r["column_name"]) for r in rows]


def copy_columns(table: str, source: list[str], target: list[str]) -> list[str]:
    """The columns to copy for ``table``: the target schema's own names that the source also
    has, in the target's order. A source column the target schema does not know (a newer or
    a crafted file) is an error naming it: copying it would drop data or run its name as
    SQL. Target columns the source lacks keep their defaults (derived columns)."""
    known = set(target)
    unknown = [name for name in source if name not in known]
    if unknown:
        names = ", ".join(repr(n) for n in unknown)
        raise StoreError(
            f"The SQLite store's table {table!r} has column(s) {names} that this version's "
            "PostgreSQL schema does not have; nothing was copied.",
            hint="Migrate with the citewise version that wrote the store, or open the store "
            "with this version first (it upgrades its schema); a column added by hand must "
            "be dropped from the copy you migrate.",
        )
    present = set(source)
    return [name for name in target if name in present]


def _plan(conn: sqlite3.Connection, c: Any) -> list[tuple[str, str | None, list[str] | None]]:
    """Every table's column list, checked before anything is written."""
    plan: list[tuple[str, str | None, list[str] | None]] = []
    for table, identity in TABLES:
        source = source_columns(conn, table)
        cols = None if source is None else copy_columns(table, source, target_columns(c, table))
        plan.append((table, identity, cols))
    return plan


def _copy(conn: sqlite3.Connection, store: PostgresStore) -> dict[str, int]:
    counts: dict[str, int] = {}
    with store._write() as c:
        c.execute(NOTE_TABLE)  # made by the first note stored: the copy may bring some
        plan = _plan(conn, c)
        c.execute("DELETE FROM kb")  # the empty default base the open created
        for table, identity, cols in plan:
            counts[table] = 0
            if cols is None:
                continue  # dense_vector, note_revision: made by the first row stored
            _copy_table(conn, c, table, identity, cols, counts)
        c.execute(
            "UPDATE kb SET generation = (SELECT count(*) FROM version v JOIN document d "
            "ON d.doc_id = v.doc_id WHERE d.kb = kb.name)"
        )
        if store._pgvector:
            fill_embeddings(c)  # the copied vectors in pgvector's column too
        fill_chunk_terms(c)  # the copied chunks' lexical postings (derived, not copied)
    return counts


def _sqlite_name(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _copy_table(
    conn: sqlite3.Connection,
    c: Any,
    table: str,
    identity: str | None,
    cols: list[str],
    counts: dict[str, int],
) -> None:
    """Copy one table; every identifier quoted, the column names the target schema's own."""
    from psycopg import sql  # the optional extra 'postgres'

    cur = conn.execute(
        f"SELECT {', '.join(_sqlite_name(n) for n in cols)} FROM {_sqlite_name(table)}"
    )
    insert = sql.SQL("INSERT INTO {table} ({cols}){override} VALUES ({values})").format(
        table=sql.Identifier(table),
        cols=sql.SQL(", ").join(sql.Identifier(n) for n in cols),
        override=sql.SQL(" OVERRIDING SYSTEM VALUE" if identity else ""),
        values=sql.SQL(", ").join(sql.Placeholder() * len(cols)),
    )
    with c.cursor() as pg:
        while batch := cur.fetchmany(_BATCH):
            pg.executemany(insert, batch)
            counts[table] += len(batch)
    if identity:
        c.execute(
            sql.SQL(
                "SELECT setval(pg_get_serial_sequence({tname}, {iname}), "
                "coalesce(max({ident}), 0) + 1, false) FROM {table}"
            ).format(
                tname=sql.Literal(table),
                iname=sql.Literal(identity),
                ident=sql.Identifier(identity),
                table=sql.Identifier(table),
            )
        )


def _root(ledger: Ledger) -> bytes:
    leaves = []
    for seq, leaf, stored, _, _ in ledger.iter_leaves():
        if leaf.hex() != stored:
            raise StoreError(f"Ledger entry {seq} does not match its stored hash.")
        leaves.append(leaf)
    return merkle.root(leaves)


def _revisions(store: Store) -> list[tuple[str, int, str, int]]:
    return [
        (r.kb, r.revision, r.hash, r.document_count)
        for kb in store.list_kbs()
        for r in store.list_revisions(kb.name)
    ]


def _check(old: SQLiteStore, new: PostgresStore, rows: dict[str, int]) -> MigrateReport:
    problems: list[str] = []
    if _revisions(old) != _revisions(new):
        problems.append("revision hashes or counts differ from the source")
    problems += new.integrity_check()
    with new._read() as c:
        bad: Any = c.execute(
            "SELECT count(*) AS n FROM version WHERE raw IS NOT NULL "
            "AND encode(sha256(raw), 'hex') <> raw_sha256"
        ).fetchone()
    if bad and bad["n"]:
        problems.append(f"{bad['n']} version(s) whose bytes do not match their sha256")
    root = _root(new.ledger)
    if root != _root(old.ledger):
        problems.append("the ledger's Merkle root differs from the source's")
    if problems:
        raise StoreError(
            "The copy does not match the source: " + "; ".join(problems) + ".",
            hint="Drop the target database and migrate again; the source was not changed.",
        )
    return MigrateReport(rows, root.hex(), len(_revisions(new)))
