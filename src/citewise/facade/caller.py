"""Who is asking: the access scope every interface (HTTP, MCP, the CLI) hands the facade.

A caller is a name, the principal matched against documents' front-matter ``access:``
lists, and the knowledge bases it may use (``*`` = all). The HTTP and MCP servers get one
from an API key (:class:`~citewise.server.auth.KeyStore`); the CLI builds one from ``--as``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: What a key may do, each including the one before (docs/security.md, "Roles"):
#: ``reader`` searches, reads and asks; ``editor`` also adds, syncs, deletes and reverts
#: documents; ``admin`` also creates, changes and deletes knowledge bases.
Role = Literal["reader", "editor", "admin"]
ROLES: tuple[Role, ...] = ("reader", "editor", "admin")


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is asking: the key's name, its principal and the knowledge bases it may use."""

    name: str
    principal: str | None
    kbs: frozenset[str]
    #: Keys made before roles existed, and the local user, keep every right (admin).
    role: Role = "admin"

    @property
    def all_kbs(self) -> bool:
        return "*" in self.kbs

    def may_use(self, kb: str) -> bool:
        return self.all_kbs or kb in self.kbs

    def has_role(self, needed: Role) -> bool:
        """Whether this caller's role is ``needed`` or one above it."""
        return ROLES.index(self.role) >= ROLES.index(needed)


#: The caller when no keys are configured (loopback only).
LOCAL = Caller(name="local", principal=None, kbs=frozenset({"*"}))
