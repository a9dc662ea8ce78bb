"""Revision numbers a caller gives, as the knowledge base's own (pinned retrieval, issue 38).

A caller sees the base's revisions numbered by the changes to documents it may read
(:class:`~citewise.core.access.RevisionView`): its revision ``n`` is the ``n``-th such
change, and every KB revision from that change up to the next one holds the same readable
documents. So a caller's ``n`` pins the KB revision of that change, and the valid range it
is told is in its own numbering: nothing about documents it may not read shows through.
"""

from __future__ import annotations

from citewise.core.access import RevisionView
from citewise.errors import RevisionNotFound


def kb_revision(view: RevisionView, seen: int, head: int, kb: str) -> int:
    """The KB revision that the caller's revision ``seen`` names; :class:`RevisionNotFound`
    naming the caller's valid range when there is none."""
    last = view.number(head)
    if isinstance(seen, bool) or not isinstance(seen, int) or not 1 <= seen <= last:
        valid = f"1 to {last}" if last else "none yet (nothing you may read was added)"
        raise RevisionNotFound(
            f"Knowledge base {kb!r} has no revision {seen!r}; valid revisions: {valid}.",
            hint="Use a revision number an answer or search returned, or leave it out to "
            "use the current one.",
        )
    return view.changes[seen - 1]
