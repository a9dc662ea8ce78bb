"""Read one file of a folder without following links out of it and without blocking.

A folder is walked first and read later, so a check made by the walk (this name is a file,
this link stays inside) may no longer hold when the file is opened: a sub-folder can be
replaced by a link to somewhere else in between. The rule here is that every check that
matters is made on the *opened descriptor*, never on a path:

* the path is opened one component at a time relative to the root's descriptor
  (``openat``) with ``O_NOFOLLOW``, so no component can be a link, whatever it was when the
  folder was walked (a file that the walker accepted as a link inside the root is resolved
  once and its real location opened the same way);
* the file is opened with ``O_NONBLOCK``, so a FIFO or a device never blocks the open;
* ``fstat`` of the descriptor must say *regular file* (FIFOs, sockets and devices are
  refused with :class:`~citewise.errors.NotRegularFile` naming their kind), and the
  descriptor's real path (``/proc/self/fd/N`` where the system has it) must lie inside the
  root's real path, else :class:`~citewise.errors.OutsideRoot`;
* the bytes are read from that descriptor, and the read is retried while the size or the
  modification time seen by ``fstat`` before and after it disagree (a file being written).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath

from citewise.errors import NotRegularFile, OutsideRoot, UnreadableFile

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
_READ_CHUNK = 1 << 20
#: errno values of an open that met a link (or a non-folder) where O_NOFOLLOW forbids one.
_LINK_ERRNOS = frozenset({errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)})


def file_kind(mode: int) -> str:
    """A reader's name for the type of a non-regular file (``fstat``/``lstat`` mode)."""
    kinds = (
        (stat.S_ISFIFO, "FIFO (named pipe)"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISDIR, "folder"),
        (stat.S_ISLNK, "symbolic link"),
    )
    return next((name for test, name in kinds if test(mode)), "special file")


def fd_path(fd: int) -> str | None:
    """The real path the kernel holds for an open descriptor, or None where the system
    does not say (no ``/proc``): the component-wise no-follow open is then the guarantee."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _outside(label: str) -> OutsideRoot:
    return OutsideRoot(
        f"{label}: not read, a folder or file on its path was changed into a link (or moved) "
        "after the folder was listed, and it no longer lies inside the folder being read.",
        hint="Copy the file into the folder (links out of it are never followed), then sync again.",
    )


def _open_parts(root_fd: int, parts: tuple[str, ...], label: str) -> int:
    """A descriptor for ``parts`` under ``root_fd``, each component opened with O_NOFOLLOW."""
    fd = root_fd
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            nxt = os.open(part, _FILE_FLAGS if last else _DIR_FLAGS, dir_fd=fd)
            if fd != root_fd:
                os.close(fd)
            fd = nxt
    except OSError as exc:
        kind = _special_kind(fd, part)  # a socket does not open at all (ENXIO)
        if fd != root_fd:
            os.close(fd)
        if kind is not None:
            raise _not_regular(label, kind) from exc
        if exc.errno in _LINK_ERRNOS:
            raise _outside(label) from exc
        raise
    return fd


def _special_kind(dir_fd: int, name: str) -> str | None:
    """The kind of ``name`` in ``dir_fd`` when it is neither a file, a folder nor a link."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return None
    plain = stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)
    return None if plain else file_kind(mode)


def _not_regular(label: str, kind: str) -> NotRegularFile:
    return NotRegularFile(
        f"{label}: not read, it is a {kind}, not a regular file; only regular files are read.",
        hint="Remove it from the folder or list it in .citewiseignore.",
    )


def _relative_parts(root: Path, path: Path, label: str) -> tuple[str, ...]:
    try:
        rel = PurePath(os.path.relpath(path, root))
    except ValueError as exc:
        raise _outside(label) from exc
    if rel.is_absolute() or not rel.parts or ".." in rel.parts or rel.parts == (".",):
        raise _outside(label)
    return rel.parts


@contextmanager
def open_inside(
    root: Path, path: Path, label: str, real_root: str | None = None
) -> Iterator[tuple[int, os.stat_result]]:
    """The descriptor and ``fstat`` of the regular file ``path`` inside folder ``root``.

    ``label`` names the file in messages (a relative path, never the server's folders).
    ``real_root``: the folder's real path when the walk began; a root that has become
    another folder since (replaced by a link) is refused.
    Raises NotRegularFile, OutsideRoot, or OSError when the file cannot be opened."""
    root_fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    fd = -1
    try:
        opened = fd_path(root_fd) or os.path.realpath(root)
        if real_root is not None and opened != real_root:
            raise _outside(label)
        real_root = opened
        try:
            fd = _open_parts(root_fd, _relative_parts(root, path, label), label)
        except OutsideRoot:
            if not path.is_symlink():
                raise
            # The walker took this file because its link stays inside the root: open the
            # link's real location, itself component by component with no link followed.
            target = Path(os.path.realpath(path))
            fd = _open_parts(root_fd, _relative_parts(Path(real_root), target, label), label)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(label, file_kind(info.st_mode))
        real = fd_path(fd)
        if real is not None and not _within(real, real_root):
            raise _outside(label)
        yield fd, info
    finally:
        if fd >= 0:
            os.close(fd)
        os.close(root_fd)


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(_READ_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_inside(
    root: Path,
    path: Path,
    label: str,
    limit: int,
    *,
    real_root: str | None = None,
    tries: int = 5,
    wait: float = 0.2,
) -> bytes:
    """At most ``limit + 1`` bytes of ``path`` (see :func:`open_inside`), read once the
    descriptor's size and mtime agree before and after the read.

    Raises UNREADABLE_FILE when the file keeps changing (the next sync retries it)."""
    for attempt in range(tries):
        with open_inside(root, path, label, real_root) as (fd, before):
            data = _read_fd(fd, limit)
            after = os.fstat(fd)
        same = before.st_size == after.st_size == len(data)
        if (same and before.st_mtime_ns == after.st_mtime_ns) or len(data) > limit:
            return data
        if attempt + 1 < tries:
            time.sleep(wait)
    raise UnreadableFile(
        f"{label}: the file kept changing while it was read.",
        hint="Sync again once it has been written (watch mode retries by itself).",
    )
