"""The role check every write of the facade makes, for HTTP and MCP alike.

A caller's role (:data:`~citewise.facade.caller.Role`) bounds what it may do on the
knowledge bases it may use; which bases it may use, and which documents it may read, stay
the key's ``kbs`` and principal. Readers that try to write get 403 FORBIDDEN naming the
role needed; the HTTP server checks the same table before the route runs
(``server/roles.py``), and the facade checks again, so the MCP tools and any other
interface over the facade are held to it too.
"""

from __future__ import annotations

from citewise.errors import Forbidden
from citewise.facade.caller import Caller, Role

__all__ = ["require"]


def require(caller: Caller, needed: Role, action: str) -> None:
    """Raise FORBIDDEN unless ``caller`` has ``needed`` or a higher role."""
    if not caller.has_role(needed):
        raise Forbidden(
            f"This key's role is {caller.role}; {action} needs the {needed} role.",
            hint=f"Use a key created with 'citewise keys add --role {needed}'.",
        )
