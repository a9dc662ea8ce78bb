"""The review queue's actions: list, show (a line diff against the published text, the
parse warnings and provenance), approve or release (publish, one revision), reject
(discard). Each decision is a ledger event naming the reviewer.

Who may decide: :meth:`Policy.may_publish` (a principal in ``publishers``; with none
named, an admin). Publishing re-parses the held bytes with the metadata they were parsed
with (the same parse, as a revert does) and commits them through the sync commit
(:func:`~citewise.sync.mirror.apply_sync`): writes stored, deletions made only if the
document is still the one held (or still came from the synced folder), one revision.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.core.access import may_read
from citewise.errors import CitewiseError, DocumentNotFound, Forbidden, UsageError
from citewise.governance.gate import held_summary
from citewise.governance.policy import load_policy
from citewise.governance.queue import Held, HeldFile, discard, find, pending, read_blob
from citewise.ingest.parse import parse_document
from citewise.sync.folder import SyncFile, SyncReport
from citewise.sync.mirror import PlannedWrite, SyncPlan, apply_sync

if TYPE_CHECKING:
    from citewise.context import StageContext

#: A diff longer than this many lines is cut (the rest counted, never silently dropped).
MAX_DIFF_LINES = 2000


@dataclass(frozen=True, slots=True)
class Reviewer:
    """Who decides: the principal recorded in the ledger, and whether it is an admin."""

    principal: str | None
    admin: bool = True

    @property
    def name(self) -> str:
        return self.principal or "local"


def queue(ctx: StageContext) -> list[Held]:
    return pending(ctx.settings.home, ctx.name)


def _text_of(ctx: StageContext, file: HeldFile, raw: bytes) -> tuple[str, Any]:
    parsed = parse_document(
        raw,
        name=file.path,
        kb=ctx.name,
        doc_path=file.path,
        config=ctx.settings.ingest,
        metadata=dict(file.metadata or {}),
    )
    return parsed.text, parsed


def _published(ctx: StageContext, path: str) -> tuple[str | None, dict[str, Any]]:
    """The published text of ``path`` and its metadata (None: not a current document)."""
    try:
        doc = ctx.store.get_document(ctx.name, path)
    except DocumentNotFound:
        return None, {}
    return ctx.store.get_document_text(ctx.name, doc.doc_id, doc.version_id), doc.metadata


def line_diff(old: str, new: str) -> tuple[list[str], int]:
    """The unified line diff of ``old`` -> ``new`` (2 lines of context), and how many
    lines were cut past :data:`MAX_DIFF_LINES`."""
    lines = list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), "published", "candidate", lineterm="", n=2
        )
    )
    return lines[:MAX_DIFF_LINES], max(0, len(lines) - MAX_DIFF_LINES)


def _file_view(
    ctx: StageContext, held: Held, file: HeldFile, reader: str | None, scoped: bool
) -> dict[str, Any]:
    old, old_meta = _published(ctx, file.path)
    out: dict[str, Any] = {
        "path": file.path,
        "action": file.action,
        "change": "deleted" if file.action == "delete" else ("added" if old is None else "changed"),
        "warnings": [w.to_json() for w in file.warnings],
        "provenance": {
            "source": file.source,
            "sha256": file.sha256,
            "size": file.size,
            "base_version": file.base_version,
            "submitted_by": held.submitted_by,
            "origin": held.origin,
            "held_at": held.created_at,
        },
    }
    if scoped and not (
        may_read(file.metadata or {}, reader) and (old is None or may_read(old_meta, reader))
    ):
        # A reader sees the diff only of text it may read on both sides (access metadata).
        return out | {"diff": [], "diff_cut": 0, "withheld": "access"}
    if file.action == "delete":  # the whole text goes: say how much, not every line
        lines = len((old or "").splitlines())
        return out | {"diff": [f"@@ -1,{lines} +0,0 @@ (the whole document)"], "diff_cut": 0}
    new, _ = _text_of(ctx, file, read_blob(ctx.settings.home, ctx.name, held, file))
    diff, cut = line_diff(old or "", new)
    return out | {"diff": diff, "diff_cut": cut}


def show(
    ctx: StageContext, ref: str, *, reader: str | None = None, scoped: bool = False
) -> dict[str, Any]:
    """One held entry with each file's diff against the published version, its warnings
    and provenance. ``scoped``: diffs only of text ``reader`` may read."""
    held = find(ctx.settings.home, ctx.name, ref)
    files = [_file_view(ctx, held, f, reader, scoped) for f in held.files]
    return held.to_json() | {"files": files}


def _check(ctx: StageContext, reviewer: Reviewer, action: str) -> None:
    policy = load_policy(ctx.settings.home, ctx.name)
    if not policy.may_publish(reviewer.principal, admin=reviewer.admin):
        who = repr(reviewer.principal) if reviewer.principal else "a caller without a principal"
        needed = (
            f"a principal in its publishers ({', '.join(policy.publishers)})"
            if policy.publishers
            else "the admin role (its policy names no publishers)"
        )
        raise Forbidden(
            f"{who} may not {action} in knowledge base {ctx.name!r}: that needs {needed}.",
            hint="Ask a publisher, or add the principal to 'publishers' in the policy.yaml.",
        )


def _publish(ctx: StageContext, held: Held) -> SyncReport:
    """Commit ``held``'s changes as one revision (see the module docstring)."""
    heads = {d.path: d.version_id for d in ctx.store.list_documents(ctx.name)}
    rows: list[SyncFile] = []
    writes: list[PlannedWrite] = []
    for f in held.files:
        if f.action != "write":
            continue
        try:
            raw = read_blob(ctx.settings.home, ctx.name, held, f)
            _, parsed = _text_of(ctx, f, raw)
        except CitewiseError as exc:
            rows.append(SyncFile(f.path, "failed", code=exc.code, message=str(exc)))
            continue
        writes.append(PlannedWrite(f.path, raw, parsed, f.source))
        rows.append(SyncFile(f.path, "changed" if f.path in heads else "added"))
    gone = tuple(
        (f.path, f.base_version)
        for f in held.files
        if f.action == "delete" and f.base_version is not None and f.path in heads
    )
    plan = SyncPlan(
        ctx.name,
        Path(held.root or "."),
        f"{held.kind} {held.id}",
        tuple(rows),
        tuple(writes),
        (),
        gone,
        frozenset(),
    )
    return apply_sync(ctx, plan)


