"""The backup archive's format: a tar file holding ``manifest.json`` and ``store.db``, and a
reader that treats every archive as hostile (issue 38).

The manifest (:class:`Manifest`) names the format version, what was backed up (every
knowledge base with the hash and document count of each of its revisions, the ledger's
size and Merkle root, the stored vectors per encoder) and each member file's sha256 and
size. :func:`unpack` extracts into a fresh folder only after reading the manifest, and only
the members it names: a regular file under an expected name, no links, devices, paths or
duplicates, each within its size budget (:class:`RestoreLimits`) counted as the bytes come
out (a compressed member's declared size is the writer's word), each hashed as it is
written. Any deviation is :class:`~citewise.errors.BackupInvalid` naming it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from citewise.errors import BackupInvalid
from citewise.sync.backup_home import HOME, allowed

FORMAT = "citewise-backup/1"
MANIFEST = "manifest.json"
STORE = "store.db"
#: The members an archive of this format may hold (the manifest first); ``home.tar`` (the
#: home's governance files, sync/backup_home.py) is optional, for archives written before it.
MEMBERS = (MANIFEST, STORE, HOME)
_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RestoreLimits:
    """What a restore reads at most from an archive (``CITEWISE_RESTORE_MAX_BYTES`` sets the
    store's cap; the manifest's is fixed: it lists hashes, not content)."""

    max_members: int = 8
    max_manifest_bytes: int = 8 * 1024 * 1024
    max_store_bytes: int = 64 * 1024**3

    @classmethod
    def from_env(cls) -> RestoreLimits:
        raw = os.environ.get("CITEWISE_RESTORE_MAX_BYTES", "").strip()
        if not raw:
            return cls()
        if not raw.isdigit() or int(raw) < 1:
            raise BackupInvalid(
                f"CITEWISE_RESTORE_MAX_BYTES must be a positive number of bytes, not {raw!r}."
            )
        return cls(max_store_bytes=int(raw))

    def cap(self, name: str) -> int:
        return self.max_manifest_bytes if name == MANIFEST else self.max_store_bytes


@dataclass(frozen=True, slots=True)
class Manifest:
    """What an archive holds, and the hashes a restore must reproduce."""

    backend: str  # the store backed up: sqlite | postgresql
    created_at: str
    version: str  # the citewise version that wrote it
    #: knowledge base -> its revisions as (revision, hash, document count), oldest first
    revisions: dict[str, list[tuple[int, str, int]]]
    ledger_size: int
    ledger_root: str  # hex Merkle root of the ledger's leaves
    vectors: dict[str, int]  # encoder fingerprint -> vectors stored
    files: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (sha256, size)
    #: each file inside ``home.tar`` -> (sha256, size) (sync/backup_home.py)
    home_files: dict[str, tuple[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "backend": self.backend,
            "created_at": self.created_at,
            "version": self.version,
            "knowledge_bases": {
                kb: [{"revision": n, "hash": h, "document_count": d} for n, h, d in revs]
                for kb, revs in self.revisions.items()
            },
            "ledger": {"size": self.ledger_size, "root": self.ledger_root},
            "vectors": self.vectors,
            "files": {n: {"sha256": h, "size": s} for n, (h, s) in self.files.items()},
            "home_files": {n: {"sha256": h, "size": s} for n, (h, s) in self.home_files.items()},
        }


def _bad(what: str) -> BackupInvalid:
    return BackupInvalid(
        f"The backup archive is not valid: {what}; nothing was restored.",
        hint="Restore from an archive written by `citewise backup` and not changed since.",
    )


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise _bad(what)


def _is_hex(text: object, length: int) -> bool:
    return (
        isinstance(text, str) and len(text) == length and all(c in "0123456789abcdef" for c in text)
    )


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _revisions(kb: str, revs: object) -> list[tuple[int, str, int]]:
    _need(isinstance(revs, list), f"the revisions of {kb!r} are not a list")
    out: list[tuple[int, str, int]] = []
    for i, r in enumerate(revs if isinstance(revs, list) else ()):
        ok = isinstance(r, dict) and r.get("revision") == i + 1
        ok = ok and _is_hex(r.get("hash"), 64) and _count(r.get("document_count"))
        _need(ok, f"revision {i + 1} of {kb!r} in the manifest is malformed")
        out.append((i + 1, str(r["hash"]), int(r["document_count"])))
    return out


def read_manifest(data: bytes) -> Manifest:
    """The manifest from its bytes, every field checked (:class:`BackupInvalid` names the
    first that is wrong)."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _bad("manifest.json is not JSON") from None
    _need(isinstance(raw, dict), "manifest.json is not a JSON object")
    _need(raw.get("format") == FORMAT, f"the manifest's format is not {FORMAT!r}")
    kbs, ledger = raw.get("knowledge_bases"), raw.get("ledger")
    vectors, files = raw.get("vectors"), raw.get("files")
    _need(isinstance(kbs, dict) and bool(kbs), "the manifest lists no knowledge base")
    _need(isinstance(ledger, dict), "the manifest has no ledger section")
    _need(isinstance(vectors, dict), "the manifest has no vectors section")
    _need(isinstance(files, dict), "the manifest has no files section")
    assert isinstance(kbs, dict) and isinstance(ledger, dict)
    assert isinstance(vectors, dict) and isinstance(files, dict)
    _need(_count(ledger.get("size")), "the manifest's ledger size is malformed")
    _need(_is_hex(ledger.get("root"), 64), "the manifest's ledger root is malformed")
    _need(all(_count(n) for n in vectors.values()), "the manifest's vector counts are malformed")
    _need(
        sorted(files) in ([STORE], [HOME, STORE]),
        f"the manifest must list the file {STORE!r} (and at most {HOME!r})",
    )
    listed = _listed(files)
    home_files = raw.get("home_files", {})
    _need(isinstance(home_files, dict), "the manifest's home_files section is malformed")
    assert isinstance(home_files, dict)
    _need(all(allowed(str(n)) for n in home_files), "the manifest lists an unexpected home file")
    _need(bool(home_files) <= (HOME in files), f"home_files are listed without {HOME!r}")
    return Manifest(
        backend=str(raw.get("backend", "")),
        created_at=str(raw.get("created_at", "")),
        version=str(raw.get("version", "")),
        revisions={str(kb): _revisions(str(kb), revs) for kb, revs in kbs.items()},
        ledger_size=int(ledger["size"]),
        ledger_root=str(ledger["root"]),
        vectors={str(k): int(v) for k, v in vectors.items()},
        files=listed,
        home_files=_listed(home_files),
    )


