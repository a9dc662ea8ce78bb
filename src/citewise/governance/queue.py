"""The review queue on disk: candidates and quarantined files waiting for a publisher.

Layout, under the home: ``kbs/<kb>/review/<id>/manifest.json`` and ``blobs/<sha256>``
(the exact bytes each file was read with). A candidate (``c_...``) holds the writes and
deletions of one ingest batch; a quarantined file (``q_...``) is one file held for its
parse warnings or size. An entry is built in a hidden ``.tmp-<id>`` folder and renamed
into place once its manifest is written, so a crash leaves no half entry in the queue
(left-over temporary folders are ignored and removed by the next :func:`pending`).

Nothing here is in the store: held text cannot reach a read path (see the package).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from citewise.errors import CandidateNotFound, CorruptContent, UsageError
from citewise.governance.holds import HoldKind, ParseWarning

HeldKind = Literal["candidate", "quarantine"]
Action = Literal["write", "delete"]
_PREFIX: dict[HeldKind, str] = {"candidate": "c_", "quarantine": "q_"}
_MANIFEST = "manifest.json"
_FORMAT = 1


@dataclass(frozen=True, slots=True)
class HeldFile:
    """One change a held entry would make: a file to write, or a document to delete."""

    path: str
    action: Action
    sha256: str = ""  # of the raw bytes (a write)
    size: int = 0
    source: str = ""  # where it was read from (provenance), as a publish records it
    metadata: Mapping[str, Any] | None = None  # what the parse gave (re-parse input)
    warnings: tuple[ParseWarning, ...] = ()
    base_version: int | None = None  # the published head when it was held

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "action": self.action,
            "sha256": self.sha256,
            "size": self.size,
            "source": self.source,
            "metadata": dict(self.metadata or {}),
            "warnings": [w.to_json() for w in self.warnings],
            "base_version": self.base_version,
        }


@dataclass(frozen=True, slots=True)
class Held:
    """A pending candidate or quarantined file (see the module docstring)."""

    id: str
    kind: HeldKind
    kb: str
    created_at: str
    submitted_by: str | None
    origin: str  # add, sync, upload
    root: str  # the synced folder (a candidate's deletions came from it), else ""
    files: tuple[HeldFile, ...]
    reasons: tuple[ParseWarning, ...] = ()  # why a quarantined file is held

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "kb": self.kb,
            "created_at": self.created_at,
            "submitted_by": self.submitted_by,
            "origin": self.origin,
            "root": self.root,
            "files": [f.to_json() for f in self.files],
            "reasons": [r.to_json() for r in self.reasons],
        }


def review_dir(home: Path, kb: str) -> Path:
    return home / "kbs" / kb / "review"


def new_id(kind: HeldKind) -> str:
    return _PREFIX[kind] + secrets.token_hex(8)


def _now() -> str:
    """UTC to the microsecond, so entries held within one second list in order."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Entry:
    """A held entry being written: blobs first, the manifest last (:meth:`commit`)."""

    def __init__(self, home: Path, kb: str, kind: HeldKind, **fields: Any) -> None:
        self.id = new_id(kind)
        self.kind: HeldKind = kind
        self.kb = kb
        self.fields = fields
        self.files: list[HeldFile] = []
        self.final = review_dir(home, kb) / self.id
        self.tmp = review_dir(home, kb) / f".tmp-{self.id}"

    def add_write(self, raw: bytes, held: HeldFile) -> HeldFile:
        digest = hashlib.sha256(raw).hexdigest()
        blobs = self.tmp / "blobs"
        blobs.mkdir(parents=True, exist_ok=True, mode=0o700)
        (blobs / digest).write_bytes(raw)
        done = HeldFile(
            held.path,
            "write",
            digest,
            len(raw),
            held.source,
            held.metadata,
            held.warnings,
            held.base_version,
        )
        self.files.append(done)
        return done

    def add_delete(self, path: str, base_version: int | None) -> None:
        self.files.append(HeldFile(path, "delete", base_version=base_version))

    def commit(self, reasons: tuple[ParseWarning, ...] = ()) -> Held:
        held = Held(
            self.id,
            self.kind,
            self.kb,
            _now(),
            self.fields.get("submitted_by"),
            str(self.fields.get("origin", "add")),
            str(self.fields.get("root", "")),
            tuple(self.files),
            reasons,
        )
        self.tmp.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = {"format": _FORMAT, **held.to_json()}
        (self.tmp / _MANIFEST).write_text(json.dumps(data, ensure_ascii=False), "utf-8")
        os.replace(self.tmp, self.final)
        return held

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def _warnings(items: object) -> tuple[ParseWarning, ...]:
    out: list[ParseWarning] = []
    for w in items if isinstance(items, list) else []:
        kind: HoldKind = w["kind"]
        out.append(ParseWarning(kind, str(w["message"])))
    return tuple(out)


