"""Transactions of the SQLite backend: one connection and one lock, shared by the store and
its ledger, so a change and the ledger entry recording it commit together.

Group commit: inside :meth:`SQLiteTx.group` several changes share one transaction (one
fsync). Each change is then a savepoint, so a failing change is rolled back alone and the
others commit together when the group ends; a crash before that loses the whole group and
nothing else (each change is still whole or absent)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from citewise.errors import StoreError


@contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction on ``conn``: committed when the block ends,
    rolled back on any exception (an SQLite error is reported as a StoreError)."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise StoreError(f"Cannot start a write transaction: {exc}.") from exc
    try:
        yield conn
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise StoreError(f"Store write failed and was rolled back: {exc}.") from exc
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


class SQLiteTx:
    _conn: sqlite3.Connection
    _lock: threading.RLock

    @contextmanager
    def group(self) -> Iterator[None]:
        """One transaction for the changes made inside (see the module docstring)."""
        with self._lock:
            if self._grouped():
                yield  # nested: the outer group commits
                return
            with _immediate(self._conn):
                yield

    def _grouped(self) -> bool:
        """Whether this thread is inside a :meth:`group` (caller holds the lock). Every
        other transaction begins and ends inside one holding of the lock, so an open one
        seen on entry is a group's (the store's and its ledger's alike: they share the
        connection)."""
        return self._conn.in_transaction

    @contextmanager
    def _change(self) -> Iterator[sqlite3.Connection]:
        """One change inside a group: a savepoint, rolled back alone on any exception."""
        conn = self._conn
        try:
            conn.execute("SAVEPOINT change")
        except sqlite3.Error as exc:
            raise StoreError(f"Cannot start a write transaction: {exc}.") from exc
        try:
            yield conn
            conn.execute("RELEASE change")
        except BaseException as exc:
            try:
                conn.execute("ROLLBACK TO change")
                conn.execute("RELEASE change")
            except sqlite3.Error:
                pass  # the whole transaction is gone: the group's commit reports it
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"Store write failed and was rolled back: {exc}.") from exc
            raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A deferred transaction: one consistent snapshot for several queries."""
        with self._lock:
            conn = self._conn
            if self._grouped():  # inside a group's transaction (it sees its own changes)
                try:
                    yield conn
                except sqlite3.Error as exc:
                    raise StoreError(f"Store read failed: {exc}.") from exc
                return
            try:
                conn.execute("BEGIN")
            except sqlite3.Error as exc:
                raise StoreError(f"Cannot read the store: {exc}.") from exc
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StoreError(f"Store read failed: {exc}.") from exc
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; rolled back on any exception (a savepoint
        inside a :meth:`group`)."""
        with self._lock:
            if self._grouped():
                with self._change() as conn:
                    yield conn
                return
            with _immediate(self._conn) as conn:
                yield conn
