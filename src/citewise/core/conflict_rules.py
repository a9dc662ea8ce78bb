"""Recorded decisions about conflicts between two sources (issue 38): the types the
answer stages read and the governance queue writes.

A conflict is named by its **pair of spans**: each side's document path and the exact
text it states, in sorted order (:func:`pair_id`). The same two statements give the same
id whichever question met them and whatever version numbers the documents have since
taken; a side whose text changed is another pair (its resolution was about other words).

A :class:`Resolution` says which side governs, who decided and, optionally, the last day
it holds (``until``, inclusive, UTC). :class:`ConflictRules` is what one ask sees: the
knowledge base's policy for unresolved conflicts and the resolutions, with the day they
are judged on (a fixed day in tests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

__all__ = ["ConflictMode", "ConflictRules", "Resolution", "pair_id"]

ConflictMode = Literal["degrade", "needs_review"]


def pair_id(sides: Iterable[tuple[str, str]]) -> str:
    """``k_`` and 16 hex digits of the sha256 of the sorted ``(path, text)`` sides."""
    h = hashlib.sha256()
    for path, text in sorted({(path, " ".join(text.split())) for path, text in sides}):
        h.update(path.encode("utf-8") + b"\x00" + text.encode("utf-8") + b"\x01")
    return "k_" + h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Resolution:
    """Which side of conflict ``id`` governs: the side's document ``path`` and its text."""

    id: str
    governs_path: str
    governs_text: str
    resolver: str
    resolved_at: str  # ISO 8601 UTC
    until: date | None = None  # the last day the resolution holds (inclusive)
    note: str = ""

    def in_force(self, today: date) -> bool:
        return self.until is None or today <= self.until

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "governs": self.governs_path,
            "governs_text": self.governs_text,
            "resolver": self.resolver,
            "resolved_at": self.resolved_at,
            "until": None if self.until is None else self.until.isoformat(),
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class ConflictRules:
    """The policy and the resolutions one ask applies (``today`` judges ``until``)."""

    mode: ConflictMode = "degrade"
    resolutions: Mapping[str, Resolution] = field(default_factory=dict)
    today: date | None = None

    def governing(self, cid: str) -> Resolution | None:
        """The resolution of ``cid`` in force today, if any."""
        r = self.resolutions.get(cid)
        if r is None:
            return None
        return r if self.today is None or r.in_force(self.today) else None
