"""Batches and revisions of the PostgreSQL backend: the shared
:class:`~citewise.store._revisions.SQLRevisions`, and how a change is finished here (the
multiset hash, sealing and the base's ``generation`` bumped in one statement pair, inside the
change's write transaction)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from citewise.store._revisions import SQLRevisions, timestamp
from citewise.store.postgres.resolve import PgResolve

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]


class PgRevisions(PgResolve, SQLRevisions):
    # kb -> revision opened by the current batch (None until its first change).
    _batches: dict[str, int | None]

    def group(self) -> contextlib.AbstractContextManager[None]:
        """Each change commits at once here (group commit is the SQLite backend's)."""
        return contextlib.nullcontext()

    def _finish_change(self, c: Conn, kb: str, rev: int, hash_hex: str, count_delta: int) -> None:
        c.execute(
            "UPDATE revision SET hash = %s, document_count = document_count + %s, "
            "sealed_at = CASE WHEN %s THEN sealed_at ELSE %s END "
            "WHERE kb = %s AND revision = %s",
            (hash_hex, count_delta, kb in self._batches, timestamp(), kb, rev),
        )
        c.execute("UPDATE kb SET generation = generation + 1 WHERE name = %s", (kb,))
