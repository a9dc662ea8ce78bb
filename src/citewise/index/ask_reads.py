"""Version texts read from the store, and checked against their sha256, during one ask.

The evidence stage reads each hit's version text from the store itself (not from the
index state's copy), so that a source corrupted since the state was published is reported
(``source_window_unavailable``). Within one ask, recall has often just read the same
versions from the store to cut its excerpts (:meth:`CallerViews.version_text`), and an
ask's recovery pass loads the documents of the first pass again: a text read and checked
from the store earlier in the *same ask* is not read a second time. A text the index
state kept from an earlier request is never taken for a fresh read.

Outside :func:`ask_reads` (a search, an evidence pack on its own) nothing is recorded
and every read goes to the store, as before. The record lives in a context variable, so
concurrent asks on other threads never see each other's reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Key = tuple[str, int]  # (document id, version id)

_READS: ContextVar[dict[Key, str] | None] = ContextVar("citewise_ask_reads", default=None)


@contextmanager
def ask_reads() -> Iterator[None]:
    """Record the checked store reads of the block (one ask); re-entrant."""
    if _READS.get() is not None:
        yield
        return
    token = _READS.set({})
    try:
        yield
    finally:
        _READS.reset(token)


def note(key: Key, text: str) -> None:
    """``text`` was just read from the store for ``key`` and matched its sha256."""
    reads = _READS.get()
    if reads is not None:
        reads[key] = text


def checked(key: Key) -> str | None:
    """The text of ``key`` read and checked from the store earlier in this ask, else None."""
    reads = _READS.get()
    return None if reads is None else reads.get(key)


__all__ = ["ask_reads", "checked", "note"]
