"""The facade's conflict review queue (issue 38): list recorded conflicts and resolve one
for HTTP callers, under the service's lock and access rules.

Roles: reading the queue and resolving need at least ``editor`` (``server/roles.py``;
the ``GET`` here, since a ``GET`` never needs more than ``reader`` at the route table);
resolving also needs the policy's consent, as deciding in the review queue does (a
principal in ``publishers``; with none named, the ``admin`` role). Access: a conflict
with a side in a document the caller may not read is left out of what it is shown (its
paths and text included), counted in ``withheld``, and cannot be resolved by it.
"""

from __future__ import annotations

from typing import Any

from citewise.errors import ConflictNotFound
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.facade.roles import require
from citewise.governance import conflicts as queue
from citewise.governance.conflicts import Recorded
from citewise.governance.policy import load_policy


class ConflictQueue(ServiceBase):
    """The conflict review queue as the caller sees it (see the module docstring)."""

    def _readable(self, caller: Caller, name: str) -> tuple[list[Recorded], int]:
        kb = self.kb(caller, name)
        require(caller, "editor", "reading the conflict queue")
        paths = {d.path for d in self.visible_documents(caller, kb)}
        found = kb.conflicts()
        shown = [r for r in found if all(s["path"] in paths for s in r.sides)]
        return shown, len(found) - len(shown)

    def conflict_queue(self, caller: Caller, name: str) -> dict[str, Any]:
        with self.lock.read():
            shown, withheld = self._readable(caller, name)
            policy = load_policy(self.home.settings.home, name)
        day = queue.today()
        return {
            "kb": name,
            "policy": {"conflicts": policy.conflicts},
            "may_resolve": policy.may_publish(caller.principal, admin=caller.has_role("admin")),
            "conflicts": [r.to_json(day) for r in shown],
            "withheld": withheld,
        }

    def conflict_resolve(
        self,
        caller: Caller,
        name: str,
        cid: str,
        governs: str,
        until: str | None = None,
        note: str = "",
    ) -> dict[str, Any]:
        """Resolve ``cid`` as the caller; the record as it now stands."""
        day = queue.parse_day(until or None)
        with self.lock.read():
            shown, _ = self._readable(caller, name)
        if not any(r.id == cid for r in shown):  # unknown, or a side it may not read
            queue.find(self.home.settings.home, name, cid)  # a malformed id: its own error
            raise ConflictNotFound(
                f"No recorded conflict {cid} in knowledge base {name!r}.",
                hint="List the conflicts with GET /kb/{kb}/conflicts.",
            )
        with self.lock.write():
            rec = self.home.kb(name).resolve_conflict(
                cid,
                governs,
                until=day,
                note=note,
                principal=caller.principal,
                admin=caller.has_role("admin"),
            )
        return rec.to_json(queue.today())
