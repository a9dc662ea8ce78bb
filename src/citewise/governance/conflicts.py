"""The conflict review queue (issue 38): conflicts answers met, and their resolutions.

Storage: one small JSON file per pair of spans under the home,
``kbs/<kb>/conflicts/<id>.json``, beside the base's policy and review queue. Why a home
file and not a store table: a record is governance state of one knowledge base, written
rarely (once per new pair, once per decision) and read once per ask; files need no schema
change in either backend, and the id (:func:`~citewise.core.conflict_rules.pair_id`)
makes recording idempotent across processes: a record is written to a temporary name and
linked into place only if absent, so the first detection wins and a resolution replaces
the file whole (``os.replace``). Like the review queue, the folder is not in a backup
archive (docs/governance.md).

States: ``open`` (detected, no resolution), ``resolved`` (a side governs, while ``until``
has not passed) and ``expired`` (its ``until`` passed: answers treat it as open again).
Each resolution is a ``conflict_resolved`` ledger event naming the resolver; the ledger
signs it with its next checkpoint like every event.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.core.conflict_rules import ConflictRules, Resolution, pair_id
from citewise.errors import ConflictNotFound, CorruptContent, UsageError
from citewise.governance.policy import load_policy
from citewise.governance.review import Reviewer
from citewise.governance.review import _check as check_publisher

if TYPE_CHECKING:
    from citewise.context import StageContext

__all__ = ["Recorded", "listing", "load_rules", "record", "resolve", "today"]

_ID_CHARS = frozenset("0123456789abcdef")


def today() -> date:
    """The UTC day resolutions are judged on."""
    return datetime.now(UTC).date()


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def parse_day(text: str | None) -> date | None:
    """An ``until`` day as given (``--until``, the HTTP body): exactly YYYY-MM-DD;
    a clear error names the form."""
    if text is None:
        return None
    try:
        if not _DAY.fullmatch(text.strip()):
            raise ValueError(text)
        return date.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"until {text[:40]!r} is not a date.",
            hint="Give the last day the resolution holds as YYYY-MM-DD, e.g. 2027-06-30.",
        ) from None


def conflicts_dir(home: Path, kb: str) -> Path:
    return home / "kbs" / kb / "conflicts"


@dataclass(frozen=True, slots=True)
class Recorded:
    """One recorded conflict: its two sides (``a``, ``b`` in id order) and decision."""

    id: str
    subject: str
    attribute: str
    detected_at: str
    sides: tuple[Mapping[str, Any], ...]  # path, text, value, citation_id
    resolution: Resolution | None = None

    def state(self, on: date) -> str:
        if self.resolution is None:
            return "open"
        return "resolved" if self.resolution.in_force(on) else "expired"

    def to_json(self, on: date) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state(on),
            "subject": self.subject,
            "attribute": self.attribute,
            "detected_at": self.detected_at,
            "sides": [{"side": "ab"[i], **s} for i, s in enumerate(self.sides)],
            "resolution": None if self.resolution is None else self.resolution.to_json(),
        }


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sides(note: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    """A trace conflict's sides as recorded: path, exact text, value, citation id."""
    out = [
        {
            "path": str(s["fragment"]["path"]),
            "text": str(s["text"]),
            "value": str(s.get("value", "")),
            "citation_id": str(s["fragment"].get("citation_id", "")),
        }
        for s in note.get("sides", ())
    ]
    return tuple(sorted(out, key=lambda s: (s["path"], " ".join(s["text"].split()))))


def record(home: Path, kb: str, notes: Iterable[Mapping[str, Any]]) -> list[str]:
    """Record each conflict of an answer's trace (``trace["conflicts"]``) once per pair
    of spans; the ids newly recorded."""
    folder = conflicts_dir(home, kb)
    new: list[str] = []
    for note in notes:
        sides = _sides(note)
        if len(sides) < 2:
            continue
        cid = pair_id((s["path"], s["text"]) for s in sides)
        target = folder / f"{cid}.json"
        if target.exists():
            continue
        data = {
            "id": cid,
            "subject": str(note.get("subject", "")),
            "attribute": str(note.get("attribute", "")),
            "detected_at": _now(),
            "sides": list(sides),
            "resolution": None,
        }
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = folder / f".tmp-{secrets.token_hex(6)}"
        tmp.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
        try:
            os.link(tmp, target)  # only if absent: the first detection wins
            new.append(cid)
        except FileExistsError:
            pass
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
    return new


def _resolution(data: Mapping[str, Any] | None) -> Resolution | None:
    if not data:
        return None
    until = data.get("until")
    return Resolution(
        str(data["id"]),
        str(data["governs"]),
        str(data["governs_text"]),
        str(data["resolver"]),
        str(data["resolved_at"]),
        date.fromisoformat(until) if until else None,
        str(data.get("note", "")),
    )


