"""A sync report as one caller may see it over HTTP.

Two rules, both about what leaves the server:

* **Only what the caller's principal may read.** A row about a document the principal may
  not read is left out (and so out of the counts); a changed document whose previous
  version it could not read is reported ``added``, as for uploads; stale answers are only
  the caller's principal's own saved answers.
* **No server path.** The folder is named as the request named it, relative to its sync
  root, and every message has the server's absolute folders replaced by those names
  (errors raised by the sync included).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from citewise.core.access import may_read
from citewise.errors import CitewiseError
from citewise.sync.folder import SyncFile, SyncReport


def folder_names(roots: Sequence[Path], root: int, target: Path) -> dict[str, str]:
    """Each absolute server folder a message may name (as spelled and resolved), mapped to
    the name a caller knows it by: ``target`` relative to its root, a root by its number."""
    base = roots[root].resolve()
    label = target.resolve().relative_to(base).as_posix()
    names = {str(target): label, str(target.resolve()): label}
    for i, r in enumerate(roots):
        for spelling in (str(r), str(r.resolve()), str(Path(r).absolute())):
            names.setdefault(spelling, f"<sync root {i}>")
    return names


def scrub(text: str, names: Mapping[str, str]) -> str:
    """``text`` with every server folder in ``names`` replaced (longest first, so a folder
    inside a root is named by its label, not as the root plus a tail)."""
    for path in sorted(names, key=len, reverse=True):
        if path and path != "/":
            text = text.replace(path, names[path])
    return text


def scrub_report(report: SyncReport, names: Mapping[str, str]) -> SyncReport:
    files = tuple(
        replace(f, path=scrub(f.path, names), message=scrub(f.message, names)) for f in report.files
    )
    return replace(report, folder=scrub(report.folder, names), files=files)


@contextmanager
def scrubbed(names: Mapping[str, str]) -> Iterator[None]:
    """Errors raised inside the block carry no server folder in their message."""
    try:
        yield
    except CitewiseError as exc:
        exc.message = scrub(exc.message, names)
        exc.hint = scrub(exc.hint, names) if exc.hint else exc.hint
        exc.args = tuple(scrub(str(a), names) for a in exc.args)
        raise


def file_as_seen(
    f: SyncFile,
    live: Sequence[int],
    readable: Callable[[int], bool],
    planned: Mapping[str, Any] | None,
    principal: str | None,
) -> SyncFile | None:
    """One row as the caller sees it, or None when it is about a document it may not read.

    ``live``: the path's stored content versions, newest first (for a written row the
    first is the one just written, for a deleted row the one deleted); ``readable`` tells
    whether the principal may read one; ``planned``: the parsed metadata of a file a dry
    run would write (its new version is not stored yet)."""
    if planned is not None:  # dry run, added or changed: judged by the new content
        if not may_read(planned, principal):
            return None
        previous = live[:1]
    else:
        if live and not readable(live[0]):
            return None
        previous = list(live[1:2]) if f.status in ("added", "changed") else []
    if f.status == "changed" and previous and not readable(previous[0]):
        return replace(f, status="added")  # an earlier version it cannot read: new to it
    return f


def visible_files(
    files: Sequence[SyncFile],
    live_versions: Callable[[str], list[int]],
    readable: Callable[[str, int], bool],
    planned: Mapping[str, Mapping[str, Any]],
    principal: str | None,
) -> tuple[SyncFile, ...]:
    out: list[SyncFile] = []
    for f in files:
        seen = file_as_seen(
            f,
            live_versions(f.path),
            functools.partial(readable, f.path),
            planned.get(f.path) if f.status in ("added", "changed") else None,
            principal,
        )
        if seen is not None:
            out.append(seen)
    return tuple(out)
