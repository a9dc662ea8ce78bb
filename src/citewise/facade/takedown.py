"""Takedowns and their lifting for HTTP and MCP callers (issue 38): ``admin`` only, under
the write lock.

The document must exist and its ``access:`` list must admit the caller (else
DOC_NOT_FOUND, as for any path it may not read). The takedown itself is
``governance/withhold.py``'s: every stored version of the path is withheld from every read
path, the history keeps its hashes, and the ledger records who, when and why.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from citewise.core.access import may_read_access
from citewise.errors import DocumentNotFound
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.facade.roles import require
from citewise.governance.web_withhold import expire_snapshots
from citewise.governance.withhold import (
    WithheldDocument,
    expire,
    lift_takedown,
    take_down,
    utc_today,
)


class Takedowns(ServiceBase):
    """``takedown`` / ``untakedown``: withhold a document's versions, or lift that (see the
    module docstring)."""

    def takedown(self, caller: Caller, name: str, path: str, reason: str) -> dict[str, Any]:
        return self._withhold(caller, name, path, reason, take_down, "taking a document down")

    def untakedown(self, caller: Caller, name: str, path: str, reason: str) -> dict[str, Any]:
        """Lift a takedown (same rules: ``admin``, a path the caller may read)."""
        return self._withhold(caller, name, path, reason, lift_takedown, "lifting a takedown")

    def retention_apply(self, caller: Caller, name: str, today: date | None) -> dict[str, Any]:
        """Run the retention sweep as of ``today`` (UTC today by default): ``admin``."""
        with self.lock.read():
            kb = self.kb(caller, name)
            require(caller, "admin", "applying retention")
        day = today or utc_today()
        with self.lock.write():
            done = expire(self.home.store, self.home.settings.home, kb.name, day)
            web = expire_snapshots(self.home.store, self.home.settings.home, kb.name, day)
            self._version_meta.clear()
        # A document the caller may not read by its access list is counted, never named.
        shown = [d for d in done if self._may_read_path(caller, kb.name, d.path)]
        return {
            "kb": kb.name,
            "today": day.isoformat(),
            "expired": [d.to_json() for d in shown],
            "withheld": len(done) - len(shown),
            "web_expired": web.to_json() if web else None,  # governance/web_withhold.py
        }

    def _may_read_path(self, caller: Caller, kb: str, path: str) -> bool:
        metas = self._metadata_or_none(kb, path)
        return any(may_read_access(m, caller.principal) for m in metas)

    def _withhold(
        self,
        caller: Caller,
        name: str,
        path: str,
        reason: str,
        act: Callable[..., WithheldDocument],
        doing: str,
    ) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            require(caller, "admin", doing)
            metas = self._metadata_or_none(kb.name, path)
        if not any(may_read_access(m, caller.principal) for m in metas):
            raise DocumentNotFound(f"No document {path!r} in knowledge base {kb.name!r}.")
        with self.lock.write():
            done = act(self.home.store, kb.name, path, reason, by=caller.principal)
            self._version_meta.clear()
        return done.to_json()

    def _metadata_or_none(self, kb: str, path: str) -> list[dict[str, Any]]:
        try:
            return list(self.home.store.version_metadata(kb, path).values())
        except DocumentNotFound:
            return []
