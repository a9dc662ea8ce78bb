"""Make a knowledge base's current revision mirror one folder (``citewise sync``).

A document *comes from* a folder when the ``source`` recorded with its head version (the
absolute path it was read from) is exactly that folder joined with the document's path:
what ``add``/``sync`` of the folder itself records (:func:`came_from`). Only such documents
are deletion candidates; documents uploaded (their source is a staging folder inside the
home), added from a sub-folder, a single file elsewhere or another folder are never
touched by a sync, and nothing inside the home is ever a candidate or ingested.

Files are read from an opened descriptor that was checked to be a regular file inside the
folder (:mod:`citewise.ingest.safe_open`), until stable (:func:`read_stable`): the size and
mtime before and after the read must agree, so a file being written while it is read is
retried, never ingested half.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from citewise.errors import NotFoundError, UsageError
from citewise.ingest.safe_open import read_inside

if TYPE_CHECKING:
    from citewise.context import StageContext

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
class StaleCitation:
    """One citation of a saved answer whose text is no longer current, and why."""

    id: str
    path: str
    change: Literal["changed", "deleted"]  # the cited span changed, or its document went
    line_start: int | None = None  # the cited lines of the saved answer's version
    line_end: int | None = None
    reason: str = ""  # "cited span changed in version 3", "document removed"
    old_text: str = ""  # the cited excerpt as the answer quoted it
    new_text: str | None = None  # the closest text of the current version (None: gone)


@dataclass(frozen=True, slots=True)
class StaleAnswer:
    """A saved answer whose citations point to text that is no longer current."""

    answer_id: str
    question: str
    stale: tuple[str, ...]  # the citation ids that changed or were deleted
    citations: tuple[StaleCitation, ...] = ()  # the same citations, each with its change


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


def _nfc(path: str | Path) -> str:
    return unicodedata.normalize("NFC", str(path))


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def came_from(source: str, doc_path: str, root: Path, home: Path | None = None) -> bool:
    """Whether a document at ``doc_path`` with recorded ``source`` was read from ``root``
    by an add or sync of ``root`` itself: ``source`` is ``root/doc_path`` (as spelled or
    once resolved, names compared in NFC) and does not lie inside ``home``."""
    if not source:
        return False
    src = Path(source)
    if home is not None and any(
        _under(s, h) for s in (src, src.resolve()) for h in (home, home.resolve())
    ):
        return False
    wanted = {_nfc(root / doc_path), _nfc(root.resolve() / doc_path)}
    return bool({_nfc(src), _nfc(src.resolve())} & wanted)


def read_stable(
    path: Path,
    limit: int,
    *,
    root: Path | None = None,
    label: str | None = None,
    real_root: str | None = None,
    tries: int = 5,
    wait: float = 0.2,
) -> bytes:
    """The bytes of ``path`` (a regular file inside ``root``, by default its own folder)
    once a read sees the same size and mtime before and after.

    Raises UNREADABLE_FILE when the file keeps changing (it is retried on the next sync),
    NOT_REGULAR_FILE for a FIFO, socket or device, OUTSIDE_ROOT when it is not inside
    (or ``root`` is no longer the folder whose real path was ``real_root``)."""
    root = root or path.parent
    label = label or path.name
    return read_inside(root, path, label, limit, real_root=real_root, tries=tries, wait=wait)


def answer_principal(saved: Mapping[str, Any]) -> str | None:
    """The principal a saved answer was asked for (its recorded filters), or None."""
    filters = (saved.get("conditions") or {}).get("filters") or {}
    principal = filters.get("principal")
    return str(principal) if principal else None


def stale_answers(
    kb: StageContext, *, only: Callable[[Mapping[str, Any]], bool] | None = None
) -> list[StaleAnswer]:
    """Saved answers of ``kb`` whose citations now point to changed or deleted text
    (``only``: keep just the saved answers it accepts, e.g. one principal's)."""
    from citewise.audit.pinned import check_citations

    out: list[StaleAnswer] = []
    for answer_id, _, _ in kb.store.ledger.list_answer_bindings():
        saved = kb.store.ledger.get_answer(answer_id)
        if saved.get("kb") != kb.name:
            continue
        if only is not None and not only(saved):
            continue
        report = check_citations(kb.store, answer_id)
        cited = tuple(
            StaleCitation(
                str(c["id"]),
                str(c["path"]),
                c["change"],
                c.get("line_start"),
                c.get("line_end"),
                str(c.get("reason") or ""),
                str(c.get("old_text") or ""),
                c.get("new_text"),
            )
            for c in report["citations"]
            if c["status"] == "stale"
        )
        if cited:
            stale = tuple(c.id for c in cited)
            out.append(StaleAnswer(answer_id, saved_question(saved), stale, cited))
    return out


def saved_question(saved: Mapping[str, Any]) -> str:
    """The question a saved answer answered: an answer records it in its trace (older
    records may hold it at the top level of the answer); empty when neither has it."""
    answer = saved.get("answer") or {}
    trace = answer.get("trace") or {}
    return str(trace.get("question") or answer.get("question") or "")
