"""``citewise migrate``: copy a whole SQLite store into an empty PostgreSQL database.

Every row is copied as stored (knowledge bases, revisions with their hashes, documents,
every version with its exact bytes, content, nodes, chunks, the ledger, checkpoints and
saved answers), in one PostgreSQL transaction under the write lock, so the copy is whole or
absent. Then the copy is checked: revision hashes and counts equal the source's, every
revision hash recomputes from its membership (``integrity_check``), every version's bytes
match their sha256, and the ledger's leaves recompute to the same Merkle root as the
source's. A failed check raises (drop the target database and run again).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewise.core import merkle
from citewise.errors import StoreError, UsageError
from citewise.store.factory import parse_location
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


def _copy(conn: sqlite3.Connection, store: PostgresStore) -> dict[str, int]:
    counts: dict[str, int] = {}
    with store._write() as c:
        c.execute("DELETE FROM kb")  # the empty default base the open created
        for table, identity in TABLES:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
                counts[table] = 0  # dense_vector: made by the first vector stored
                continue
            cur = conn.execute(f"SELECT * FROM {table}")
            cols = [d[0] for d in cur.description]
            override = " OVERRIDING SYSTEM VALUE" if identity else ""
            sql = (
                f"INSERT INTO {table} ({', '.join(cols)}){override} "
                f"VALUES ({', '.join(['%s'] * len(cols))})"
            )
            counts[table] = 0
            with c.cursor() as pg:
                while batch := cur.fetchmany(_BATCH):
                    pg.executemany(sql, batch)
                    counts[table] += len(batch)
            if identity:
                c.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{identity}'), "
                    f"coalesce(max({identity}), 0) + 1, false) FROM {table}"
                )
        c.execute(
            "UPDATE kb SET generation = (SELECT count(*) FROM version v JOIN document d "
            "ON d.doc_id = v.doc_id WHERE d.kb = kb.name)"
        )
        if store._pgvector:
            fill_embeddings(c)  # the copied vectors in pgvector's column too
    return counts


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