def _decided(
    ctx: StageContext, held: Held, type_: str, reviewer: Reviewer, extra: dict[str, Any]
) -> None:
    payload = held_summary(held) | {"reviewer": reviewer.name} | extra
    ctx.store.ledger.append_event(type_, payload, kb=ctx.name, principal=reviewer.principal)


def approve(ctx: StageContext, ref: str, reviewer: Reviewer) -> SyncReport:
    """Publish a candidate: one revision, a ``review_approved`` event naming the reviewer."""
    held = find(ctx.settings.home, ctx.name, ref)
    if held.kind != "candidate":
        raise UsageError(
            f"{held.id} is a quarantined file, not a candidate.",
            hint=f"Release it with 'citewise review release {held.id}'.",
        )
    _check(ctx, reviewer, "approve candidates")
    return _finish(ctx, held, "review_approved", reviewer)


def release(ctx: StageContext, ref: str, reviewer: Reviewer) -> SyncReport:
    """Publish a quarantined file (by id or path): one revision, a ``quarantine_released``
    event naming the reviewer."""
    held = find(ctx.settings.home, ctx.name, ref)
    if held.kind != "quarantine":
        raise UsageError(
            f"{held.id} is a candidate, not a quarantined file.",
            hint=f"Approve it with 'citewise review approve {held.id}'.",
        )
    _check(ctx, reviewer, "release quarantined files")
    return _finish(ctx, held, "quarantine_released", reviewer)


def _finish(ctx: StageContext, held: Held, type_: str, reviewer: Reviewer) -> SyncReport:
    report = _publish(ctx, held)
    _decided(
        ctx,
        held,
        type_,
        reviewer,
        {"revision": report.revision, "revision_hash": report.revision_hash},
    )
    discard(ctx.settings.home, ctx.name, held)
    return report


def reject(ctx: StageContext, ref: str, reviewer: Reviewer, reason: str = "") -> Held:
    """Discard a candidate or quarantined file: nothing is published; a ``review_rejected``
    event names the reviewer (and the reason given)."""
    held = find(ctx.settings.home, ctx.name, ref)
    _check(ctx, reviewer, "reject held changes")
    _decided(ctx, held, "review_rejected", reviewer, {"reason": reason[:500]})
    discard(ctx.settings.home, ctx.name, held)
    return held
