"""Make a knowledge base's current revision mirror one folder (``citewise sync``).

A document *comes from* a folder when the ``source`` recorded with its head version (the
absolute path it was read from) lies inside that folder. Only such documents are deletion
candidates; documents added from anywhere else are never touched by a sync.

Files are read until stable (:func:`read_stable`): the size and mtime before and after the
read must agree, so a file being written while it is read is retried, never ingested half.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from citewise.errors import NotFoundError, UnreadableFile, UsageError

SyncStatus = Literal["added", "changed", "unchanged", "deleted", "skipped", "failed"]
SYNC_STATUSES: tuple[SyncStatus, ...] = (
    "added",
    "changed",
    "unchanged",
    "deleted",
    "skipped",
    "failed",
)


@dataclass(frozen=True, slots=True)
class SyncFile:
    """What a sync did (or, in a dry run, would do) to one path."""

    path: str
    status: SyncStatus
    code: str = ""
    message: str = ""
    nodes: int = 0
    chunks: int = 0


@dataclass(frozen=True, slots=True)
class StaleAnswer:
    """A saved answer whose citations point to text that is no longer current."""

    answer_id: str
    question: str
    stale: tuple[str, ...]  # the citation ids that changed or were deleted


@dataclass(frozen=True, slots=True)
class SyncReport:
    """The outcome of one sync: one revision for the whole batch (None if nothing changed)."""

    kb: str
    folder: str
    files: tuple[SyncFile, ...]
    revision: int | None
    revision_hash: str | None
    dry_run: bool = False
    stale_answers: tuple[StaleAnswer, ...] = field(default=())

    def count(self, status: SyncStatus) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def counts(self) -> dict[str, int]:
        return {s: self.count(s) for s in SYNC_STATUSES}

    @property
    def ok(self) -> bool:
        return self.count("failed") == 0

    @property
    def changed_anything(self) -> bool:
        return any(f.status in ("added", "changed", "deleted") for f in self.files)


def sync_root(folder: str | Path) -> Path:
    """The absolute folder to sync, or NOT_FOUND / BAD_REQUEST naming the path.

    A missing folder is an error, never "every document is gone"."""
    path = Path(folder).expanduser()
    if not path.exists():
        raise NotFoundError(
            f"{folder}: no such folder.", hint="Check the path; sync takes an existing folder."
        )
    if not path.is_dir():
        raise UsageError(
            f"{folder}: is a file, not a folder.",
            hint="Sync mirrors a folder; use 'citewise add' for single files.",
        )
    return Path(os.path.abspath(path))


def source_of(path: Path) -> str:
    """The source recorded for a file: its absolute path (symlinks not resolved)."""
    return os.path.abspath(path)


def inside(source: str, root: Path) -> bool:
    """Whether a recorded ``source`` lies inside ``root`` (as spelled, or once resolved)."""
    if not source:
        return False
    src = Path(source)
    pairs = ((src, root), (src.resolve(), root.resolve()))
    return any(a == b or b in a.parents for a, b in pairs)


def read_stable(path: Path, limit: int, *, tries: int = 5, wait: float = 0.2) -> bytes:
    """The bytes of ``path`` once a read sees the same size and mtime before and after.

    Raises UNREADABLE_FILE when the file keeps changing (it is retried on the next sync)."""
    for attempt in range(tries):
        before = path.stat()
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
        after = path.stat()
        if (
            before.st_size == after.st_size == len(data) and before.st_mtime_ns == after.st_mtime_ns
        ) or len(data) > limit:
            return data
        if attempt + 1 < tries:
            time.sleep(wait)
    raise UnreadableFile(
        f"{path.name}: the file kept changing while it was read.",
        hint="Sync again once it has been written (watch mode retries by itself).",
    )
