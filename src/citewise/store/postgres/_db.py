"""Connections and transactions of the PostgreSQL backend.

A store holds a pool of connections (``psycopg_pool``, at most :data:`POOL_SIZE` or
``$CITEWISE_PG_POOL``), shared with its ledger, so the threads of one server read at once
instead of queueing on one connection. Each transaction takes a connection for its length;
a transaction opened on a thread that already holds one joins it (so a change and the
ledger entries recording it always commit together). Reads run in a ``REPEATABLE READ,
READ ONLY`` transaction (one snapshot for several queries). Every write transaction first
takes one transaction-scoped advisory lock: writers on any number of servers serialise
there, so ``max(seq) + 1`` in the ledger (global) and version numbers and revisions (per
base) are never handed out twice, and nothing is lost.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citewise.errors import StoreError, UsageError
from citewise.store.dsn import redact_dsn, redact_text

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

    Conn = psycopg.Connection[dict[str, Any]]

#: The advisory lock key every citewise write transaction takes ("citewise" in ASCII).
WRITE_LOCK = 0x63697465776973
#: Connections one store may hold at most (``$CITEWISE_PG_POOL`` overrides).
POOL_SIZE = 8
#: Seconds a transaction waits for a free connection before failing.
POOL_WAIT = 60.0


def _modules() -> tuple[Any, Any]:
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:
        raise UsageError(
            "The PostgreSQL store needs psycopg and psycopg-pool, which are not installed.",
            hint="Install the extra: pip install 'citewise[postgres]'.",
        ) from exc
    return psycopg, psycopg_pool


def pool_size() -> int:
    raw = os.environ.get("CITEWISE_PG_POOL", "").strip()
    if not raw:
        return POOL_SIZE
    if not raw.isdigit() or int(raw) < 1:
        raise UsageError(
            f"CITEWISE_PG_POOL={raw!r} is not a positive number of connections.",
            hint="Unset it, or set it to e.g. 8.",
        )
    return int(raw)


@dataclass
class PgConnections:
    """The pool of one store (and its ledger), and the connection each thread's open
    transaction holds."""

    pool: ConnectionPool[Conn]
    held: threading.local = field(default_factory=threading.local)

    def close(self) -> None:
        self.pool.close()


def connect(url: str) -> PgConnections:
    """A pool of autocommit connections returning dict rows (transactions are explicit).
    One connection is made first, so a wrong URL or a stopped server fails at once with
    the server's own message."""
    psycopg, psycopg_pool = _modules()
    from psycopg.rows import dict_row

    kwargs = {"autocommit": True, "row_factory": dict_row}
    try:
        psycopg.connect(url, **kwargs).close()
    except psycopg.Error as exc:  # libpq's message may quote the password: cleaned, unchained
        why = redact_text(str(exc), url)
        raise StoreError(
            f"Cannot connect to the PostgreSQL store at {redact(url)}: {why}".strip(),
            hint="Check that the server runs, the database exists and the URL is right.",
        ) from None
    pool = psycopg_pool.ConnectionPool(
        url,
        min_size=1,
        max_size=pool_size(),
        kwargs=kwargs,
        timeout=POOL_WAIT,
        name="citewise",
        open=True,
    )
    return PgConnections(pool)


def redact(url: str) -> str:
    """The URL without its password (safe for messages and logs; see :mod:`..dsn`)."""
    return redact_dsn(url)


class PgTx:
    _db: PgConnections

    @contextmanager
    def _read(self) -> Iterator[Conn]:
        with self._txn("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", "read") as conn:
            yield conn

    @contextmanager
    def _stream(self) -> Iterator[Conn]:
        """A read-only snapshot on a pooled connection of its own, for a generator that
        yields while it reads: other store calls of this thread meanwhile use their own
        transactions instead of joining this one. Inside a transaction of this thread
        the reads join it (they see its writes), as :meth:`_read` does."""
        held: Conn | None = getattr(self._db.held, "conn", None)
        if held is not None:
            yield held
            return
        _, psycopg_pool = _modules()
        try:
            with self._db.pool.connection() as conn:
                conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                try:
                    yield conn
                finally:
                    _rollback(conn)  # read only: nothing to commit
        except psycopg_pool.PoolTimeout as exc:
            raise StoreError(
                f"No free PostgreSQL connection for a read within {POOL_WAIT:.0f} s.",
                hint="Raise CITEWISE_PG_POOL, or the server's max_connections.",
            ) from exc

    @contextmanager
    def _write(self) -> Iterator[Conn]:
        """One transaction holding the global write lock; rolled back on any exception."""
        with self._txn("BEGIN", "write") as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            yield conn

    @contextmanager
    def _txn(self, begin: str, kind: str) -> Iterator[Conn]:
        held: Conn | None = getattr(self._db.held, "conn", None)
        if held is not None:  # this thread is inside a transaction already: join it
            yield held
            return
        psycopg, psycopg_pool = _modules()
        try:
            with self._db.pool.connection() as conn:
                try:
                    conn.execute(begin)
                except psycopg.Error as exc:
                    raise StoreError(f"Cannot start a {kind} transaction: {exc}.") from exc
                self._db.held.conn = conn
                try:
                    yield conn
                    conn.execute("COMMIT")
                except psycopg.Error as exc:
                    _rollback(conn)
                    raise StoreError(f"Store {kind} failed and was rolled back: {exc}.") from exc
                except BaseException:
                    _rollback(conn)
                    raise
                finally:
                    self._db.held.conn = None
        except psycopg_pool.PoolTimeout as exc:
            raise StoreError(
                f"No free PostgreSQL connection for a {kind} within {POOL_WAIT:.0f} s.",
                hint="Raise CITEWISE_PG_POOL, or the server's max_connections.",
            ) from exc


def _rollback(conn: Conn) -> None:
    import psycopg

    with contextlib.suppress(psycopg.Error):  # a broken connection committed nothing
        conn.execute("ROLLBACK")
