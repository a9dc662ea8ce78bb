"""Takedown and retention of web snapshots (issue 38): the second source's rules.

Web snapshots (``web/snapshot.py``) are kept per home, not per knowledge base, so these
acts are home-wide. A **takedown of a web address** marks the address (``url`` or
``final_url``, normalised by :func:`citewise.web.withheld.address_key`): every snapshot of
it is withheld from replay, verification display and export, and the verifier no longer
fetches it. **Lifting** it removes the mark. The **retention sweep** marks each snapshot
fetched more than the policy's ``retention.web_days`` days ago as expired (a later fetch
of the same bytes renews it). Files and hashes stay; each act writes one ledger event
(``web_takedown``, ``web_untakedown``, ``web_expired``: the address or hashes, the
references, reason, who, when; never page text).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from citewise.governance.policy import load_policy
from citewise.governance.withhold import RETENTION_ACTOR, _clean_reason
from citewise.store.protocol import Store
from citewise.web.snapshot import SnapshotStore
from citewise.web.withheld import address_key, load_marks, save_marks


def snapshot_store(home: Path) -> SnapshotStore:
    """The home's snapshot store (the one ``web/settings.py`` writes)."""
    return SnapshotStore(home / "web" / "snapshots")


@dataclass(frozen=True, slots=True)
class WithheldWeb:
    """What one web takedown, lifting or expiry did."""

    address: str | None  # the normalised address (None for an expiry)
    kind: str  # "taken down" | "lifted" | "expired"
    snapshots: tuple[dict[str, str], ...]  # references: url, final_url, sha256, fetched_at
    changed: bool
    reason: str
    by: str | None
    at: str

    def to_json(self) -> dict[str, object]:
        return {"address": self.address, "kind": self.kind, "snapshots": list(self.snapshots),
                "changed": self.changed, "reason": self.reason, "by": self.by,
                "at": self.at}  # fmt: skip


def _of_address(snaps: SnapshotStore, key: str) -> tuple[dict[str, str], ...]:
    return tuple(r for r in snaps.refs() if key in (address_key(r["url"]),
                                                     address_key(r["final_url"])))  # fmt: skip


def _record(store: Store, done: WithheldWeb, event: str) -> None:
    payload = {"address": done.address, "reason": done.reason, "at": done.at,
               "snapshots": list(done.snapshots)}  # fmt: skip
    store.ledger.append_event(event, payload, principal=done.by)


def take_down_url(
    store: Store, home: Path, url: str, reason: str, *, by: str | None,
    now: datetime | None = None,
) -> WithheldWeb:  # fmt: skip
    """Withhold every snapshot of ``url``'s address, now and later. Taking down an address
    already taken down changes and records nothing."""
    why, key = _clean_reason(reason), _address(url)
    at = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    snaps = snapshot_store(home)
    marks = load_marks(snaps.root)
    changed = key not in marks["addresses"]
    if changed:
        marks["addresses"][key] = {"kind": "taken down", "reason": why, "by": by, "at": at}
        save_marks(snaps.root, marks)
    done = WithheldWeb(key, "taken down", _of_address(snaps, key), changed, why, by, at)
    if changed:
        _record(store, done, "web_takedown")
    return done


def lift_url_takedown(
    store: Store, home: Path, url: str, reason: str, *, by: str | None,
    now: datetime | None = None,
) -> WithheldWeb:  # fmt: skip
    """Lift the takedown of ``url``'s address (expiries stay). Nothing to lift changes and
    records nothing."""
    why, key = _clean_reason(reason), _address(url)
    at = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    snaps = snapshot_store(home)
    marks = load_marks(snaps.root)
    changed = marks["addresses"].pop(key, None) is not None
    if changed:
        save_marks(snaps.root, marks)
    done = WithheldWeb(key, "lifted", _of_address(snaps, key), changed, why, by, at)
    if changed:
        _record(store, done, "web_untakedown")
    return done


def expire_snapshots(store: Store, home: Path, kb: str, today: date) -> WithheldWeb | None:
    """Mark every snapshot fetched more than ``kb``'s ``retention.web_days`` before
    ``today`` as expired (None when the policy keeps snapshots or none is due). The home's
    snapshots serve every base, so the shortest period any swept base sets applies."""
    days = load_policy(home, kb).retention.web_days
    snaps = snapshot_store(home)
    if days is None or not snaps.root.exists():
        return None
    cutoff = today - timedelta(days=days)
    marks = load_marks(snaps.root)
    why = f"fetched more than {days} days before {today.isoformat()} (retention.web_days)"
    mark = {"kind": "expired", "reason": why, "by": RETENTION_ACTOR, "at": today.isoformat()}
    due = tuple(
        r for r in snaps.refs()
        if r["sha256"] not in marks["snapshots"] and _fetched_day(r["fetched_at"]) < cutoff
    )  # fmt: skip
    if not due:
        return None
    for r in due:
        marks["snapshots"][r["sha256"]] = mark
    save_marks(snaps.root, marks)
    done = WithheldWeb(None, "expired", due, True, why, RETENTION_ACTOR, today.isoformat())
    _record(store, done, "web_expired")
    return done


def _fetched_day(fetched_at: str) -> date:
    try:
        return datetime.fromisoformat(fetched_at).date()
    except ValueError:
        return date.min  # an unreadable fetch time is as old as can be: withheld, not kept


def _address(url: str) -> str:
    from citewise.errors import UsageError

    text = " ".join(str(url or "").split())
    if not text.startswith(("http://", "https://")):
        raise UsageError(
            f"{text[:200]!r} is not a web address.", hint="Give the page's http(s) URL."
        )
    return address_key(text)
