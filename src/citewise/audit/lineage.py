"""Lineage ids: which conversation, turn, task and parent an answer or recall belongs to.

Callers (CLI ``--lineage``, HTTP body field ``lineage``, MCP argument ``lineage``) pass
them; they are checked here and recorded as given in the ledger entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from citewise.core.ledger_entries import LINEAGE_KEYS
from citewise.errors import UsageError

__all__ = ["LINEAGE_KEYS", "check_lineage"]
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}")


def check_lineage(lineage: Mapping[str, object] | None) -> dict[str, str] | None:
    """``lineage`` as sorted ``{key: id}`` strings, or None when empty.

    Raises UsageError naming the key for an unknown key or an id that is not 1 to 128
    letters, digits, ``.``, ``_``, ``:`` or ``-``.
    """
    if not lineage:
        return None
    out: dict[str, str] = {}
    for key in sorted(lineage):
        if key not in LINEAGE_KEYS:
            raise UsageError(
                f"Unknown lineage key {key!r}.", hint=f"Use one of {', '.join(LINEAGE_KEYS)}."
            )
        value = str(lineage[key])
        if not _ID.fullmatch(value):
            raise UsageError(
                f"Lineage {key} {value[:40]!r} is not a valid id.",
                hint="Use 1 to 128 letters, digits, '.', '_', ':' or '-'.",
            )
        out[key] = value
    return out
