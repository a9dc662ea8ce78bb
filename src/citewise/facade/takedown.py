"""Takedowns for HTTP and MCP callers (issue 38): ``admin`` only, under the write lock.

The document must exist and its ``access:`` list must admit the caller (else
DOC_NOT_FOUND, as for any path it may not read). The takedown itself is
``governance/withhold.py``'s: every stored version of the path is withheld from every read
path, the history keeps its hashes, and the ledger records who, when and why.
"""

from __future__ import annotations

from typing import Any

from citewise.core.access import may_read_access
from citewise.errors import DocumentNotFound
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.facade.roles import require
from citewise.governance.withhold import take_down


class Takedowns(ServiceBase):
    """``takedown``: withhold a document's versions (see the module docstring)."""

    def takedown(self, caller: Caller, name: str, path: str, reason: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            require(caller, "admin", "taking a document down")
            metas = self._metadata_or_none(kb.name, path)
        if not metas or not any(may_read_access(m, caller.principal) for m in metas):
            raise DocumentNotFound(f"No document {path!r} in knowledge base {kb.name!r}.")
        with self.lock.write():
            done = take_down(self.home.store, kb.name, path, reason, by=caller.principal)
            self._version_meta.clear()
        return done.to_json()

    def _metadata_or_none(self, kb: str, path: str) -> list[dict[str, Any]]:
        try:
            return list(self.home.store.version_metadata(kb, path).values())
        except DocumentNotFound:
            return []