def _read(path: Path) -> Recorded:
    try:
        data = json.loads(path.read_text("utf-8"))
        return Recorded(
            str(data["id"]),
            str(data["subject"]),
            str(data["attribute"]),
            str(data["detected_at"]),
            tuple(data["sides"]),
            _resolution(data.get("resolution")),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CorruptContent(
            f"{path}: the recorded conflict cannot be read ({exc}).",
            hint="Remove the file: the conflict is recorded again when an answer meets it.",
        ) from exc


def listing(home: Path, kb: str) -> list[Recorded]:
    """Every recorded conflict of ``kb``, oldest first."""
    folder = conflicts_dir(home, kb)
    if not folder.is_dir():
        return []
    found = [_read(p) for p in folder.glob("k_*.json")]
    return sorted(found, key=lambda r: (r.detected_at, r.id))


def find(home: Path, kb: str, cid: str) -> Recorded:
    """The recorded conflict ``cid``; :class:`ConflictNotFound` names the fix."""
    if not (cid.startswith("k_") and len(cid) == 18 and set(cid[2:]) <= _ID_CHARS):
        raise UsageError(
            f"{cid[:40]!r} is not a conflict id (k_ and 16 hex digits).",
            hint="List the conflicts with 'citewise conflicts list'.",
        )
    path = conflicts_dir(home, kb) / f"{cid}.json"
    if not path.is_file():
        raise ConflictNotFound(
            f"No recorded conflict {cid} in knowledge base {kb!r}.",
            hint="List the conflicts with 'citewise conflicts list'.",
        )
    return _read(path)


def _side(rec: Recorded, governs: str) -> Mapping[str, Any]:
    """The side ``governs`` names: ``a``, ``b``, or the path of exactly one side."""
    key = governs.strip()
    if key.lower() in ("a", "b"):
        return rec.sides["ab".index(key.lower())]
    by_path = [s for s in rec.sides if s["path"] == key]
    if len(by_path) == 1:
        return by_path[0]
    paths = ", ".join(f"{'ab'[i]}: {s['path']}" for i, s in enumerate(rec.sides))
    raise UsageError(
        f"{governs[:80]!r} names no single side of conflict {rec.id}.",
        hint=f"Name the side that governs: a or b, or a side's path ({paths}).",
    )


def resolve(
    home: Path,
    kb: str,
    cid: str,
    governs: str,
    resolver: str,
    *,
    until: date | None = None,
    note: str = "",
) -> Recorded:
    """Record that the side ``governs`` names governs conflict ``cid`` (until ``until``,
    inclusive, when given). The caller checks the resolver may decide and writes the
    ledger event (:func:`event`)."""
    rec = find(home, kb, cid)
    side = _side(rec, governs)
    if until is not None and until < today():
        raise UsageError(
            f"--until {until.isoformat()} is in the past.",
            hint="Give a day from today on (YYYY-MM-DD), or none for no end.",
        )
    res = Resolution(cid, str(side["path"]), str(side["text"]), resolver, _now(), until, note[:500])
    path = conflicts_dir(home, kb) / f"{cid}.json"
    data = json.loads(path.read_text("utf-8")) | {"resolution": res.to_json()}
    tmp = path.with_name(f".tmp-{secrets.token_hex(6)}")
    tmp.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    os.replace(tmp, path)
    return _read(path)


def event(rec: Recorded) -> dict[str, Any]:
    """The ``conflict_resolved`` ledger payload: the pair, the governing side, the
    resolver, until and note (paths and values, not the documents' text)."""
    r = rec.resolution
    assert r is not None
    return {
        "conflict": rec.id,
        "sides": [s["path"] for s in rec.sides],
        "governs": r.governs_path,
        "governs_value": next((s["value"] for s in rec.sides if s["path"] == r.governs_path), ""),
        "resolver": r.resolver,
        "until": None if r.until is None else r.until.isoformat(),
        "note": r.note,
    }


def load_rules(home: Path, kb: str, on: date | None = None) -> ConflictRules:
    """What an ask applies: the policy's ``conflicts`` mode and every resolution."""
    policy = load_policy(home, kb)
    res = {r.id: r.resolution for r in listing(home, kb) if r.resolution is not None}
    return ConflictRules(policy.conflicts, res, on or today())


def decide(
    ctx: StageContext,
    cid: str,
    governs: str,
    reviewer: Reviewer,
    *,
    until: date | None = None,
    note: str = "",
) -> Recorded:
    """Resolve ``cid`` as ``reviewer`` (a publisher of the base, as for the review
    queue), and sign the decision into the ledger as a ``conflict_resolved`` event."""
    check_publisher(ctx, reviewer, "resolve conflicts")
    rec = resolve(ctx.settings.home, ctx.name, cid, governs, reviewer.name, until=until, note=note)
    ctx.store.ledger.append_event(
        "conflict_resolved", event(rec), kb=ctx.name, principal=reviewer.principal
    )
    return rec
