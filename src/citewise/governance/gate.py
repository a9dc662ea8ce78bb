"""The publication gate at ingest: what an add, upload or sync may publish at once, and
what it holds for review or in quarantine (by the knowledge base's policy).

One :class:`Gate` per ingest batch. :meth:`Gate.admit` decides per parsed file: a file
whose parse warnings (or size) the policy's quarantine rules name is held alone in
quarantine, in either publication mode; in ``review`` mode every other write (and, for a
sync, every deletion) goes into the batch's one candidate; in ``open`` mode the rest is
stored as before. :meth:`Gate.close` files the candidate and writes the ledger events
(paths and hashes only, never text). A change already held (same path and bytes) is not
held twice: the report names the entry that holds it, so syncing a folder again while
its changes wait for review stages nothing new.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.core.records import ParsedDocument
from citewise.governance.holds import holds, parse_warnings
from citewise.governance.policy import Policy, load_policy
from citewise.governance.queue import Entry, Held, HeldFile, pending, pending_keys
from citewise.sync.folder import SyncFile, SyncReport, stale_answers
from citewise.sync.mirror import SyncPlan, SyncProgress, apply_sync, plan_sync

if TYPE_CHECKING:
    from citewise.context import StageContext

#: Report codes of a held file (its status is ``skipped``: nothing was stored now).
HELD_FOR_REVIEW = "HELD_FOR_REVIEW"
QUARANTINED = "QUARANTINED"


@dataclass(frozen=True, slots=True)
class Decision:
    """Why a file was not stored now: the report code and the words for its row."""

    code: str
    message: str


class Gate:
    """The gate of one ingest batch (see the module docstring)."""

    def __init__(
        self,
        ctx: StageContext,
        policy: Policy,
        *,
        origin: str,
        submitter: str | None = None,
        root: str = "",
    ) -> None:
        self.ctx = ctx
        self.policy = policy
        self.home = ctx.settings.home
        self.held_before = pending_keys(pending(self.home, ctx.name))
        #: The published head version of each current document (a held file's base).
        self.docs = {d.path: d for d in ctx.store.list_documents(ctx.name)}
        self.heads = {path: d.version_id for path, d in self.docs.items()}
        self.candidate: Entry | None = None
        if policy.publication == "review":
            self.candidate = Entry(
                self.home, ctx.name, "candidate", origin=origin, submitted_by=submitter, root=root
            )
        self.origin = origin
        self.submitter = submitter
        #: Quarantined files held so far; their ledger events are written by :meth:`close`
        #: (after the store's batch, never inside one of its transactions).
        self.quarantined: list[Held] = []

    def admit(
        self,
        path: str,
        raw: bytes,
        parsed: ParsedDocument,
        source: str,
    ) -> Decision | None:
        """None: store the file now. Else why it is held (and where)."""
        if self._published_as_is(path, raw, parsed):
            return None  # the store reports it unchanged; nothing to review
        digest = hashlib.sha256(raw).hexdigest()
        already = self.held_before.get((path, "write", digest))
        if already is not None:
            return Decision(
                QUARANTINED if already.startswith("q_") else HELD_FOR_REVIEW,
                f"{path}: these bytes are already held as {already} (unchanged since); "
                f"see 'citewise review show {already}'.",
            )
        reasons = holds(parsed.metadata, len(raw), self.policy.quarantine)
        held = HeldFile(
            path,
            "write",
            source=source,
            metadata=dict(parsed.metadata),
            warnings=tuple(parse_warnings(parsed.metadata)),
            base_version=self.heads.get(path),
        )
        if reasons:
            entry = Entry(
                self.home,
                self.ctx.name,
                "quarantine",
                origin=self.origin,
                submitted_by=self.submitter,
            )
            entry.add_write(raw, held)
            done = entry.commit(tuple(reasons))
            self.quarantined.append(done)
            why = "; ".join(r.message for r in reasons)
            return Decision(
                QUARANTINED,
                f"{path}: held in quarantine as {done.id} ({why}); not in answers until a "
                f"publisher releases it ('citewise review release {done.id}').",
            )
        if self.candidate is None:
            return None
        self.candidate.add_write(raw, held)
        return Decision(
            HELD_FOR_REVIEW,
            f"{path}: held for review in candidate {self.candidate.id}; published when a "
            f"publisher approves it ('citewise review approve {self.candidate.id}').",
        )

    def _published_as_is(self, path: str, raw: bytes, parsed: ParsedDocument) -> bool:
        """Whether ``path``'s published head already is this file: the same bytes, title
        and metadata (what the store compares before it calls a file unchanged)."""
        doc = self.docs.get(path)
        if doc is None or doc.metadata != parsed.metadata or doc.title != parsed.title:
            return False
        stored, _ = self.ctx.store.get_version_content(self.ctx.name, path, doc.version_id)
        return stored == raw

    def delete(self, path: str, base_version: int) -> Decision | None:
        """A deletion a sync planned: None to delete now, else held in the candidate."""
        if self.candidate is None:
            return None
        if (path, "delete", "") in self.held_before:
            held_id = self.held_before[(path, "delete", "")]
            return Decision(HELD_FOR_REVIEW, f"{path}: its deletion is already held in {held_id}.")
        self.candidate.add_delete(path, base_version)
        return Decision(
            HELD_FOR_REVIEW,
            f"{path}: deletion held for review in candidate {self.candidate.id}.",
        )

    def close(self) -> Held | None:
        """File the candidate (when it holds anything) and record what the batch held in
        the ledger (call it after the store's batch has ended)."""
        for held in self.quarantined:
            self._event("quarantine_held", held)
        self.quarantined = []
        entry, self.candidate = self.candidate, None
        if entry is None:
            return None
        if not entry.files:
            entry.abort()
            return None
        done = entry.commit()
        self._event("review_candidate", done)
        return done

    def abort(self) -> None:
        if self.candidate is not None:
            self.candidate.abort()
            self.candidate = None

    def _event(self, type_: str, held: Held) -> None:
        self.ctx.store.ledger.append_event(
            type_, held_summary(held), kb=self.ctx.name, principal=held.submitted_by
        )


def held_summary(held: Held) -> dict[str, object]:
    """What the ledger records of a held entry: ids, paths, actions, hashes, sizes and
    warning classes; never text."""
    return {
        "held": held.id,
        "kind": held.kind,
        "origin": held.origin,
        "files": [
            {"path": f.path, "action": f.action, "sha256": f.sha256, "size": f.size}
            for f in held.files
        ],
        "reasons": sorted({r.kind for r in held.reasons}),
    }


def open_gate(
    ctx: StageContext, *, origin: str, submitter: str | None = None, root: str = ""
) -> Gate | None:
    """The batch's gate, or None when the policy holds nothing back (open, no quarantine):
    then ingest is exactly what it was."""
    policy = load_policy(ctx.settings.home, ctx.name)
    if not policy.gated:
        return None
    return Gate(ctx, policy, origin=origin, submitter=submitter, root=root)


def gate_plan(
    ctx: StageContext, plan: SyncPlan, *, submitter: str | None = None
) -> tuple[SyncPlan, Held | None]:
    """``plan`` with what the policy holds taken out (each held row reported ``skipped``
    with its code), and the candidate filed. Unchanged when nothing is gated."""
    gate = open_gate(ctx, origin="sync", submitter=submitter, root=str(plan.root))
    if gate is None:
        return plan, None
    rows: dict[str, SyncFile] = {}
    try:
        writes = []
        for w in plan.writes:
            said = gate.admit(w.path, w.raw, w.parsed, w.source)
            if said is None:
                writes.append(w)
            else:
                rows[w.path] = SyncFile(w.path, "skipped", code=said.code, message=said.message)
        gone = []
        for path, vid in plan.gone:
            said = gate.delete(path, vid)
            if said is None:
                gone.append((path, vid))
            else:
                rows[path] = SyncFile(path, "skipped", code=said.code, message=said.message)
        candidate = gate.close()
    except BaseException:
        gate.abort()
        raise
    files = tuple(rows.get(f.path, f) for f in plan.files)
    files += tuple(rows[p] for p, _ in plan.gone if p in rows)
    return replace(plan, files=files, writes=tuple(writes), gone=tuple(gone)), candidate


def gated_sync(
    ctx: StageContext, folder: str | Path, *, progress: SyncProgress | None = None
) -> SyncReport:
    """``run_sync`` through the gate: plan, hold what the policy holds, commit the rest."""
    plan, _ = gate_plan(ctx, plan_sync(ctx, folder, progress=progress))
    report = apply_sync(ctx, plan, progress=progress)
    if report.revision is not None:
        report = replace(report, stale_answers=tuple(stale_answers(ctx)))
    return report
