"""Takedown and retention expiry: withholding stored versions without a new ingest.

A **takedown** (``citewise takedown PATH --reason R``, ``POST /kb/{kb}/takedown``) marks
every stored version of a document as taken down; the **retention sweep** marks each
version whose ``retain_until`` day has passed, or (without one) that is older than the
policy's ``retention.default_days``, as expired. Both keep the bytes, text and hashes
(history and revision hashes are unchanged) and write one ledger event per document
(``takedown`` or ``expired``: path, versions, reason, who, when; never text). A takedown
can be **lifted** (``citewise untakedown``, ``POST /kb/{kb}/untakedown``): the mark leaves
the versions and an ``untakedown`` event records it. The one
access rule (``core/access.py``) then withholds the versions from every read path.

The sweep runs when a knowledge base is opened, at most once per day per process
(:class:`RetentionSweeps`), and on demand with ``citewise retention apply``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from citewise.core.rights import expiry_reason
from citewise.errors import BadPolicy, UsageError
from citewise.governance.policy import load_policy
from citewise.store.protocol import Store

log = logging.getLogger("citewise.governance")

#: Who the ledger names for an expiry (the policy, not a person).
RETENTION_ACTOR = "retention policy"
MAX_REASON_CHARS = 500


@dataclass(frozen=True, slots=True)
class WithheldDocument:
    """What one takedown or expiry did: the document, its versions marked, why."""

    kb: str
    path: str
    kind: str  # "taken down" | "expired" | "lifted" (a takedown undone)
    versions: tuple[int, ...]
    reason: str
    by: str | None
    at: str

    def to_json(self) -> dict[str, object]:
        return {
            "kb": self.kb,
            "path": self.path,
            "kind": self.kind,
            "versions": list(self.versions),
            "reason": self.reason,
            "by": self.by,
            "at": self.at,
        }


def _clean_reason(reason: str) -> str:
    text = " ".join(str(reason or "").split())
    if not text:
        raise UsageError(
            "A takedown needs a reason.", hint='Give one with --reason (HTTP: "reason").'
        )
    if len(text) > MAX_REASON_CHARS:
        raise UsageError(
            f"The takedown reason is {len(text)} characters; at most {MAX_REASON_CHARS}.",
            hint="Give a short reason (a ticket id or a sentence).",
        )
    return text


def _record(store: Store, done: WithheldDocument, event: str) -> None:
    store.ledger.append_event(
        event,
        {"path": done.path, "versions": list(done.versions), "reason": done.reason, "at": done.at},
        kb=done.kb,
        principal=done.by,
    )


def take_down(
    store: Store, kb: str, path: str, reason: str, *, by: str | None, now: datetime | None = None
) -> WithheldDocument:
    """Withhold every stored version of ``path`` (DOC_NOT_FOUND when it has none). A
    document already taken down marks nothing and records nothing again."""
    why = _clean_reason(reason)
    at = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    mark = {"kind": "taken down", "reason": why, "by": by, "at": at}
    versions = tuple(store.mark_withheld(kb, path, mark))
    done = WithheldDocument(kb, path, "taken down", versions, why, by, at)
    if versions:
        _record(store, done, "takedown")
    return done


def lift_takedown(
    store: Store, kb: str, path: str, reason: str, *, by: str | None, now: datetime | None = None
) -> WithheldDocument:
    """Lift a takedown: remove the takedown mark from every version of ``path`` that
    carries one, so the versions read as before (an ``untakedown`` event: path, versions,
    reason, who, when). An expiry is not lifted (the retention rules would expire the
    version again), nor a front-matter ``takedown: true`` (it is part of the ingested
    version: publish new bytes). Nothing to lift changes and records nothing."""
    why = _clean_reason(reason)
    at = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    versions = tuple(store.unmark_withheld(kb, path, "taken down"))
    done = WithheldDocument(kb, path, "lifted", versions, why, by, at)
    if versions:
        _record(store, done, "untakedown")
    return done


def expire(store: Store, home: Path, kb: str, today: date) -> list[WithheldDocument]:
    """Mark every version of ``kb`` that has expired by ``today`` (see the module
    docstring); one ledger ``expired`` event per document and reason."""
    days = load_policy(home, kb).retention.default_days
    due: dict[tuple[str, str], list[int]] = {}
    for path, number, created, meta in store.content_versions(kb):
        ingested = datetime.fromisoformat(created).date()
        why = expiry_reason(meta, ingested, today, days)
        if why is not None:
            due.setdefault((path, why), []).append(number)
    out: list[WithheldDocument] = []
    at = today.isoformat()
    for (path, why), numbers in sorted(due.items()):
        mark = {"kind": "expired", "reason": why, "by": RETENTION_ACTOR, "at": at}
        marked = tuple(store.mark_versions(kb, path, mark, numbers))
        if marked:
            done = WithheldDocument(kb, path, "expired", marked, why, RETENTION_ACTOR, at)
            _record(store, done, "expired")
            out.append(done)
    return out


def utc_today() -> date:
    return datetime.now(UTC).date()


class RetentionSweeps:
    """Runs :func:`expire` for a knowledge base at most once per day per process (expiry
    turns at day boundaries); ``clock`` gives today (tests fix it); ``also``: further
    sweeps run with it, same arguments (the web snapshots' one, ``web_withhold.py``)."""

    def __init__(
        self,
        clock: Callable[[], date] = utc_today,
        also: tuple[Callable[[Store, Path, str, date], object], ...] = (),
    ) -> None:
        self.clock, self.also = clock, also
        self._done: dict[str, date] = {}
        self._lock = threading.Lock()

    def run(self, store: Store, home: Path, kb: str) -> list[WithheldDocument]:
        today = self.clock()
        with self._lock:
            if self._done.get(kb) == today:
                return []
        try:
            done = expire(store, home, kb, today)  # idempotent: two at once mark once
            for sweep in self.also:
                sweep(store, home, kb, today)
        except BadPolicy as exc:
            # A malformed policy fails ingest, decisions and ``kb show`` with BAD_POLICY;
            # the automatic sweep says so and leaves reads alone (tried again next open;
            # ``citewise retention apply`` fails with the error).
            log.warning("retention not applied to %r: %s", kb, exc)
            return []
        with self._lock:
            self._done[kb] = today
        return done

    def forget(self, kb: str) -> None:
        with self._lock:
            self._done.pop(kb, None)
