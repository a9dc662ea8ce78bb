"""Connections and transactions of the PostgreSQL backend.

One connection and one lock per store object, shared with its ledger (as in SQLite), so a
change and the ledger entries recording it commit together. Reads run in a ``REPEATABLE
READ, READ ONLY`` transaction (one snapshot for several queries). Every write transaction
first takes one transaction-scoped advisory lock: writers on any number of servers
serialise there, so ``max(seq) + 1`` in the ledger (global) and version numbers and
revisions (per base) are never handed out twice, and nothing is lost.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from citewise.errors import StoreError, UsageError

if TYPE_CHECKING:
    import psycopg

#: The advisory lock key every citewise write transaction takes ("citewise" in ASCII).
WRITE_LOCK = 0x63697465776973


def connect(url: str) -> psycopg.Connection[dict[str, Any]]:
    """An autocommit connection returning dict rows (transactions are explicit)."""
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ImportError as exc:
        raise UsageError(
            "The PostgreSQL store needs psycopg, which is not installed.",
            hint="Install the extra: pip install 'citewise[postgres]'.",
        ) from exc
    try:
        return psycopg.connect(url, autocommit=True, row_factory=dict_row)
    except psycopg.Error as exc:
        raise StoreError(
            f"Cannot connect to the PostgreSQL store at {redact(url)}: {exc}".strip(),
            hint="Check that the server runs, the database exists and the URL is right.",
        ) from exc


def redact(url: str) -> str:
    """The URL without its password (safe for messages and logs)."""
    head, sep, tail = url.partition("@")
    if not sep or "//" not in head:
        return url
    scheme, _, cred = head.partition("//")
    user = cred.split(":", 1)[0]
    return f"{scheme}//{user}@{tail}"


class PgTx:
    _conn: psycopg.Connection[dict[str, Any]]
    _lock: threading.RLock

    @contextmanager
    def _read(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        with self._lock, self._txn("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", "read"):
            yield self._conn

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """One transaction holding the global write lock; rolled back on any exception."""
        with self._lock, self._txn("BEGIN", "write"):
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            yield self._conn

    @contextmanager
    def _txn(self, begin: str, kind: str) -> Iterator[None]:
        import psycopg

        conn = self._conn
        try:
            conn.execute(begin)
        except psycopg.Error as exc:
            raise StoreError(f"Cannot start a {kind} transaction: {exc}.") from exc
        try:
            yield
            conn.execute("COMMIT")
        except psycopg.Error as exc:
            _rollback(conn)
            raise StoreError(f"Store {kind} failed and was rolled back: {exc}.") from exc
        except BaseException:
            _rollback(conn)
            raise


def _rollback(conn: psycopg.Connection[dict[str, Any]]) -> None:
    import psycopg

    with contextlib.suppress(psycopg.Error):  # a broken connection committed nothing
        conn.execute("ROLLBACK")
