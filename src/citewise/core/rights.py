"""Rights, retention and takedown: whether a stored version is withheld, from its metadata.

Three kinds of document metadata (front matter or a sidecar) govern it:

- ``takedown: true`` with an optional ``takedown_reason``: withheld from its ingest on;
- ``retain_until: YYYY-MM-DD``: kept until that day, withheld after it (the retention
  sweep marks it, ``governance/withhold.py``); it overrides the policy's
  ``retention.default_days``, which expires a version that many days after its ingest;
- ``license``: free text, kept and shown, never enforced.

A takedown applied later (``citewise takedown``) or an expiry is written into the
version's stored metadata as the reserved key :data:`MARK` (kind, reason, who, when), so
the one access rule (:func:`citewise.core.access.may_read`) withholds it everywhere
without a new ingest. Pure functions; no text is ever read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

#: The reserved metadata key of a takedown or expiry applied after ingest.
MARK = "withheld"
#: The metadata keys :func:`withholding` reads (index access classes carry them too).
WITHHOLDING_KEYS = (MARK, "takedown")
WithheldKind = Literal["taken down", "expired"]


@dataclass(frozen=True, slots=True)
class Withholding:
    """Why a version is withheld: its kind and the reason given (never its text)."""

    kind: WithheldKind
    reason: str
    by: str | None = None
    at: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"kind": self.kind, "reason": self.reason, "by": self.by, "at": self.at}


def _true(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"true", "yes", "on", "1"}
    return value is True


def withholding(metadata: Mapping[str, Any]) -> Withholding | None:
    """Why a version with ``metadata`` is withheld, or None when it is readable: a mark
    written by a takedown or expiry first, then a front-matter ``takedown: true``."""
    mark = metadata.get(MARK)
    if isinstance(mark, Mapping):
        kind: WithheldKind = "expired" if mark.get("kind") == "expired" else "taken down"
        return Withholding(
            kind,
            str(mark.get("reason") or "no reason given"),
            None if mark.get("by") is None else str(mark.get("by")),
            None if mark.get("at") is None else str(mark.get("at")),
        )
    if mark is not None:  # a malformed mark fails closed
        return Withholding("taken down", "malformed withholding mark")
    if _true(metadata.get("takedown")):
        reason = metadata.get("takedown_reason")
        return Withholding("taken down", str(reason) if reason else "no reason given")
    return None


def retain_until(metadata: Mapping[str, Any]) -> date | None:
    """The ``retain_until`` day of ``metadata`` (None: not set). Ingest checks the
    format (:func:`check_rights`); an unreadable stored value counts as not set."""
    value = metadata.get("retain_until")
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def expiry_reason(
    metadata: Mapping[str, Any], ingested: date, today: date, default_days: int | None
) -> str | None:
    """Why a version ingested on ``ingested`` has expired by ``today``, or None while it
    is retained: past its ``retain_until``, or (without one) older than ``default_days``."""
    until = retain_until(metadata)
    if until is not None:
        return f"retain_until {until.isoformat()} has passed" if today > until else None
    if default_days is not None and (today - ingested).days > default_days:
        return f"older than the retention policy's {default_days} days"
    return None


def check_rights(meta: Mapping[str, Any], name: str, what: str) -> str | None:
    """The problem with ``meta``'s rights keys (None: fine): ``retain_until`` must be an
    ISO date, ``takedown`` true or false, and :data:`MARK` is reserved."""
    if MARK in meta:
        return f"{name}: {what} key {MARK!r} is reserved (set by 'citewise takedown')."
    until = meta.get("retain_until")
    if until is not None and not isinstance(until, date):
        try:
            date.fromisoformat(str(until))
        except ValueError:
            return f"{name}: {what} 'retain_until' is {until!r}, not a date (YYYY-MM-DD)."
    take = meta.get("takedown")
    if take is not None and not isinstance(take, bool):
        return f"{name}: {what} 'takedown' is {take!r}; write true or false."
    return None
