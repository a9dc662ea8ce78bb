"""The withheld view (issue 38): per policy, a reader without access to a matching document
sees that it exists and why it is withheld, never its text.

With ``redaction: metadata`` in a knowledge base's policy, a search, evidence pack or
answer for a caller also names each **restricted** document (front-matter ``access:``
list without the caller) that the query would have matched: ``{title, reason, owner}``,
where ``title`` is the document's ``title`` metadata or, without one, its path, and
``owner`` its ``owner`` metadata (None when unset). The excerpt, text, citation ids and
scores are never shown. The ledger's ``access`` event lists the same documents under
``redacted`` (path and reason), for the operator.

Off by default (``redaction: off``): where a document's existence is itself secret, it
stays absent, as before issue 38. Documents taken down or expired are withheld from every
reader and are never in this view (``cite resolve`` names them, governance/withhold.py).

"Would have matched" is the recall the operator's audit already uses for
``permission_scope`` (:func:`citewise.answer.failure.withheld_matches`): the query run as
the principals the restricted documents name, within the caller's own scope.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewise.core.access import may_read
from citewise.core.search import SearchFilters
from citewise.core.stored import StoredChunk
from citewise.errors import BadPolicy
from citewise.governance.policy import load_policy

#: Why a restricted document is withheld from a reader not on its access list.
REASON = "restricted: the reader is not on the document's access list"


@dataclass(frozen=True, slots=True)
class WithheldDoc:
    """One document withheld from the caller: what the caller may see, and its path (for
    the ledger only)."""

    path: str
    title: str
    reason: str
    owner: str | None

    def public(self) -> dict[str, Any]:
        """The caller's view: title (or path), reason, owner; nothing else."""
        return {"title": self.title, "reason": self.reason, "owner": self.owner}

    def ledger(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason}


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _denied(chunks: Iterable[StoredChunk], principal: str | None) -> dict[str, Mapping[str, Any]]:
    """(path -> metadata) of each restricted document ``principal`` may not read."""
    out: dict[str, Mapping[str, Any]] = {}
    for c in chunks:
        if c.path not in out and c.metadata.get("access") and not may_read(c.metadata, principal):
            out[c.path] = c.metadata
    return out


def withheld_view(
    home: Path, kb: str, ctx: Any, query: str, filters: SearchFilters | None
) -> list[WithheldDoc]:
    """The documents withheld from the caller that ``query`` would have matched, when the
    policy of ``kb`` says ``redaction: metadata`` (else, or with a malformed policy, none:
    the default stays "looks absent"). ``ctx`` is the stage context asked in."""
    try:
        if load_policy(home, kb).redaction != "metadata":
            return []
    except BadPolicy:
        return []
    from citewise.analysis.question import analyse
    from citewise.answer.failure import withheld_matches

    index = ctx.index
    principal = filters.principal if filters else None
    denied = index.memo(
        ("redaction-denied", principal), lambda: _denied(index.chunks.values(), principal)
    )
    if not denied:
        return []
    found: list[str] = index.memo(
        ("redaction-view", query, filters),
        lambda: withheld_matches(ctx, analyse(query), filters, sorted(denied)),
    )
    return [
        WithheldDoc(
            path,
            _text(denied[path].get("title")) or path,
            REASON,
            _text(denied[path].get("owner")),
        )
        for path in found
    ]


def redacted_paths(
    home: Path, kb: str, ctx: Any, query: str, filters: SearchFilters | None
) -> list[tuple[str, str]]:
    """``(path, reason)`` of :func:`withheld_view`: the ledger's ``redacted`` list (the
    stage context's ``redaction`` hook, context.py)."""
    return [(d.path, d.reason) for d in withheld_view(home, kb, ctx, query, filters)]
