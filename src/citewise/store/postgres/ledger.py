"""The PostgreSQL backend of the :class:`~citewise.store.protocol.Ledger` protocol.

Same contract and row layout as :mod:`citewise.store._ledger` (SQLite): :func:`append_entry`
appends inside an open write transaction (which holds the global advisory lock, so
``max(seq) + 1`` is never handed out twice), and triggers refuse any rewrite.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from citewise.audit.entries import LedgerEntry, canonical_json, encode_stored, new_entry
from citewise.audit.merkle import leaf_hash
from citewise.errors import CitationNotFound
from citewise.store._convert import answer_binding, saved_answer
from citewise.store.postgres._db import PgConnections, PgTx

if TYPE_CHECKING:
    import psycopg


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
    c: psycopg.Connection[dict[str, Any]],
    type_: str,
    payload: Mapping[str, Any],
    *,
    kb: str | None = None,
    principal: str | None = None,
    lineage: Mapping[str, object] | None = None,
) -> LedgerEntry:
    """Append inside the caller's open write transaction; returns the entry."""
    row = c.execute("SELECT coalesce(max(seq) + 1, 0) AS seq FROM ledger").fetchone()
    seq = 0 if row is None else int(row["seq"])
    e = new_entry(seq, type_, payload, kb=kb, principal=principal, lineage=lineage)
    c.execute(
        "INSERT INTO ledger(seq, type, kb, principal, lineage, payload, ts, entry_hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
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
    def __init__(self, conn: psycopg.Connection[dict[str, Any]]) -> None:
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


class PgLedger(PgTx):
    def __init__(self, db: PgConnections) -> None:
        self._db = db  # the store's pool: a change and its entries share one transaction

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
        with self._write() as c:
            return append_entry(c, type_, payload, kb=kb, principal=principal, lineage=lineage)

    # -- reading ---------------------------------------------------------------
    def ledger_size(self) -> int:
        with self._read() as c:
            row = c.execute("SELECT count(*) AS n FROM ledger").fetchone()
        return 0 if row is None else int(row["n"])

    def ledger_entry(self, seq: int) -> LedgerEntry:
        with self._read() as c:
            row = c.execute("SELECT * FROM ledger WHERE seq = %s", (seq,)).fetchone()
        if row is None:
            raise CitationNotFound(
                f"No ledger entry {seq}.", hint="Entries are numbered from 0; see `audit log`."
            )
        return _entry(row)

    def _batch(self, last: int, batch: int) -> list[dict[str, Any]]:
        with self._read() as c:
            return c.execute(
                "SELECT * FROM ledger WHERE seq > %s ORDER BY seq LIMIT %s", (last, batch)
            ).fetchall()

    def iter_ledger(self, *, batch: int = 5000) -> Iterator[LedgerEntry]:
        last = -1
        while rows := self._batch(last, batch):
            yield from (_entry(r) for r in rows)
            last = int(rows[-1]["seq"])

    def iter_leaves(self, *, batch: int = 20000) -> Iterator[tuple[int, bytes, str, str, str]]:
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
        with self._read() as c:
            rows = c.execute("SELECT entry_hash FROM ledger ORDER BY seq").fetchall()
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
        sql = "SELECT * FROM ledger WHERE true"
        args: list[object] = []
        if types:
            sql += " AND type = ANY(%s)"
            args.append(list(types))
        for column, op, value in (
            ("principal", "=", principal),
            ("ts", ">=", since),
            ("kb", "=", kb),
        ):
            if value is not None:
                sql += f" AND {column} {op} %s"
                args.append(value)
        sql += " ORDER BY seq LIMIT %s"
        args.append(limit)
        with self._read() as c:
            return [_entry(r) for r in c.execute(sql, args).fetchall()]

    def last_event(self, type_: str, kb: str | None = None) -> LedgerEntry | None:
        with self._read() as c:
            row = c.execute(
                "SELECT * FROM ledger WHERE type = %s AND kb IS NOT DISTINCT FROM %s::text "
                "ORDER BY seq DESC LIMIT 1",
                (type_, kb),
            ).fetchone()
        return None if row is None else _entry(row)

    # -- checkpoints -------------------------------------------------------------
    def save_checkpoint(self, checkpoint: Mapping[str, Any]) -> None:
        with self._write() as c:
            c.execute(
                "INSERT INTO checkpoint(tree_size, root_hash, timestamp, key_id, document) "
                "VALUES (%s, %s, %s, %s, %s)",
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
            rows = c.execute("SELECT document FROM checkpoint ORDER BY id").fetchall()
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
        body = canonical_json(dict(answer_json))
        digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
        with self._write() as c:
            revision = int(event.get("store_revision") or answer_json.get("revision") or 0)
            row = c.execute(
                "SELECT hash FROM revision WHERE kb = %s AND revision = %s", (kb, revision)
            ).fetchone()
            rev_hash = "" if row is None else str(row["hash"])
            payload = dict(event) | {
                "answer_id": answer_id,
                "answer_sha256": digest,
                "revision_hash": rev_hash,
            }
            entry = append_entry(c, "answer", payload, kb=kb, principal=principal, lineage=lineage)
            c.execute(
                "INSERT INTO answer(answer_id, kb, question, revision, revision_hash, replay_id, "
                "outcome, answer_json, conditions, ledger_seq, created_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
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
        with self._read() as c:
            row = c.execute("SELECT * FROM answer WHERE answer_id = %s", (answer_id,)).fetchone()
        return saved_answer(row, answer_id)

    def list_answer_bindings(self) -> list[tuple[str, int, str]]:
        with self._read() as c:
            rows = c.execute(
                "SELECT answer_id, ledger_seq, answer_json FROM answer ORDER BY ledger_seq"
            ).fetchall()
        return [answer_binding(r) for r in rows]
