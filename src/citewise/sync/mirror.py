"""Run a sync in two steps: plan it (read and parse, write nothing), then apply the plan as
one revision.

:func:`plan_sync` reads each file from a checked descriptor, compares it with the stored
bytes (unchanged files cost one read and one comparison, no parse, which is what keeps a
sync of an unchanged folder a small fraction of the first ingest) and parses the others.
It holds no lock of its own: a server runs it while searches go on, wrapping only its few
store reads in its shared lock (``reading``). :func:`apply_sync` is the short exclusive
part and checks the store as it stands at commit time: a file planned ``unchanged`` whose
stored head moved meanwhile is reported failed (``CHANGED_DURING_SYNC``, the next sync
takes it), a planned write is stored over whatever is there now (the folder wins, as it
would a moment later), and a planned deletion is made only if the document is still
current and still came from the folder (documents written meanwhile from elsewhere are
never candidates; one written meanwhile from the folder is taken by the next sync).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.core.records import ParsedDocument
from citewise.errors import (
    ChangedDuringSync,
    CitewiseError,
    FileTooLarge,
    NotRegularFile,
    UnreadableFile,
    UsageError,
)
from citewise.ingest.meta_yaml import META_FROM
from citewise.ingest.parse import parse_document
from citewise.ingest.walker import SourceFile, WalkProblem, walk
from citewise.notes.hook import after_commit
from citewise.sync.folder import (
    SyncFile,
    SyncReport,
    SyncStatus,
    came_from,
    read_stable,
    source_of,
    sync_root,
)
from citewise.sync.folder import stale_answers as stale_answers  # kb.py imports it here

if TYPE_CHECKING:
    from citewise.context import StageContext

#: Called after each path with (result, done, total).
SyncProgress = Callable[[SyncFile, int, int], None]
#: A context manager around the plan's store reads (a server's shared lock).
Reading = Callable[[], AbstractContextManager[Any]]


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    """A file to store: its bytes, its parse and the source to record."""

    path: str
    raw: bytes
    parsed: ParsedDocument
    source: str


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """What a sync found and prepared; :func:`apply_sync` commits it."""

    kb: str
    root: Path
    label: str  # how reports name the folder
    files: tuple[SyncFile, ...]  # every walked path, as planned
    writes: tuple[PlannedWrite, ...]
    unchanged: tuple[tuple[str, int], ...]  # (path, stored head version) compared equal
    gone: tuple[tuple[str, int], ...]  # deletion candidates and their head versions
    seen: frozenset[str]

    def report(self) -> SyncReport:
        """The plan as a dry-run report (nothing written)."""
        files = self.files + tuple(SyncFile(p, "deleted") for p, _ in self.gone)
        return SyncReport(self.kb, self.label, files, None, None, dry_run=True)


def _head_source(kb: StageContext, path: str, version_id: int) -> str:
    for v in kb.store.list_versions(kb.name, path):
        if v.version_id == version_id:
            return v.source
    return ""


def missing_from(kb: StageContext, root: Path, seen: set[str] | frozenset[str]) -> list[str]:
    """Current documents that came from ``root`` (:func:`came_from`) and are not in
    ``seen``: never an uploaded document, one added from elsewhere, or one in the home."""
    home = kb.settings.home
    return [
        doc.path
        for doc in kb.store.list_documents(kb.name)
        if doc.path not in seen
        and came_from(_head_source(kb, doc.path, doc.version_id), doc.path, root, home)
    ]


def _read(kb: StageContext, item: SourceFile, real_root: str) -> bytes:
    limit = kb.settings.ingest.max_file_bytes
    try:
        raw = read_stable(
            item.abs_path, limit, root=item.root, label=item.rel_path, real_root=real_root
        )
    except OSError as exc:
        raise UnreadableFile(
            f"{item.rel_path}: cannot read ({exc.strerror or exc}).",
            hint="Check the file's permissions and that it still exists.",
        ) from exc
    if len(raw) > limit:
        raise FileTooLarge(
            f"{item.rel_path}: over the {limit:,}-byte limit.",
            hint="Split the file, or raise ingest.max_file_bytes.",
        )
    return raw


def _plan_file(
    kb: StageContext, item: SourceFile, heads: Mapping[str, int], reading: Reading, real: str
) -> tuple[SyncFile, PlannedWrite | None]:
    """The status of one present file and, when it must be written, what to write
    (``real``: the folder's real path when the sync began)."""
    vid = heads.get(item.rel_path)
    try:
        raw = _read(kb, item, real)
        if vid is not None:
            with reading():
                stored, _ = kb.store.get_version_content(kb.name, item.rel_path, vid)
                same_meta = _same_metadata_files(kb, item, vid)
            if stored == raw and same_meta:
                return SyncFile(item.rel_path, "unchanged"), None
        parsed = parse_document(
            raw,
            name=item.rel_path,
            kb=kb.name,
            doc_path=item.rel_path,
            config=kb.settings.ingest,
            metadata=item.metadata,
        )
    except NotRegularFile as exc:
        return SyncFile(item.rel_path, "skipped", code=exc.code, message=str(exc)), None
    except CitewiseError as exc:
        return SyncFile(item.rel_path, "failed", code=exc.code, message=str(exc)), None
    status: SyncStatus = "added" if vid is None else "changed"
    result = SyncFile(item.rel_path, status, nodes=len(parsed.nodes), chunks=len(parsed.chunks))
    return result, PlannedWrite(item.rel_path, raw, parsed, source_of(item.abs_path))


def _walked(root: Path, home: Path) -> list[SourceFile | WalkProblem]:
    """The walk of ``root`` without anything inside the home (a home kept inside the synced
    folder holds the store and staged uploads, never documents of the folder)."""
    found = list(walk(root))
    try:
        home_rel = Path(os.path.realpath(home)).relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        return found
    return [
        f for f in found if f.rel_path != home_rel and not f.rel_path.startswith(home_rel + "/")
    ]


def plan_sync(
    kb: StageContext,
    folder: str | Path,
    *,
    progress: SyncProgress | None = None,
    reading: Reading = contextlib.nullcontext,
    label: str | None = None,
) -> SyncPlan:
    """Walk, read, compare and parse; write nothing (see the module docstring)."""
    root = sync_root(folder)
    real = os.path.realpath(root)  # the folder is this one throughout, not what replaces it
    found = _walked(root, kb.settings.home)
    if not any(isinstance(f, SourceFile) for f in found):
        raise UsageError(
            f"{label or folder}: the folder holds no document citewise can read; sync refuses "
            "to delete every document that came from it (an emptied or unmounted folder is "
            "more often a mistake).",
            hint="Check the folder; to remove its documents, use 'citewise docs delete PATH'.",
        )
    seen = frozenset(f.rel_path for f in found)
    with reading():
        heads = {d.path: d.version_id for d in kb.store.list_documents(kb.name)}
        gone = [(p, heads[p]) for p in missing_from(kb, root, seen)]
    total = len(found) + len(gone)
    results: list[SyncFile] = []
    writes: list[PlannedWrite] = []
    for item in found:
        if isinstance(item, WalkProblem):
            status: SyncStatus = "failed" if item.fatal else "skipped"
            res = SyncFile(item.rel_path, status, code=item.code, message=item.message)
        else:
            res, write = _plan_file(kb, item, heads, reading, real)
            if write is not None:
                writes.append(write)
        results.append(res)
        if progress is not None:
            progress(res, len(results), total)
    unchanged = tuple((f.path, heads[f.path]) for f in results if f.status == "unchanged")
    return SyncPlan(
        kb.name,
        root,
        label or str(root),
        tuple(results),
        tuple(writes),
        unchanged,
        tuple(gone),
        seen,
    )


def _written(path: str, kb: StageContext, write: PlannedWrite) -> SyncFile:
    try:
        outcome = kb.store.ingest_document(
            kb.name, path, write.raw, write.parsed, source=write.source
        )
    except CitewiseError as exc:
        return SyncFile(path, "failed", code=exc.code, message=str(exc))
    status: SyncStatus = (
        "unchanged"
        if outcome.action == "unchanged"
        else ("added" if outcome.action == "added" else "changed")
    )
    return SyncFile(path, status, nodes=outcome.node_count, chunks=outcome.chunk_count)


def _still_gone(kb: StageContext, plan: SyncPlan, heads: Mapping[str, int]) -> list[str]:
    """The planned deletion candidates that still are: current, and either the same head
    version or a new one that still came from the folder (checked again, per document)."""
    out: list[str] = []
    for path, vid in plan.gone:
        now = heads.get(path)
        if now == vid or (
            now is not None
            and came_from(_head_source(kb, path, now), path, plan.root, kb.settings.home)
        ):
            out.append(path)
    return out


def apply_sync(
    kb: StageContext, plan: SyncPlan, *, progress: SyncProgress | None = None
) -> SyncReport:
    """Commit ``plan`` as one revision, checked against the store as it is now."""
    results = list(plan.files)
    where = {f.path: i for i, f in enumerate(results)}
    heads = {d.path: d.version_id for d in kb.store.list_documents(kb.name)}
    for path, vid in plan.unchanged:
        if heads.get(path) != vid:
            err = ChangedDuringSync(
                f"{path}: the stored document changed while the folder was being read; "
                "this file was not written.",
                hint="Sync again to make the knowledge base mirror the folder.",
            )
            results[where[path]] = SyncFile(path, "failed", code=err.code, message=str(err))
    gone = _still_gone(kb, plan, heads)
    total = len(results) + len(gone)
    kb.store.begin_batch(kb.name)
    try:
        step = max(1, kb.settings.ingest.group_files)
        writes = plan.writes
        for start in range(0, len(writes), step):
            with kb.store.group():  # group commit: each file still whole or absent
                for w in writes[start : start + step]:
                    results[where[w.path]] = _written(w.path, kb, w)
        for done, path in enumerate(gone, start=len(results) + 1):
            kb.store.delete_document(kb.name, path)
            if progress is not None:
                progress(SyncFile(path, "deleted"), done, total)
    finally:
        revision = kb.store.end_batch(kb.name)
    if revision is not None:
        kb.index.sync()  # lexical, dense, graph and scopes in one new state
        after_commit(kb)  # topic notes whose sources changed (notes/hook.py)
    files = tuple(results) + tuple(SyncFile(p, "deleted") for p in gone)
    return SyncReport(
        kb.name,
        plan.label,
        files,
        revision.revision if revision else None,
        revision.hash if revision else None,
    )


def _same_metadata_files(kb: StageContext, item: SourceFile, vid: int) -> bool:
    """Whether the sidecar and folder files give ``item`` what they gave the stored
    version (by the provenance record's digest): a changed sidecar is a change to sync."""
    stored = kb.store.version_metadata(kb.name, item.rel_path).get(vid, {})
    return stored.get(META_FROM) == item.metadata.get(META_FROM)


def run_sync(
    kb: StageContext,
    folder: str | Path,
    *,
    dry_run: bool = False,
    progress: SyncProgress | None = None,
) -> SyncReport:
    """Mirror ``folder`` into ``kb``'s current revision (``KnowledgeBase.sync``)."""
    plan = plan_sync(kb, folder, progress=progress)
    if dry_run:
        return plan.report()
    report = apply_sync(kb, plan, progress=progress)
    if report.revision is not None:
        report = replace(report, stale_answers=tuple(stale_answers(kb)))
    return report