def _from_json(data: Mapping[str, Any]) -> Held:
    files = tuple(
        HeldFile(
            f["path"],
            f["action"],
            f.get("sha256", ""),
            int(f.get("size", 0)),
            f.get("source", ""),
            f.get("metadata") or {},
            _warnings(f.get("warnings")),
            f.get("base_version"),
        )
        for f in data["files"]
    )
    return Held(
        data["id"],
        data["kind"],
        data["kb"],
        data["created_at"],
        data.get("submitted_by"),
        data.get("origin", "add"),
        data.get("root", ""),
        files,
        _warnings(data.get("reasons")),
    )


def pending(home: Path, kb: str) -> list[Held]:
    """Every held entry of ``kb``, oldest first (temporary folders left by a crash are
    removed when their process is gone: their names carry no pid, so any older than an
    hour)."""
    root = review_dir(home, kb)
    if not root.is_dir():
        return []
    out: list[Held] = []
    for entry in root.iterdir():
        if entry.name.startswith(".tmp-"):
            with contextlib.suppress(FileNotFoundError):  # another process removed it
                if time.time() - entry.stat().st_mtime > 3600:
                    shutil.rmtree(entry, ignore_errors=True)
            continue
        manifest = entry / _MANIFEST
        if entry.is_dir() and manifest.is_file():
            out.append(_read_manifest(manifest))
    return sorted(out, key=lambda h: (h.created_at, h.id))


def _read_manifest(manifest: Path) -> Held:
    """One entry's manifest; a damaged one is an error naming it (never skipped: that
    would hide held changes from their reviewers)."""
    try:
        return _from_json(json.loads(manifest.read_text("utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CorruptContent(
            f"{manifest}: the review entry's manifest cannot be read ({exc}).",
            hint="Restore the folder from a backup, or remove it to discard the entry.",
        ) from exc


def find(home: Path, kb: str, ref: str) -> Held:
    """The held entry ``ref`` names: its id, or (for quarantine) the path of its file."""
    entries = pending(home, kb)
    for held in entries:
        if held.id == ref:
            return held
    by_path = [h for h in entries if h.kind == "quarantine" and h.files[0].path == ref]
    if len(by_path) == 1:
        return by_path[0]
    if len(by_path) > 1:
        raise UsageError(
            f"{len(by_path)} quarantined versions of {ref!r} are held.",
            hint="Name one by its id (citewise review list).",
        )
    raise CandidateNotFound(
        f"No pending candidate or quarantined file {ref[:80]!r} in knowledge base {kb!r}.",
        hint="List the queue with 'citewise review list'.",
    )


def read_blob(home: Path, kb: str, held: Held, file: HeldFile) -> bytes:
    """The exact bytes of ``file``, checked against its hash."""
    try:
        raw = (review_dir(home, kb) / held.id / "blobs" / file.sha256).read_bytes()
    except OSError as exc:
        raise CorruptContent(
            f"{held.id}: the held bytes of {file.path} cannot be read ({exc.strerror or exc}).",
            hint="Reject the entry and ingest the file again.",
        ) from exc
    if hashlib.sha256(raw).hexdigest() != file.sha256:
        raise CorruptContent(
            f"{held.id}: the held bytes of {file.path} do not match their sha256.",
            hint="Reject the entry and ingest the file again.",
        )
    return raw


def discard(home: Path, kb: str, held: Held) -> None:
    """Remove ``held`` from the queue (renamed away first, so it is gone at once)."""
    path = review_dir(home, kb) / held.id
    gone = path.with_name(f".tmp-gone-{held.id}")
    os.replace(path, gone)
    shutil.rmtree(gone, ignore_errors=True)


def pending_keys(entries: list[Held]) -> dict[tuple[str, str, str], str]:
    """``(path, action, sha256)`` of every held change -> the id holding it: an ingest
    that would hold the same change again reports that id instead (idempotent syncs)."""
    return {(f.path, f.action, f.sha256): h.id for h in entries for f in h.files}
