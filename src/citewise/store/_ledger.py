"""The :class:`~citewise.store.protocol.Ledger` protocol, written once for both backends.

:class:`SQLLedger` holds every query of the ledger; a backend mixes it with its transaction
class (SQLite: :class:`SQLiteLedger` below, sharing its store's connection and lock;
PostgreSQL: :class:`~citewise.store.postgres.ledger.PgLedger`, sharing its store's pool). The
SQL is portable (:mod:`citewise.store._sql`).

:func:`append_entry` appends one entry on a connection whose write transaction is already
open: the store calls it inside each change's transaction (ingest, delete, revert, revision,
kb_delete), and :meth:`SQLLedger.transaction` hands it out as a writer, so an acknowledged
change is in the ledger and a rolled-back one is not. Appends run under the backend's write
lock (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's advisory lock), so ``max(seq) + 1`` is never
handed out twice.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from citewise.core.ledger_entries import LedgerEntry, canonical_json, encode_stored, new_entry
from citewise.core.merkle import leaf_hash
from citewise.errors import CitationNotFound
from citewise.store._convert import answer_binding, saved_answer
from citewise.store._sql import marks, run
from citewise.store._txn import SQLiteTx


def _entry(row: Mapping[str, Any]) -> LedgerEntry:
    return LedgerEntry(
        int(row["seq"]),
        str(row["type"]),
        row["kb"],
        str(row["principal"]),
        json.loads(row["lineage"]),
        json.loads(row["payload"]),
        str(row["ts"]),
        str(row["entry_hash"]),
    )


def append_entry(
    c: Any,
    type_: str,
    payload: Mapping[str, Any],
    *,
    kb: str | None = None,
    principal: str | None = None,
    lineage: Mapping[str, object] | None = None,
) -> LedgerEntry:
    """Append inside the caller's open write transaction; returns the entry."""
    seq = int(run(c, "SELECT coalesce(max(seq) + 1, 0) AS seq FROM ledger").fetchone()["seq"])
    e = new_entry(seq, type_, payload, kb=kb, principal=principal, lineage=lineage)
    run(
        c,
        "INSERT INTO ledger(seq, type, kb, principal, lineage, payload, ts, entry_hash) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            e.seq,
            e.type,
            e.kb,
            e.principal,
            canonical_json(e.lineage),
            canonical_json(e.payload),
            e.ts,
            e.entry_hash,
        ),
    )
    return e


