"""Which role each HTTP route needs, checked before the route runs.

The table :data:`ROUTE_ROLES` names every route that changes something and the role it
needs (``editor``: documents; ``admin``: knowledge bases); routes not named there only
read, so any valid key (``reader`` and up) may call them, and they authenticate
themselves as before. :func:`check_role` is an app-wide dependency: for a route that
needs more than ``reader`` it authenticates the caller and answers 403 FORBIDDEN naming the
role needed. A key that may not use the route's knowledge base is left to the route, which
answers 404 as for a base that does not exist (so a refusal never reveals one). The facade
checks the same roles again (``facade/roles.py``), for MCP and every other interface.
"""

from __future__ import annotations

from fastapi import Request

from citewise.facade.caller import Role
from citewise.facade.roles import require
from citewise.server.deps import get_caller

__all__ = ["ROUTE_ROLES", "SAFE", "check_role", "needed_role"]

SAFE = frozenset({"GET", "HEAD", "OPTIONS"})

#: (method, route path) -> the role it needs, and what the refusal calls the action.
ROUTE_ROLES: dict[tuple[str, str], tuple[Role, str]] = {
    ("POST", "/kb"): ("admin", "creating a knowledge base"),
    ("PATCH", "/kb/{kb}"): ("admin", "changing a knowledge base"),
    ("DELETE", "/kb/{kb}"): ("admin", "deleting a knowledge base"),
    ("POST", "/kb/{kb}/documents"): ("editor", "adding documents"),
    ("POST", "/kb/{kb}/documents/{doc:path}/revert"): ("editor", "reverting a document"),
    ("DELETE", "/kb/{kb}/documents/{doc:path}"): ("editor", "deleting a document"),
    ("POST", "/kb/{kb}/sync"): ("editor", "syncing a folder"),
    # The review queue (issue 38): deciding also needs the KB policy's publishers, and
    # reading the queue (GET, so not listed here) needs editor: both in facade/review.py.
    ("POST", "/kb/{kb}/review/{ref}/approve"): ("editor", "approving a candidate"),
    ("POST", "/kb/{kb}/review/{ref}/release"): ("editor", "releasing a quarantined file"),
    ("POST", "/kb/{kb}/review/{ref}/reject"): ("editor", "rejecting held changes"),
    # Takedown (issue 38): withholds a document from every reader, so admins only.
    ("POST", "/kb/{kb}/takedown"): ("admin", "taking a document down"),
    ("POST", "/kb/{kb}/untakedown"): ("admin", "lifting a takedown"),
    ("POST", "/kb/{kb}/retention/apply"): ("admin", "applying retention"),
    # A web address's takedown withholds home-wide snapshots (facade/web_takedown.py).
    ("POST", "/web/takedown"): ("admin", "taking a web address down"),
    ("POST", "/web/untakedown"): ("admin", "lifting a web takedown"),
    # The conflict queue (issue 38): as the review queue, resolving also needs the
    # publishers and reading it needs editor (facade/conflicts.py).
    ("POST", "/kb/{kb}/conflicts/{cid}/resolve"): ("editor", "resolving a conflict"),
    # Questions: a POST that only reads (the answer's ledger entry is the record of any ask).
    ("POST", "/kb/{kb}/search"): ("reader", "searching"),
    ("POST", "/kb/{kb}/evidence"): ("reader", "reading evidence"),
    ("POST", "/kb/{kb}/ask"): ("reader", "asking"),
    ("POST", "/kb/{kb}/conversations"): ("reader", "starting a conversation"),
    ("POST", "/kb/{kb}/conversations/{cid}/turns"): ("reader", "asking a turn"),
    ("POST", "/v1/chat/completions"): ("reader", "asking"),
    # Topic notes (notes/): reading them is a reader's right, as any read.
    ("GET", "/kb/{kb}/notes"): ("reader", "reading notes"),
    ("GET", "/kb/{kb}/notes/{topic}"): ("reader", "reading a note"),
    # Evidence shown as read (server/display.py): renders only the text sent, no KB read.
    ("POST", "/display"): ("reader", "showing evidence"),
}


def needed_role(method: str, path: str) -> tuple[Role, str]:
    """The role a route needs: its entry, ``reader`` for a read, else ``admin`` (a write
    route missing from the table is refused to all but admins: fail closed)."""
    found = ROUTE_ROLES.get((method, path))
    if found is not None:
        return found
    return ("reader", "reading") if method in SAFE else ("admin", f"{method} {path}")


def check_role(request: Request) -> None:
    """The app-wide dependency (see the module docstring)."""
    route = request.scope.get("route")
    path = getattr(route, "path", None)
    if path is None:
        return
    needed, action = needed_role(request.method, path)
    if needed == "reader":
        return  # the route authenticates; every key is at least a reader
    caller = get_caller(request)
    kb = request.path_params.get("kb")
    if kb is not None and not caller.may_use(str(kb)):
        return  # the route answers 404, as for a base that does not exist
    require(caller, needed, action)
