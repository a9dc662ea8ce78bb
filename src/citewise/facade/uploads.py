"""Upload names and the folders uploads are staged in before they are ingested.

Staging folders live under ``<home>/uploads/`` and are named ``<pid>-<random>`` so that a
server killed mid-upload leaves nothing behind for long: every service start removes the
folders of processes that no longer run (and a finished upload removes its own).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from citewise.errors import UsageError
from citewise.ingest.names import normalise_name

UPLOADS_DIR = "uploads"
_BAD_NAME = re.compile(r"[\x00-\x1f\x7f\\]")
_STAGE = re.compile(r"^(\d+)-[0-9a-f]{16}$")


def safe_doc_path(name: str) -> str:
    """A relative POSIX document path (NFC) from an uploaded file name, or BAD_REQUEST."""
    if not name or _BAD_NAME.search(name):
        raise UsageError(f"Bad file name {name[:80]!r}.", hint="Use a relative path like a/b.md.")
    p = PurePosixPath(name)
    if p.is_absolute() or any(part in ("", ".", "..") for part in p.parts):
        raise UsageError(f"Bad file name {name[:80]!r}.", hint="Use a relative path like a/b.md.")
    if any(part.startswith(".") for part in p.parts):
        raise UsageError(
            f"Hidden file name {name[:80]!r}.", hint="Hidden files are never ingested."
        )
    return normalise_name(p.as_posix())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's live process
        return True
    return True


def clean_stale(home: Path) -> list[str]:
    """Remove staging folders left by processes that are gone; returns their names."""
    root = home / UPLOADS_DIR
    removed: list[str] = []
    if not root.is_dir():
        return removed
    for entry in root.iterdir():
        m = _STAGE.match(entry.name)
        if m and entry.is_dir() and not _alive(int(m.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry.name)
    return removed


@contextmanager
def staging(home: Path) -> Iterator[Path]:
    """A fresh private folder for one upload, removed when the block ends."""
    root = home / UPLOADS_DIR
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = root / f"{os.getpid()}-{secrets.token_hex(8)}"
    path.mkdir(mode=0o700)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def name_conflicts(rels: list[str]) -> dict[int, str]:
    """For each upload whose path clashes with another's in the same request, the other
    path: the same path twice, or one path being a folder of the other (``x.md`` and
    ``x.md/y.md``). Neither can be staged beside the other, so both are refused."""
    clashes: dict[int, str] = {}
    for i, a in enumerate(rels):
        for j, b in enumerate(rels):
            if (
                i != j
                and i not in clashes
                and (a == b or b.startswith(a + "/") or a.startswith(b + "/"))
            ):
                clashes[i] = b
    return clashes
