"""Who is asking: the access scope every interface (HTTP, MCP, the CLI) hands the facade.

A caller is a name, the principal matched against documents' front-matter ``access:``
lists, and the knowledge bases it may use (``*`` = all). The HTTP and MCP servers get one
from an API key (:class:`~citewise.server.auth.KeyStore`); the CLI builds one from ``--as``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is asking: the key's name, its principal and the knowledge bases it may use."""

    name: str
    principal: str | None
    kbs: frozenset[str]

    @property
    def all_kbs(self) -> bool:
        return "*" in self.kbs

    def may_use(self, kb: str) -> bool:
        return self.all_kbs or kb in self.kbs


#: The caller when no keys are configured (loopback only).
LOCAL = Caller(name="local", principal=None, kbs=frozenset({"*"}))
