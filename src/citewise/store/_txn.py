"""Transactions of the SQLite backend: one connection and one lock, shared by the store and
its ledger, so a change and the ledger entry recording it commit together."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from citewise.errors import StoreError


class SQLiteTx:
    _conn: sqlite3.Connection
    _lock: threading.RLock

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A deferred transaction: one consistent snapshot for several queries."""
        with self._lock:
            conn = self._conn
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
        """One ``BEGIN IMMEDIATE`` transaction; rolled back on any exception."""
        with self._lock:
            conn = self._conn
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
