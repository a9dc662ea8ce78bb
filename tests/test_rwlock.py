"""The server's readers-writer lock: readers share, writers are alone, writers never starve.

No timing assertions: orderings are forced with events and the lock's own ``waiting``
counters; timeouts only turn a deadlock into a failure instead of a hang.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from citewise.errors import CitewiseError, LockMisuse
from citewise.facade.rwlock import RWLock

GUARD = 30.0  # seconds before a stuck thread counts as a deadlock


@pytest.fixture(autouse=True)
def _switch_often() -> Iterator[None]:
    """Switch threads every few microseconds, so interleavings actually happen."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def _until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + GUARD
    while not check():
        assert time.monotonic() < deadline, "the expected state was never reached"
        time.sleep(0.001)


def _start(target: Callable[[], None]) -> threading.Thread:
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t


def _join(*threads: threading.Thread) -> None:
    for t in threads:
        t.join(GUARD)
        assert not t.is_alive(), "a thread is stuck on the lock"


def test_readers_hold_the_lock_at_the_same_time() -> None:
    lock, n = RWLock(), 6
    seen: list[int] = []
    # The barrier passes only once all n readers are inside; its action counts them there.
    together = threading.Barrier(n, action=lambda: seen.append(lock.readers), timeout=GUARD)

    def reader() -> None:
        with lock.read():
            together.wait()

    _join(*[_start(reader) for _ in range(n)])
    assert seen == [n]


def test_a_writer_waits_for_readers_and_readers_wait_for_a_writer() -> None:
    lock = RWLock()
    log: list[str] = []
    lock.acquire_read()
    writer = _start(lambda: _write(lock, log, "writer"))
    _until(lambda: lock.waiting == (0, 1))  # blocked behind the reader
    assert log == [] and not lock.writing
    lock.release_read()
    _join(writer)
    assert log == ["writer"]

    lock.acquire_write()
    reader = _start(lambda: _read(lock, log, "reader"))
    _until(lambda: lock.waiting == (1, 0))
    assert log == ["writer"]
    lock.release_write()
    _join(reader)
    assert log == ["writer", "reader"]


def _write(lock: RWLock, log: list[str], name: str) -> None:
    with lock.write():
        log.append(name)


def _read(lock: RWLock, log: list[str], name: str) -> None:
    with lock.read():
        log.append(name)


def test_writers_are_exclusive_under_contention() -> None:
    lock = RWLock()
    inside = {"readers": 0, "writers": 0}
    bad: list[str] = []
    guard = threading.Lock()
    counter = [0]

    def enter(kind: str) -> None:
        with guard:
            inside[kind] += 1
            if inside["writers"] > 1 or (inside["writers"] and inside["readers"]):
                bad.append(f"{inside}")

    def leave(kind: str) -> None:
        with guard:
            inside[kind] -= 1

    def writer() -> None:
        for _ in range(200):
            with lock.write():
                enter("writers")
                value = counter[0]
                time.sleep(0)  # invite a switch in the middle of the read-modify-write
                counter[0] = value + 1
                leave("writers")

    def reader() -> None:
        for _ in range(400):
            with lock.read():
                enter("readers")
                time.sleep(0)
                leave("readers")

    threads = [_start(writer) for _ in range(4)] + [_start(reader) for _ in range(6)]
    _join(*threads)
    assert bad == []
    assert counter[0] == 4 * 200  # no lost update: writes never overlapped


def test_a_waiting_writer_goes_before_readers_that_arrive_after_it() -> None:
    lock = RWLock()
    log: list[str] = []
    lock.acquire_read()  # a long read in progress
    writer = _start(lambda: _write(lock, log, "writer"))
    _until(lambda: lock.waiting == (0, 1))
    late = _start(lambda: _read(lock, log, "late reader"))
    _until(lambda: lock.waiting == (1, 1))  # the late reader queues behind the writer
    lock.release_read()
    _join(writer, late)
    assert log == ["writer", "late reader"]


def test_a_stream_of_readers_cannot_starve_a_writer() -> None:
    lock = RWLock()
    stop = threading.Event()
    wrote = threading.Event()
    reads = [0]

    def reader() -> None:
        while not stop.is_set():
            with lock.read():
                reads[0] += 1
                time.sleep(0)

    readers = [_start(reader) for _ in range(6)]
    _until(lambda: reads[0] > 100)  # readers overlap continuously by now

    def writer() -> None:
        for _ in range(20):
            with lock.write():
                assert lock.readers == 0
        wrote.set()

    w = _start(writer)
    assert wrote.wait(GUARD), "the writer never got the lock"
    stop.set()
    _join(w, *readers)


def test_reentry_and_misuse() -> None:
    lock = RWLock()
    with lock.read(), lock.read():  # read inside read
        assert lock.readers == 1
        with pytest.raises(LockMisuse) as err, lock.write():
            pass  # pragma: no cover - refused before entering
        assert isinstance(err.value, CitewiseError) and err.value.code == "LOCK_MISUSE"
    with lock.write(), lock.write(), lock.read():  # a writer may read and write again
        assert lock.writing and lock.readers == 0
    assert not lock.writing and lock.readers == 0
    with pytest.raises(LockMisuse):
        lock.release_read()
    with pytest.raises(LockMisuse):
        lock.release_write()


def test_a_reader_reenters_while_a_writer_waits() -> None:
    """Re-entry never queues behind a waiting writer (that would deadlock the thread)."""
    lock = RWLock()
    holding, release = threading.Event(), threading.Event()
    log: list[str] = []

    def reader() -> None:
        with lock.read():
            holding.set()
            release.wait(GUARD)
            with lock.read():
                log.append("re-entered")

    r = _start(reader)
    assert holding.wait(GUARD)
    w = _start(lambda: _write(lock, log, "writer"))
    _until(lambda: lock.waiting == (0, 1))
    release.set()
    _join(r, w)
    assert log == ["re-entered", "writer"]
