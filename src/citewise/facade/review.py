"""The facade's review queue (issue 38): list, show, approve, reject and release held
changes for HTTP and MCP callers, under the service's lock and access rules.

Roles: reading the queue and deciding need at least ``editor`` (``server/roles.py``);
deciding also needs the policy's consent (a principal in ``publishers``; with none named,
the ``admin`` role: :meth:`~citewise.governance.policy.Policy.may_publish`). Access: a held
file whose metadata (front matter, sidecar or upload fields) the caller may not read is
left out of what it is shown, and counted in ``withheld_files``; its diff is shown only
when the caller may read both sides.
"""

from __future__ import annotations

from typing import Any

from citewise.core.access import may_read
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.facade.roles import require
from citewise.governance import review
from citewise.governance.policy import load_policy
from citewise.governance.queue import Held


def _readable(held: Held, principal: str | None) -> list[bool]:
    return [may_read(f.metadata or {}, principal) for f in held.files]


def _summary(held: Held, principal: str | None) -> dict[str, Any]:
    """A held entry as the caller may see it: no metadata, no unreadable file."""
    shown = [f for f, ok in zip(held.files, _readable(held, principal), strict=True) if ok]
    return {
        "id": held.id,
        "kind": held.kind,
        "created_at": held.created_at,
        "submitted_by": held.submitted_by,
        "origin": held.origin,
        "files": [
            {
                "path": f.path,
                "action": f.action,
                "size": f.size,
                "sha256": f.sha256,
                "warnings": [w.to_json() for w in f.warnings],
            }
            for f in shown
        ],
        "withheld_files": len(held.files) - len(shown),
        "reasons": [r.to_json() for r in held.reasons],
    }


def _no_server_path(file: dict[str, Any]) -> dict[str, Any]:
    """A file's provenance without the server's own paths (an upload's staging folder, a
    sync root): what it came through, and its path in the knowledge base."""
    where = dict(file["provenance"])
    where["source"] = f"{where['origin']}: {file['path']}" if where["source"] else ""
    return file | {"provenance": where}


class ReviewQueue(ServiceBase):
    """The review queue as the caller sees it (see the module docstring)."""

    def review_queue(self, caller: Caller, name: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            require(caller, "editor", "reading the review queue")
            policy = load_policy(self.home.settings.home, kb.name)
            held = review.queue(kb.context)
        may = policy.may_publish(caller.principal, admin=caller.has_role("admin"))
        return {
            "kb": kb.name,
            "policy": policy.to_json(),
            "may_decide": may,
            "held": [_summary(h, caller.principal) for h in held],
        }

    def review_show(self, caller: Caller, name: str, ref: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            require(caller, "editor", "reading the review queue")
            shown = review.show(kb.context, ref, reader=caller.principal, scoped=True)
        readable = [_no_server_path(f) for f in shown["files"] if "withheld" not in f]
        shown = {k: v for k, v in shown.items() if k not in ("root",)}
        return shown | {"files": readable, "withheld_files": len(shown["files"]) - len(readable)}

    def review_decide(
        self, caller: Caller, name: str, ref: str, action: str, reason: str = ""
    ) -> dict[str, Any]:
        """``approve``, ``release`` or ``reject`` ``ref``; the result as the caller sees it."""
        with self.lock.read():
            kb = self.kb(caller, name)
            require(caller, "editor", f"{action} in the review queue")
        who = review.Reviewer(caller.principal, admin=caller.has_role("admin"))
        with self.lock.write():
            if action == "reject":
                held = review.reject(kb.context, ref, who, reason)
                self._version_meta.clear()
                return {"rejected": held.id, **_summary(held, caller.principal)}
            decide = review.approve if action == "approve" else review.release
            report = decide(kb.context, ref, who)
            self._version_meta.clear()
            docs = {d.path for d in self.visible_documents(caller, kb)}
        revision = report.revision
        return {
            "id": ref,
            "action": action,
            "revision": None if revision is None else self._view(caller, kb.name).number(revision),
            "files": [
                {"path": f.path, "status": f.status, "code": f.code}
                for f in report.files
                if f.path in docs or f.status in ("deleted", "failed")
            ],
        }
