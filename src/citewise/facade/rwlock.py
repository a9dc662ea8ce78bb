"""A readers-writer lock: many readers at once, one writer alone, writers never starved.

Writer preference: once a writer waits, new readers wait behind it, so a steady stream of
searches cannot keep an upload out forever. Both sides are re-entrant per thread (a thread
that holds the lock may take the read side again, and a writer may also read or write
again), so a method holding it may call another that takes it. A reader asking for the
write side would deadlock against itself and every other reader doing the same; that is
refused with :class:`~citewise.errors.LockMisuse` instead.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from citewise.errors import LockMisuse


class RWLock:
    """``with lock.read(): ...`` for shared work, ``with lock.write(): ...`` for exclusive."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0  # threads holding the read side (each counted once)
        self._writer: int | None = None  # ident of the thread holding the write side
        self._writers_waiting = 0
        self._readers_waiting = 0
        self._local = threading.local()

    # -- per-thread depth ----------------------------------------------------------
    def _depth(self) -> tuple[int, int]:
        return getattr(self._local, "reads", 0), getattr(self._local, "writes", 0)

    @property
    def readers(self) -> int:
        """Threads holding the read side now (for tests and diagnostics)."""
        with self._cond:
            return self._readers

    @property
    def waiting(self) -> tuple[int, int]:
        """``(readers, writers)`` blocked in acquire now (for tests and diagnostics)."""
        with self._cond:
            return self._readers_waiting, self._writers_waiting

    @property
    def writing(self) -> bool:
        """True while some thread holds the write side."""
        with self._cond:
            return self._writer is not None

    # -- read side -------------------------------------------------------------------
    def acquire_read(self) -> None:
        reads, writes = self._depth()
        if reads or writes:  # re-entry: already shared or exclusive, never wait
            self._local.reads = reads + 1
            return
        with self._cond:
            self._readers_waiting += 1
            try:
                while self._writer is not None or self._writers_waiting:
                    self._cond.wait()
            finally:
                self._readers_waiting -= 1
            self._readers += 1
        self._local.reads = 1

    def release_read(self) -> None:
        reads, writes = self._depth()
        if reads <= 0:
            raise LockMisuse("release_read() without a matching acquire_read().")
        self._local.reads = reads - 1
        if reads > 1 or writes:
            return
        with self._cond:
            self._readers -= 1
            if not self._readers:
                self._cond.notify_all()

    # -- write side ------------------------------------------------------------------
    def acquire_write(self) -> None:
        reads, writes = self._depth()
        if writes:
            self._local.writes = writes + 1
            return
        if reads:
            raise LockMisuse(
                "A thread holding the read lock asked for the write lock.",
                hint="Release the read side first; upgrading would deadlock.",
            )
        me = threading.get_ident()
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writer is not None or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writer = me
        self._local.writes = 1

    def release_write(self) -> None:
        reads, writes = self._depth()
        if writes <= 0:
            raise LockMisuse("release_write() without a matching acquire_write().")
        if writes == 1 and reads:
            raise LockMisuse("The write lock was released while reads taken inside it are held.")
        self._local.writes = writes - 1
        if writes > 1:
            return
        with self._cond:
            self._writer = None
            self._cond.notify_all()

    # -- context managers ------------------------------------------------------------
    @contextmanager
    def read(self) -> Iterator[None]:
        self.acquire_read()
        try:
            yield
        finally:
            self.release_read()

    @contextmanager
    def write(self) -> Iterator[None]:
        self.acquire_write()
        try:
            yield
        finally:
            self.release_write()

    @contextmanager
    def released(self) -> Iterator[None]:
        """The calling thread's read hold let go for the block and taken again after it
        (its depth restored; a waiting writer goes first): for waiting on something slow
        outside the process, such as a web request, without holding a writer, and every
        reader queued behind that writer, for as long. A thread holding the write side, or
        nothing, is left as it is."""
        reads, writes = self._depth()
        if not reads or writes:
            yield
            return
        self._local.reads = 1
        self.release_read()
        try:
            yield
        finally:
            self.acquire_read()
            self._local.reads = reads
