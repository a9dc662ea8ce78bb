"""The facade's folder sync: mirror a folder under a configured sync root, the
report scrubbed to the caller's view."""

from __future__ import annotations

from dataclasses import replace

from citewise.errors import (
    DocumentNotFound,
    Forbidden,
)
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.facade.roles import require
from citewise.facade.sync_roots import sync_folder
from citewise.facade.sync_view import folder_names, scrub_report, scrubbed, visible_files
from citewise.governance.gate import gate_plan
from citewise.kb import KnowledgeBase
from citewise.store.adhash import multiset_hash
from citewise.sync.folder import SyncReport, answer_principal, stale_answers
from citewise.sync.mirror import SyncPlan, apply_sync, plan_sync


class FolderSync(ServiceBase):
    """Folder sync under a configured sync root, reported as the caller sees it."""

    def sync(
        self, caller: Caller, name: str, folder: str, *, root: int = 0, dry_run: bool = False
    ) -> SyncReport:
        """Mirror a folder under a configured sync root (see :mod:`.sync_roots`). As for
        uploads, the folder is read and parsed outside the write lock (store reads take the
        shared side); only the commit and the index publish are exclusive. The report is
        the caller's view, with no server path (:mod:`.sync_view`)."""
        with self.lock.read():
            kb = self.kb(caller, name)
            require(caller, "editor", "syncing a folder")
            if not caller.all_kbs:
                raise Forbidden("Only keys with access to all bases may sync folders.")
            target = sync_folder(self.sync_roots, folder, root)
        names = folder_names(self.sync_roots, root, target)
        with scrubbed(names):
            plan = plan_sync(kb.context, target, reading=self.lock.read, label=names[str(target)])
            if dry_run:
                report = plan.report()
            else:
                with self.lock.write():
                    # The publication gate (policy.yaml) holds what must wait for review.
                    plan, _ = gate_plan(kb.context, plan, submitter=caller.principal)
                    report = apply_sync(kb.context, plan)
                    self._version_meta.clear()
        with self.lock.read():
            return scrub_report(self._sync_seen(caller, kb, report, plan), names)

    def _sync_seen(
        self, caller: Caller, kb: KnowledgeBase, report: SyncReport, plan: SyncPlan
    ) -> SyncReport:
        """Rows, counts, stale answers, revision number and hash as the caller sees them."""

        def live(path: str) -> list[int]:
            try:
                return [v.version_id for v in kb.versions(path) if v.action != "deleted"]
            except DocumentNotFound:
                return []

        def readable(path: str, vid: int) -> bool:
            return self._readable_version(kb, caller, path, vid)

        planned = {w.path: w.parsed.metadata for w in plan.writes} if report.dry_run else {}
        files = visible_files(report.files, live, readable, planned, caller.principal)
        seen = replace(report, files=files)
        if report.revision is None:
            return seen
        mine = stale_answers(kb.context, only=lambda s: answer_principal(s) == caller.principal)
        docs = self.visible_documents(caller, kb)
        return replace(
            seen,
            revision=self._view(caller, kb.name).number(report.revision),
            revision_hash=multiset_hash((d.path, d.content_sha256) for d in docs),
            stale_answers=tuple(mine),
        )
