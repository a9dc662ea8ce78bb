"""Batches and revisions of the PostgreSQL backend: a change opens revision N+1 (or joins
its batch's open revision), updates the multiset hash and bumps the base's ``generation``, all
inside the change's write transaction."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citewise.errors import StoreError, UsageError
from citewise.store import _convert as cv
from citewise.store import adhash
from citewise.store.models import RevisionInfo
from citewise.store.postgres.ledger import append_entry
from citewise.store.postgres.resolve import PgResolve

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]


def timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class PgRevisions(PgResolve):
    # kb -> revision opened by the current batch (None until its first change).
    _batches: dict[str, int | None]

    # -- batches and revisions -------------------------------------------------
    def group(self) -> contextlib.AbstractContextManager[None]:
        """Each change commits at once here (group commit is the SQLite backend's)."""
        return contextlib.nullcontext()

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
                "UPDATE revision SET sealed_at = %s WHERE kb = %s AND sealed_at IS NULL",
                (timestamp(), kb),
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
                "UPDATE revision SET sealed_at = %s WHERE kb = %s AND revision = %s "
                "AND sealed_at IS NULL",
                (timestamp(), kb, rev),
            )
            row = c.execute(
                "SELECT * FROM revision WHERE kb = %s AND revision = %s", (kb, rev)
            ).fetchone()
        return None if row is None else cv.revision_info(row)

    def _open_revision(self, c: Conn, kb: str) -> int:
        """The revision this change belongs to, creating revision N+1 if needed."""
        head = c.execute(
            "SELECT * FROM revision WHERE kb = %s ORDER BY revision DESC LIMIT 1", (kb,)
        ).fetchone()
        wanted = self._batches.get(kb)
        if (
            wanted is not None
            and head is not None
            and head["revision"] == wanted
            and head["sealed_at"] is None
        ):
            return wanted
        now = timestamp()
        c.execute(
            "UPDATE revision SET sealed_at = %s WHERE kb = %s AND sealed_at IS NULL", (now, kb)
        )
        number = 1 if head is None else int(head["revision"]) + 1
        parent = adhash.EMPTY_HASH if head is None else str(head["hash"])
        c.execute(
            "INSERT INTO revision(kb, revision, hash, document_count, created_at, sealed_at) "
            "VALUES (%s, %s, %s, %s, %s, NULL)",
            (kb, number, parent, 0 if head is None else head["document_count"], now),
        )
        if kb in self._batches:
            self._batches[kb] = number
        append_entry(c, "revision", {"kb": kb, "revision": number, "parent_hash": parent}, kb=kb)
        return number

    def _finish_change(self, c: Conn, kb: str, rev: int, hash_hex: str, count_delta: int) -> None:
        c.execute(
            "UPDATE revision SET hash = %s, document_count = document_count + %s, "
            "sealed_at = CASE WHEN %s THEN sealed_at ELSE %s END "
            "WHERE kb = %s AND revision = %s",
            (hash_hex, count_delta, kb in self._batches, timestamp(), kb, rev),
        )
        c.execute("UPDATE kb SET generation = generation + 1 WHERE name = %s", (kb,))

    @staticmethod
    def _revision_hash(c: Conn, kb: str, rev: int) -> str:
        row = c.execute(
            "SELECT hash FROM revision WHERE kb = %s AND revision = %s", (kb, rev)
        ).fetchone()
        if row is None:
            raise StoreError(f"Revision {rev} of {kb!r} vanished mid-transaction.")
        return str(row["hash"])
