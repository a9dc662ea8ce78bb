"""The ledger of the toy in-memory backend: rows kept as the texts SQLite would store."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from citewise.core.ledger_entries import LedgerEntry, canonical_json, encode_stored, new_entry
from citewise.core.merkle import leaf_hash
from citewise.errors import CitationNotFound, StoreError
from tests.memstore.state import MemTx, State

Row = tuple[int, str, str | None, str, str, str, str, str]


def append_to(
    s: State,
    type_: str,
    payload: Mapping[str, Any],
    *,
    kb: str | None = None,
    principal: str | None = None,
    lineage: Mapping[str, object] | None = None,
) -> LedgerEntry:
    """Append inside the write transaction of ``s`` (the store calls this with its changes)."""
    e = new_entry(len(s.ledger), type_, payload, kb=kb, principal=principal, lineage=lineage)
    row = (e.seq, e.type, e.kb, e.principal, canonical_json(e.lineage))
    s.ledger.append((*row, canonical_json(e.payload), e.ts, e.entry_hash))
    return e


class _Writer:
    def __init__(self, state: State) -> None:
        self._state = state

    def append(
        self,
        type_: str,
        payload: Mapping[str, Any],
        *,
        kb: str | None = None,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
    ) -> LedgerEntry:
        return append_to(self._state, type_, payload, kb=kb, principal=principal, lineage=lineage)


class MemLedger:
    """The ledger of a :class:`MemStore` (same state, same transactions)."""

    def __init__(self, store: MemTx) -> None:
        self._store = store

    @contextmanager
    def transaction(self) -> Iterator[_Writer]:
        with self._store.write() as s:
            yield _Writer(s)

    def append_event(
        self,
        type_: str,
        payload: Mapping[str, Any],
        *,
        kb: str | None = None,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
    ) -> LedgerEntry:
        with self.transaction() as tx:
            return tx.append(type_, payload, kb=kb, principal=principal, lineage=lineage)

    def _rows(self) -> list[Row]:
        with self._store.read() as s:
            return list(s.ledger)

    def ledger_size(self) -> int:
        return len(self._rows())

    def ledger_entry(self, seq: int) -> LedgerEntry:
        rows = self._rows()
        if not 0 <= seq < len(rows):
            raise CitationNotFound(f"No ledger entry {seq}.", hint="Entries are numbered from 0.")
        return _entry(rows[seq])

    def iter_ledger(self, *, batch: int = 5000) -> Iterator[LedgerEntry]:
        yield from (_entry(r) for r in self._rows())

    def iter_leaves(self, *, batch: int = 20000) -> Iterator[tuple[int, bytes, str, str, str]]:
        for seq, type_, kb, who, lin, payload, ts, digest in self._rows():
            raw = encode_stored(seq, type_, kb, who, lin, payload, ts)
            yield seq, leaf_hash(raw), digest, type_, payload

    def stored_leaves(self) -> list[bytes]:
        return [bytes.fromhex(r[7]) for r in self._rows()]

    def query_ledger(
        self,
        *,
        types: tuple[str, ...] = (),
        principal: str | None = None,
        since: str | None = None,
        kb: str | None = None,
        limit: int | None = None,
    ) -> list[LedgerEntry]:
        rows = [
            r
            for r in self._rows()
            if (not types or r[1] in types)
            and (principal is None or r[3] == principal)
            and (since is None or r[6] >= since)
            and (kb is None or r[2] == kb)
        ]
        return [_entry(r) for r in (rows if limit is None else rows[:limit])]

    def last_event(self, type_: str, kb: str | None = None) -> LedgerEntry | None:
        rows = [r for r in self._rows() if r[1] == type_ and r[2] == kb]
        return _entry(rows[-1]) if rows else None

    def save_checkpoint(self, checkpoint: Mapping[str, Any]) -> None:
        missing = {"tree_size", "root_hash", "timestamp", "key_id"} - set(checkpoint)
        if missing:  # the SQLite backend's required columns
            raise KeyError(sorted(missing)[0])
        with self._store.write() as s:
            s.checkpoints.append(canonical_json(dict(checkpoint)))

    def list_checkpoints(self) -> list[dict[str, Any]]:
        with self._store.read() as s:
            return [json.loads(c) for c in s.checkpoints]

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
        with self.transaction() as tx:
            s = tx._state
            revision = int(event.get("store_revision") or answer_json.get("revision") or 0)
            got = s.revisions.get((kb, revision))
            rev_hash = "" if got is None else got.hash
            payload = dict(event) | {
                "answer_id": answer_id,
                "answer_sha256": digest,
                "revision_hash": rev_hash,
            }
            entry = tx.append("answer", payload, kb=kb, principal=principal, lineage=lineage)
            if answer_id in s.answers:
                raise StoreError(f"Answer {answer_id!r} is already saved; answers are immutable.")
            s.answers[answer_id] = {
                "answer_id": answer_id,
                "kb": kb,
                "revision": revision,
                "revision_hash": rev_hash,
                "answer_json": body,
                "conditions": canonical_json(dict(conditions)),
                "ledger_seq": entry.seq,
                "created_at": entry.ts,
            }
            for type_, extra in extra_events:
                extra_payload = dict(extra) | {"answer_id": answer_id}
                tx.append(type_, extra_payload, kb=kb, principal=principal, lineage=lineage)
        return entry

    def get_answer(self, answer_id: str) -> dict[str, Any]:
        with self._store.read() as s:
            row = s.answers.get(answer_id)
        if row is None:
            raise CitationNotFound(f"No saved answer {answer_id!r}.")
        body = row["answer_json"]
        out = {k: v for k, v in row.items() if k not in ("answer_json", "conditions")}
        return out | {
            "answer": json.loads(body),
            "answer_sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
            "conditions": json.loads(row["conditions"]),
        }

    def list_answer_bindings(self) -> list[tuple[str, int, str]]:
        with self._store.read() as s:
            rows = sorted(s.answers.values(), key=lambda r: int(r["ledger_seq"]))
        return [
            (r["answer_id"], r["ledger_seq"], hashlib.sha256(r["answer_json"].encode()).hexdigest())
            for r in rows
        ]


def _entry(r: Row) -> LedgerEntry:
    return LedgerEntry(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), r[6], r[7])
