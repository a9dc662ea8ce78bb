"""Batches and revisions, written once for both backends (portable SQL,
:mod:`citewise.store._sql`): a change opens revision N+1 (or joins its batch's open
revision) inside the change's write transaction, with its ``revision`` ledger entry. How a
change is finished (the multiset hash, sealing, the generation counter) stays each
backend's ``_finish_change``."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from citewise.core.stored import RevisionInfo
from citewise.errors import StoreError, UsageError
from citewise.store import _convert as cv
from citewise.store import adhash
from citewise.store._ledger import append_entry
from citewise.store._sql import run


def timestamp() -> str:
    """Now, as both backends store it (ISO 8601, milliseconds, UTC)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class SQLRevisions:
    """Over the backend's ``_write`` and ``_require_kb``."""

    # kb -> revision opened by the current batch (None until its first change).
    _batches: dict[str, int | None]

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    @staticmethod
    def _require_kb(c: Any, kb: str) -> None:
        raise NotImplementedError

    def begin_batch(self, kb: str) -> None:
        with self._write() as c:
            self._require_kb(c, kb)
            if kb in self._batches:
                raise UsageError(
                    f"A batch is already open for {kb!r}.",
                    hint="End it (end_batch) before beginning another.",
                )
            # A batch cut short by a crash left an unsealed revision: seal it now.
            run(
                c,
                "UPDATE revision SET sealed_at = ? WHERE kb = ? AND sealed_at IS NULL",
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
            run(
                c,
                "UPDATE revision SET sealed_at = ? WHERE kb = ? AND revision = ? "
                "AND sealed_at IS NULL",
                (timestamp(), kb, rev),
            )
            row = run(
                c, "SELECT * FROM revision WHERE kb = ? AND revision = ?", (kb, rev)
            ).fetchone()
        return None if row is None else cv.revision_info(row)

    def _open_revision(self, c: Any, kb: str) -> int:
        """The revision this change belongs to, creating revision N+1 if needed."""
        head = run(
            c, "SELECT * FROM revision WHERE kb = ? ORDER BY revision DESC LIMIT 1", (kb,)
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
        run(c, "UPDATE revision SET sealed_at = ? WHERE kb = ? AND sealed_at IS NULL", (now, kb))
        number = 1 if head is None else int(head["revision"]) + 1
        parent = adhash.EMPTY_HASH if head is None else str(head["hash"])
        run(
            c,
            "INSERT INTO revision(kb, revision, hash, document_count, created_at, sealed_at) "
            "VALUES (?, ?, ?, ?, ?, NULL)",
            (kb, number, parent, 0 if head is None else head["document_count"], now),
        )
        if kb in self._batches:
            self._batches[kb] = number
        append_entry(c, "revision", {"kb": kb, "revision": number, "parent_hash": parent}, kb=kb)
        return number

    @staticmethod
    def _revision_hash(c: Any, kb: str, rev: int) -> str:
        row = run(
            c, "SELECT hash FROM revision WHERE kb = ? AND revision = ?", (kb, rev)
        ).fetchone()
        if row is None:
            raise StoreError(f"Revision {rev} of {kb!r} vanished mid-transaction.")
        return str(row["hash"])