class _Writer:
    """A :class:`~citewise.store.protocol.LedgerWriter` over an open write transaction."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def append(
        self,
        type_: str,
        payload: Mapping[str, Any],
        *,
        kb: str | None = None,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
    ) -> LedgerEntry:
        return append_entry(self._conn, type_, payload, kb=kb, principal=principal, lineage=lineage)


class SQLLedger:
    """The ledger's reads and writes over the backend's ``_read`` / ``_write``."""

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    # -- appending -------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[_Writer]:
        with self._write() as c:
            yield _Writer(c)

    def append_event(
        self,
        type_: str,
        payload: Mapping[str, Any],
        *,
        kb: str | None = None,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
    ) -> LedgerEntry:
        """Append one event in its own transaction."""
        with self._write() as c:
            return append_entry(c, type_, payload, kb=kb, principal=principal, lineage=lineage)

    # -- reading ---------------------------------------------------------------
    def ledger_size(self) -> int:
        with self._read() as c:
            return int(run(c, "SELECT count(*) AS n FROM ledger").fetchone()["n"])

    def ledger_entry(self, seq: int) -> LedgerEntry:
        with self._read() as c:
            row = run(c, "SELECT * FROM ledger WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise CitationNotFound(
                f"No ledger entry {seq}.", hint="Entries are numbered from 0; see `audit log`."
            )
        return _entry(row)

    def _batch(self, last: int, batch: int) -> list[Any]:
        with self._read() as c:
            rows: list[Any] = run(
                c, "SELECT * FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?", (last, batch)
            ).fetchall()
        return rows

    def iter_ledger(self, *, batch: int = 5000) -> Iterator[LedgerEntry]:
        """All entries in ``seq`` order, read in batches."""
        last = -1
        while rows := self._batch(last, batch):
            yield from (_entry(r) for r in rows)
            last = int(rows[-1]["seq"])

    def iter_leaves(self, *, batch: int = 20000) -> Iterator[tuple[int, bytes, str, str, str]]:
        """``(seq, recomputed leaf hash, stored hash hex, type, payload text)`` in seq order,
        computed from the stored texts (see :func:`encode_stored`)."""
        last = -1
        while rows := self._batch(last, batch):
            for r in rows:
                raw = encode_stored(
                    r["seq"],
                    r["type"],
                    r["kb"],
                    r["principal"],
                    r["lineage"],
                    r["payload"],
                    r["ts"],
                )
                yield int(r["seq"]), leaf_hash(raw), str(r["entry_hash"]), r["type"], r["payload"]
            last = int(rows[-1]["seq"])

    def stored_leaves(self) -> list[bytes]:
        """The stored leaf hashes, unchecked (enough to build proofs: a proof built from a
        rewritten hash does not verify against a signed root)."""
        with self._read() as c:
            rows = run(c, "SELECT entry_hash FROM ledger ORDER BY seq").fetchall()
        return [bytes.fromhex(r["entry_hash"]) for r in rows]

    def query_ledger(
        self,
        *,
        types: tuple[str, ...] = (),
        principal: str | None = None,
        since: str | None = None,
        kb: str | None = None,
        limit: int | None = None,
    ) -> list[LedgerEntry]:
        sql = "SELECT * FROM ledger WHERE 1 = 1"
        args: list[object] = []
        if types:
            sql += f" AND type IN ({marks(len(types))})"
            args += types
        for column, op, value in (
            ("principal", "=", principal),
            ("ts", ">=", since),
            ("kb", "=", kb),
        ):
            if value is not None:
                sql += f" AND {column} {op} ?"
                args.append(value)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        with self._read() as c:
            return [_entry(r) for r in run(c, sql, args).fetchall()]

    def last_event(self, type_: str, kb: str | None = None) -> LedgerEntry | None:
        where, args = ("kb IS NULL", (type_,)) if kb is None else ("kb = ?", (type_, kb))
        with self._read() as c:
            row = run(
                c,
                f"SELECT * FROM ledger WHERE type = ? AND {where} ORDER BY seq DESC LIMIT 1",
                args,
            ).fetchone()
        return None if row is None else _entry(row)

    # -- checkpoints -------------------------------------------------------------
    def save_checkpoint(self, checkpoint: Mapping[str, Any]) -> None:
        with self._write() as c:
            run(
                c,
                "INSERT INTO checkpoint(tree_size, root_hash, timestamp, key_id, document) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    int(checkpoint["tree_size"]),
                    str(checkpoint["root_hash"]),
                    str(checkpoint["timestamp"]),
                    str(checkpoint["key_id"]),
                    canonical_json(dict(checkpoint)),
                ),
            )

    def list_checkpoints(self) -> list[dict[str, Any]]:
        with self._read() as c:
            rows = run(c, "SELECT document FROM checkpoint ORDER BY id").fetchall()
        return [json.loads(r["document"]) for r in rows]

    # -- saved answers -----------------------------------------------------------
    def save_answer(
        self,
        answer_id: str,
        kb: str,
        answer_json: Mapping[str, Any],
        conditions: Mapping[str, Any],
        event: Mapping[str, Any],
        *,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
        extra_events: tuple[tuple[str, Mapping[str, Any]], ...] = (),
    ) -> LedgerEntry:
        """Store the full answer and its ``answer`` ledger event in one transaction. The
        event carries the sha256 of the stored answer JSON, binding the two."""
        body = canonical_json(dict(answer_json))
        digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
        with self._write() as c:
            revision = int(event.get("store_revision") or answer_json.get("revision") or 0)
            row = run(
                c, "SELECT hash FROM revision WHERE kb = ? AND revision = ?", (kb, revision)
            ).fetchone()
            rev_hash = "" if row is None else str(row["hash"])
            payload = dict(event) | {
                "answer_id": answer_id,
                "answer_sha256": digest,
                "revision_hash": rev_hash,
            }
            entry = append_entry(c, "answer", payload, kb=kb, principal=principal, lineage=lineage)
            run(
                c,
                "INSERT INTO answer(answer_id, kb, question, revision, revision_hash, replay_id, "
                "outcome, answer_json, conditions, ledger_seq, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    answer_id,
                    kb,
                    str(event.get("question", "")),
                    revision,
                    rev_hash,
                    str(answer_json.get("replay_id", "")),
                    str(answer_json.get("outcome", "")),
                    body,
                    canonical_json(dict(conditions)),
                    entry.seq,
                    entry.ts,
                ),
            )
            for type_, extra in extra_events:
                append_entry(
                    c,
                    type_,
                    dict(extra) | {"answer_id": answer_id},
                    kb=kb,
                    principal=principal,
                    lineage=lineage,
                )
        return entry

    def get_answer(self, answer_id: str) -> dict[str, Any]:
        """``{"answer_id", "kb", "revision", "revision_hash", "answer", "conditions",
        "ledger_seq", "created_at"}`` of a saved answer."""
        with self._read() as c:
            row = run(c, "SELECT * FROM answer WHERE answer_id = ?", (answer_id,)).fetchone()
        return saved_answer(row, answer_id)

    def list_answer_bindings(self) -> list[tuple[str, int, str]]:
        """(answer id, ledger seq, sha256 of the stored answer JSON) for every answer."""
        with self._read() as c:
            rows = run(
                c, "SELECT answer_id, ledger_seq, answer_json FROM answer ORDER BY ledger_seq"
            ).fetchall()
        return [answer_binding(r) for r in rows]


class SQLiteLedger(SQLiteTx, SQLLedger):
    """The SQLite ledger: its store's connection and lock."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        self._conn = conn
        self._lock = lock
