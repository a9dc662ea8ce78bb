"""The home's governance files in a backup (issue 38): each knowledge base's policy file,
review queue and conflict records, which live beside the store rather than in it.

They travel as one inner tar member, ``home.tar``, listed in the manifest's ``files`` with
its sha256 and size, and each file inside it listed under ``home_files`` with its own
sha256 and size. Only names of three shapes are ever written or read back:

- ``kbs/<kb>/policy.yaml``;
- ``kbs/<kb>/review/<id>/manifest.json`` and ``kbs/<kb>/review/<id>/blobs/<sha256>``
  (a held candidate or quarantined file; in-progress ``.tmp-`` folders are left out);
- ``kbs/<kb>/conflicts/k_<16 hex>.json`` (a recorded conflict and its resolution).

Restore treats ``home.tar`` as hostile, like the outer archive: only regular files under
those names (so no ``..``, absolute paths or links), for knowledge bases the manifest
lists, each at most once, within a count and a byte budget counted as the bytes come out,
each hashed and compared with ``home_files``, and every listed file present. Stored notes
are store rows and travel in ``store.db``.
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO

from citewise.errors import BackupInvalid

HOME = "home.tar"
#: The home files a backup carries (see the module docstring); the KB name rule is the
#: store's own (``[a-z0-9_-]``).
_NAME = re.compile(
    r"kbs/(?P<kb>[a-z0-9_-]{1,64})/(?:policy\.yaml"
    r"|review/[cq]_[0-9a-f]{16}/(?:manifest\.json|blobs/[0-9a-f]{64})"
    r"|conflicts/k_[0-9a-f]{16}\.json)"
)
#: At most this many home files are read back from an archive.
MAX_FILES = 200_000
_CHUNK = 1024 * 1024

Listed = dict[str, tuple[str, int]]  # name -> (sha256, size)


def allowed(name: str) -> str | None:
    """The knowledge base a home file belongs to, or None when the name is not one a backup
    carries."""
    got = _NAME.fullmatch(name)
    return got.group("kb") if got else None


def collect(home: Path, kbs: Iterable[str]) -> list[str]:
    """The governance files of ``kbs`` under ``home``, sorted (regular files only)."""
    out: list[str] = []
    for kb in kbs:
        base = home / "kbs" / kb
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            name = path.relative_to(home).as_posix()
            if path.is_file() and not path.is_symlink() and allowed(name) == kb:
                out.append(name)
    return sorted(out)


def pack(home: Path, names: list[str], dest: Path) -> Listed:
    """Write ``names`` (relative to ``home``) into the tar file ``dest``; each one's
    sha256 and size as written (read once, so a file changing meanwhile is self-consistent)."""
    listed: Listed = {}
    with tarfile.open(dest, "w") as tar:
        for name in names:
            data = (home / name).read_bytes()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o600
            tar.addfile(info, io.BytesIO(data))
            listed[name] = (hashlib.sha256(data).hexdigest(), len(data))
    return listed


def _bad(what: str) -> BackupInvalid:
    return BackupInvalid(
        f"The backup archive is not valid: {what}; nothing was restored.",
        hint="Restore from an archive written by `citewise backup` and not changed since.",
    )


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise _bad(what)


def _copy(src: IO[bytes], dst: IO[bytes], total: int, cap: int) -> tuple[tuple[str, int], int]:
    """Copy in blocks, counting every byte against ``cap`` as it comes out: the file's
    (sha256, size) and the new running total."""
    digest, size = hashlib.sha256(), 0
    while block := src.read(_CHUNK):
        size += len(block)
        _need(total + size <= cap, "home.tar is larger than the restore budget")
        digest.update(block)
        dst.write(block)
    return (digest.hexdigest(), size), total + size


def unpack_home(
    inner: Path, into: Path, listed: Mapping[str, tuple[str, int]], kbs: set[str], cap: int
) -> list[str]:
    """Extract ``inner`` (``home.tar``) into the folder ``into`` after the checks of the
    module docstring; the names written."""
    seen: set[str] = set()
    total = 0
    try:
        with tarfile.open(inner, "r:") as tar:
            for info in tar:
                name = info.name
                kb = allowed(name)
                _need(kb is not None, f"unexpected home file {name[:80]!r}")
                _need(kb in kbs, f"home file {name[:80]!r} names a knowledge base not backed up")
                _need(info.isreg(), f"home file {name!r} is not a regular file")
                _need(name not in seen, f"home file {name!r} appears twice")
                _need(len(seen) < MAX_FILES, "home.tar has too many files")
                seen.add(name)
                src = tar.extractfile(info)
                assert src is not None  # a regular file
                dest = into / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                with dest.open("xb") as out:
                    got, total = _copy(src, out, total, cap)
                _need(listed.get(name) == got, f"home file {name!r} does not match the manifest")
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise _bad(f"home.tar is damaged ({exc})") from None
    missing = sorted(set(listed) - seen)
    _need(not missing, f"home file(s) {', '.join(missing[:3])} listed in the manifest are missing")
    return sorted(seen)