def _listed(files: dict[Any, Any]) -> dict[str, tuple[str, int]]:
    listed: dict[str, tuple[str, int]] = {}
    for name, f in files.items():
        ok = isinstance(f, dict) and _is_hex(f.get("sha256"), 64) and _count(f.get("size"))
        _need(ok, f"the manifest's entry for {str(name)[:80]!r} is malformed")
        listed[str(name)] = (str(f["sha256"]), int(f["size"]))
    return listed


def write_archive(
    dest: Path, manifest: Manifest, store_file: Path, home_file: Path | None = None
) -> None:
    """Write the archive at ``dest`` whole or not at all (a temporary file beside it, then
    renamed); gzip-compressed when ``dest`` ends in ``.gz`` or ``.tgz``. ``home_file`` is
    the ``home.tar`` member, when the manifest lists one."""
    mode = "w:gz" if dest.name.endswith((".gz", ".tgz")) else "w"
    tmp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:
        with tarfile.open(tmp, mode) as tar:  # type: ignore[call-overload]
            data = json.dumps(manifest.to_json(), indent=2, sort_keys=True).encode("utf-8")
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mode = len(data), 0o600
            tar.addfile(info, io.BytesIO(data))
            for name, path in ((STORE, store_file), (HOME, home_file)):
                if path is None:
                    continue
                info = tarfile.TarInfo(name)
                info.size, info.mode = path.stat().st_size, 0o600
                with path.open("rb") as f:
                    tar.addfile(info, f)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def _copy_capped(src: IO[bytes], dst: IO[bytes], cap: int, name: str) -> tuple[str, int]:
    """Copy counting the bytes that come out; stop past ``cap``. (sha256, size)."""
    digest, size = hashlib.sha256(), 0
    while block := src.read(_CHUNK):
        size += len(block)
        _need(size <= cap, f"member {name!r} is larger than the restore budget ({cap:,} bytes)")
        digest.update(block)
        dst.write(block)
    return digest.hexdigest(), size


def _member(tar: tarfile.TarFile, info: tarfile.TarInfo, limits: RestoreLimits) -> None:
    """Refuse a member that is not a plain file under an expected name within budget."""
    name = info.name
    _need(name in MEMBERS, f"unexpected member {name[:80]!r} (only {', '.join(MEMBERS)})")
    _need(info.isreg(), f"member {name!r} is not a regular file (links are refused)")
    _need(info.size <= limits.cap(name), f"member {name!r} is larger than the restore budget")


def _open_tar(archive: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(archive, "r:*")
    except (OSError, tarfile.TarError) as exc:
        raise _bad(f"cannot read {archive.name} as a tar archive ({exc})") from None


def _read_members(
    tar: tarfile.TarFile, into: Path, limits: RestoreLimits
) -> tuple[Manifest | None, set[str]]:
    """The manifest (which must come first) and the names of the files written."""
    manifest: Manifest | None = None
    seen: set[str] = set()
    for count, info in enumerate(tar, start=1):
        _need(count <= limits.max_members, "it has too many members")
        _member(tar, info, limits)
        _need(info.name not in seen, f"member {info.name!r} appears twice")
        seen.add(info.name)
        src = tar.extractfile(info)
        assert src is not None  # a regular file
        if info.name == MANIFEST:
            _need(seen == {MANIFEST}, "manifest.json is not the first member")
            data = src.read(limits.max_manifest_bytes + 1)
            _need(len(data) <= limits.max_manifest_bytes, "manifest.json is too large")
            manifest = read_manifest(data)
            continue
        _need(manifest is not None, "manifest.json is missing or not the first member")
        assert manifest is not None
        with (into / info.name).open("xb") as dst:
            got = _copy_capped(src, dst, limits.cap(info.name), info.name)
        _need(
            manifest.files.get(info.name) == got,
            f"{info.name} does not match the manifest's sha256 and size "
            f"(archive: {got[0][:16]}…, {got[1]:,} bytes)",
        )
    return manifest, seen


def unpack(archive: Path, into: Path, limits: RestoreLimits) -> Manifest:
    """Read ``archive`` into the empty folder ``into``: the manifest, then the files it names,
    each hashed and measured as written and compared with the manifest."""
    with _open_tar(archive) as tar:
        try:
            manifest, seen = _read_members(tar, into, limits)
        except (OSError, tarfile.TarError, EOFError) as exc:
            raise _bad(f"the archive is damaged ({exc})") from None
    _need(manifest is not None, "manifest.json is missing")
    assert manifest is not None
    missing = sorted(set(manifest.files) - seen)
    _need(not missing, f"member(s) {', '.join(missing)} listed in the manifest are missing")
    return manifest
