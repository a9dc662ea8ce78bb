"""Edition semantics of document metadata: regulation editions and their status on a date.

An :class:`Edition` is one document that is an edition of a regulation (identity from
:mod:`citewise.ingest.regulation`): label, effective date, the status its metadata
declares, and the paths it supersedes (``relations:`` with ``supersedes``, ``replaces``,
``repeals`` or ``obsoletes`` and a ``target`` path, as before). :func:`edition_status`
says what each edition is on a given date, exactly one of:

* ``withdrawn`` - its metadata says withdrawn or repealed;
* ``future`` - its effective date is after the date (not yet in force);
* ``superseded`` - a newer edition in force on that date replaces it (a ``supersedes``
  relation from an edition in force, or a later effective date of the same regulation),
  or, when judged for today, its metadata says superseded/obsolete/archived;
* ``current`` - otherwise: the edition in force.

Documents without a regulation identity keep the older, coarser rule
(:func:`superseded_paths`): a stale ``status`` or the target of a relation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from citewise.ingest.regulation import effective_date, from_metadata, regulation_key

STALE_STATUS = frozenset({"superseded", "obsolete", "withdrawn", "repealed", "archived"})
SUPERSEDING = frozenset({"supersedes", "replaces", "repeals", "obsoletes"})
WITHDRAWN = frozenset({"withdrawn", "repealed"})
Status = Literal["current", "superseded", "future", "withdrawn"]
#: Statuses a current-only or as-of question leaves out before ranking.
EXCLUDED: frozenset[str] = frozenset({"superseded", "future", "withdrawn"})


@dataclass(frozen=True, slots=True)
class Edition:
    path: str
    regulation: str  # "12 CFR 1002"
    label: str | None  # "2017"; None when unknown
    effective: date | None
    declared: str  # the metadata's ``status`` (lower case), "" when none
    supersedes: frozenset[str]  # paths this edition replaces


def _targets(meta: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(
        str(rel.get("target", "")).lstrip("./")
        for rel in meta.get("relations") or ()
        if isinstance(rel, dict) and str(rel.get("type", "")).lower() in SUPERSEDING
    )


def edition_of(path: str, meta: Mapping[str, Any], title: str) -> Edition | None:
    """The edition a document is, or None when it names no regulation."""
    reg, label = from_metadata(meta, title)
    if reg is None:
        return None
    return Edition(
        path,
        reg,
        label,
        effective_date(meta),
        str(meta.get("status", "")).strip().lower(),
        _targets(meta),
    )


def edition_status(editions: Iterable[Edition], on: date, *, today: bool) -> dict[str, Status]:
    """Status of every edition on date ``on``. ``today``: ``on`` is today, so a declared
    stale status counts; for a past date only dates and relations decide (an edition
    marked superseded now may have been in force then), except for undated editions."""
    eds = list(editions)
    out: dict[str, Status] = {}
    for e in eds:
        if e.declared in WITHDRAWN:
            out[e.path] = "withdrawn"
        elif e.effective is not None and e.effective > on:
            out[e.path] = "future"
    in_force = [e for e in eds if e.path not in out]
    replaced = {t for e in in_force for t in e.supersedes}
    newest: dict[str, date] = {}
    for e in in_force:
        if e.effective is not None:
            key = regulation_key(e.regulation)
            newest[key] = max(newest.get(key, e.effective), e.effective)
    for e in in_force:
        later = newest.get(regulation_key(e.regulation))
        stale = e.declared in STALE_STATUS and (today or e.effective is None)
        if (
            e.path in replaced
            or (e.effective is not None and later is not None and e.effective < later)
            or stale
        ):
            out[e.path] = "superseded"
        else:
            out[e.path] = "current"
    return out


def superseded_paths(docs: Iterable[tuple[str, Mapping[str, Any]]]) -> frozenset[str]:
    """Paths of superseded editions while a current one exists: documents with a stale
    ``status``, and targets of a ``supersedes``/``replaces``/``repeals`` relation."""
    docs = list(docs)
    targets = {t for _, meta in docs for t in _targets(meta)}
    status = {path: str(meta.get("status", "")).lower() for path, meta in docs}
    current = any(st not in STALE_STATUS for st in status.values())
    return frozenset(
        path for path in status if path in targets or (status[path] in STALE_STATUS and current)
    )
