"""Run a sync: plan each path's status, then apply the plan as one revision.

Unchanged files cost one read and one comparison with the stored bytes (no parse), which
is what keeps a sync of an unchanged folder a small fraction of the first ingest.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.core.records import ParsedDocument
from citewise.errors import CitewiseError, FileTooLarge, UnreadableFile, UsageError
from citewise.ingest.parse import parse_document
from citewise.ingest.walker import SourceFile, WalkProblem, walk
from citewise.sync.folder import (
    StaleAnswer,
    SyncFile,
    SyncReport,
    SyncStatus,
    inside,
    read_stable,
    source_of,
    sync_root,
)

if TYPE_CHECKING:
    from citewise.context import StageContext

#: Called after each path with (result, done, total).
SyncProgress = Callable[[SyncFile, int, int], None]


def missing_from(kb: StageContext, root: Path, seen: set[str]) -> list[str]:
    """Current documents that came from ``root`` (by recorded source) and are not in ``seen``."""
    out: list[str] = []
    for doc in kb.store.list_documents(kb.name):
        if doc.path in seen:
            continue
        _, source = kb.store.get_version_content(kb.name, doc.path, doc.version_id)
        if inside(source, root):
            out.append(doc.path)
    return out


def _read(kb: StageContext, item: SourceFile) -> bytes:
    limit = kb.settings.ingest.max_file_bytes
    try:
        raw = read_stable(item.abs_path, limit)
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
    kb: StageContext, item: SourceFile, heads: dict[str, int]
) -> tuple[SyncFile, tuple[bytes, ParsedDocument] | None]:
    """The status of one present file and, when it must be written, its bytes and parse."""
    try:
        raw = _read(kb, item)
        vid = heads.get(item.rel_path)
        if vid is not None:
            stored, _ = kb.store.get_version_content(kb.name, item.rel_path, vid)
            if stored == raw:
                return SyncFile(item.rel_path, "unchanged"), None
        parsed = parse_document(
            raw,
            name=item.rel_path,
            kb=kb.name,
            doc_path=item.rel_path,
            config=kb.settings.ingest,
        )
    except CitewiseError as exc:
        return SyncFile(item.rel_path, "failed", code=exc.code, message=str(exc)), None
    status: SyncStatus = "added" if vid is None else "changed"
    result = SyncFile(item.rel_path, status, nodes=len(parsed.nodes), chunks=len(parsed.chunks))
    return result, (raw, parsed)


def run_sync(
    kb: StageContext,
    folder: str | Path,
    *,
    dry_run: bool = False,
    progress: SyncProgress | None = None,
) -> SyncReport:
    """Mirror ``folder`` into ``kb``'s current revision (``KnowledgeBase.sync``)."""
    root = sync_root(folder)
    found = list(walk(root))
    if any(isinstance(f, WalkProblem) and f.code == "NO_DOCUMENTS" for f in found):
        raise UsageError(
            f"{folder}: the folder holds no document citewise can read; sync refuses to "
            "delete every document that came from it (an emptied or unmounted folder is "
            "more often a mistake).",
            hint="Check the folder; to remove its documents, use 'citewise docs delete PATH'.",
        )
    heads = {d.path: d.version_id for d in kb.store.list_documents(kb.name)}
    seen = {f.rel_path for f in found}
    gone = missing_from(kb, root, seen)
    total = len(found) + len(gone)
    results: list[SyncFile] = []
    writes: list[tuple[SourceFile, SyncFile, bytes, ParsedDocument]] = []
    done = 0
    for item in found:
        if isinstance(item, WalkProblem):
            status: SyncStatus = "failed" if item.fatal else "skipped"
            res = SyncFile(item.rel_path, status, code=item.code, message=item.message)
        else:
            res, payload = _plan_file(kb, item, heads)
            if payload is not None:
                writes.append((item, res, *payload))
        results.append(res)
        done += 1
        if progress is not None:
            progress(res, done, total)
    results.extend(SyncFile(p, "deleted") for p in gone)
    if dry_run:
        return SyncReport(kb.name, str(root), tuple(results), None, None, dry_run=True)
    revision = None
    kb.store.begin_batch(kb.name)
    try:
        step = max(1, kb.settings.ingest.group_files)
        for start in range(0, len(writes), step):
            with kb.store.group():  # group commit: each file still whole or absent
                for item, res, raw, parsed in writes[start : start + step]:
                    try:
                        kb.store.ingest_document(
                            kb.name, item.rel_path, raw, parsed, source=source_of(item.abs_path)
                        )
                    except CitewiseError as exc:
                        fail = SyncFile(item.rel_path, "failed", code=exc.code, message=str(exc))
                        results[results.index(res)] = fail
        for path in gone:
            kb.store.delete_document(kb.name, path)
            done += 1
            if progress is not None:
                progress(SyncFile(path, "deleted"), done, total)
    finally:
        revision = kb.store.end_batch(kb.name)
    if revision is not None:
        kb.index.sync()  # lexical, dense, graph and scopes in one new state
    report = SyncReport(
        kb.name,
        str(root),
        tuple(results),
        revision.revision if revision else None,
        revision.hash if revision else None,
    )
    if revision is not None:
        report = _with_stale(kb, report)
    return report


def _with_stale(kb: StageContext, report: SyncReport) -> SyncReport:
    from dataclasses import replace

    return replace(report, stale_answers=tuple(stale_answers(kb)))


def stale_answers(kb: StageContext) -> list[StaleAnswer]:
    """Saved answers of ``kb`` whose citations now point to changed or deleted text."""
    from citewise.audit.pinned import check_citations

    out: list[StaleAnswer] = []
    for answer_id, _, _ in kb.store.ledger.list_answer_bindings():
        saved = kb.store.ledger.get_answer(answer_id)
        if saved.get("kb") != kb.name:
            continue
        report = check_citations(kb.store, answer_id)
        stale = tuple(str(c["id"]) for c in report["citations"] if c["status"] == "stale")
        if stale:
            question = str(saved["answer"].get("question", ""))
            out.append(StaleAnswer(answer_id, question, stale))
    return out
