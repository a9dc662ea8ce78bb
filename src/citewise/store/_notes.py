"""Topic notes kept in the store (notes/), written once for both backends (portable SQL).

Notes are derived data, like dense vectors: rebuilt from the documents, so they make no
ledger entry and belong to no corpus revision. Each row is one revision of one topic's
note in one view (``""``: the documents everyone may read; else a principal's view);
revisions are only ever added, so a note's history keeps every line it ever quoted. The
table is made by the first write (a home that never built notes has none; PostgreSQL and
SQLite both accept the statement), and goes with its knowledge base.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from citewise.core.stored import NoteRecord
from citewise.errors import UsageError
from citewise.store._sql import run

NOTE_TABLE = """CREATE TABLE IF NOT EXISTS note_revision (
    kb         TEXT NOT NULL REFERENCES kb(name) ON DELETE CASCADE,
    audience   TEXT NOT NULL,
    topic      TEXT NOT NULL,
    revision   INTEGER NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (kb, audience, topic, revision)
)"""


def check_records(records: Sequence[NoteRecord]) -> None:
    """UsageError naming the first record that cannot be stored."""
    for r in records:
        if not r.topic or r.revision < 1 or not isinstance(r.body, dict):
            raise UsageError(
                f"Note record {r.topic!r} revision {r.revision} cannot be stored.",
                hint="A note record needs a topic id, a revision from 1 and a JSON object body.",
            )


def next_revision_ok(stored: int | None, record: NoteRecord) -> None:
    """A new revision must follow the stored head directly (two rebuilds racing on one
    note: the second is refused, not interleaved)."""
    if record.revision != (stored or 0) + 1:
        raise UsageError(
            f"Note {record.topic!r} is at revision {stored or 0}; cannot store revision "
            f"{record.revision}.",
            hint="Rebuild the notes again: another rebuild stored this note meanwhile.",
        )


def _record(kb: str, row: Any) -> NoteRecord:
    return NoteRecord(
        kb=kb,
        view=str(row["audience"]),
        topic=str(row["topic"]),
        revision=int(row["revision"]),
        body=json.loads(row["body"]),
    )


class SQLNotes:
    """Over the backend's ``_read`` and ``_write`` (listed last among a backend's bases, so
    these stubs never hide its own)."""

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    @staticmethod
    def _has_note_table(c: Any) -> bool:
        if isinstance(c, sqlite3.Connection):
            sql = "SELECT 1 FROM sqlite_master WHERE name = 'note_revision'"
        else:
            sql = "SELECT 1 WHERE to_regclass('note_revision') IS NOT NULL"
        return c.execute(sql).fetchone() is not None

    def save_notes(self, kb: str, records: Sequence[NoteRecord]) -> None:
        check_records(records)
        if not records:
            return
        now = datetime.now(UTC).isoformat(timespec="milliseconds")
        with self._write() as c:
            run(c, NOTE_TABLE)
            for r in records:
                row = run(
                    c,
                    "SELECT max(revision) AS r FROM note_revision "
                    "WHERE kb = ? AND audience = ? AND topic = ?",
                    (kb, r.view, r.topic),
                ).fetchone()
                next_revision_ok(None if row is None else row["r"], r)
                run(
                    c,
                    "INSERT INTO note_revision(kb, audience, topic, revision, body, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (kb, r.view, r.topic, r.revision, json.dumps(r.body, ensure_ascii=False), now),
                )

    def note_heads(self, kb: str, view: str) -> list[NoteRecord]:
        with self._read() as c:
            if not self._has_note_table(c):
                return []
            rows = run(
                c,
                "SELECT n.audience, n.topic, n.revision, n.body FROM note_revision n "
                "JOIN (SELECT topic, max(revision) AS r FROM note_revision "
                "WHERE kb = ? AND audience = ? GROUP BY topic) h "
                "ON h.topic = n.topic AND h.r = n.revision "
                "WHERE n.kb = ? AND n.audience = ? ORDER BY n.topic",
                (kb, view, kb, view),
            ).fetchall()
        return [_record(kb, row) for row in rows]

    def note_history(self, kb: str, view: str, topic: str) -> list[NoteRecord]:
        with self._read() as c:
            if not self._has_note_table(c):
                return []
            rows = run(
                c,
                "SELECT audience, topic, revision, body FROM note_revision "
                "WHERE kb = ? AND audience = ? AND topic = ? ORDER BY revision",
                (kb, view, topic),
            ).fetchall()
        return [_record(kb, row) for row in rows]
