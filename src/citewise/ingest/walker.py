"""Find the files an ``add`` should ingest.

Directories are walked recursively (symlinked directories are not followed),
hidden files and folders are skipped, and a ``.citewiseignore`` (gitignore
syntax, via ``pathspec``) in the added root excludes more. A symlinked file
that resolves outside the added root is reported, never read.

Inside a folder, files without an extension (``Makefile``, ``LICENSE``, ``CNAME``) and
theme/template folders of documentation builds (``_themes``, ``_templates``) are skipped
by policy: they are build plumbing, not documents (a file named on the command line is
still taken). A folder that yields no document at all is a fatal ``NO_DOCUMENTS``
problem naming the folder and the supported formats.

A sidecar (``NAME.ext.meta.yaml``) and a folder's ``.citewise.yaml`` (hidden) are metadata,
never documents: each file found carries the fields they give it (``ingest/sidecar.py``).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pathspec

from citewise.errors import BadMetadata
from citewise.ingest.formats import is_supported, supported_suffixes
from citewise.ingest.meta_yaml import is_sidecar, sidecar_target
from citewise.ingest.names import name_problem
from citewise.ingest.sidecar import MetaFinder

IGNORE_FILE = ".citewiseignore"
#: Folders of documentation builds that hold page templates and themes, not documents.
TEMPLATE_DIRS = frozenset({"_themes", "_templates"})


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file to ingest: ``rel_path`` (posix, relative to ``root``) is its identity.
    ``metadata``: the fields its sidecar and folder files give it (``ingest/sidecar.py``)."""

    root: Path
    abs_path: Path
    rel_path: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WalkProblem:
    """A file that was found but will not be ingested."""

    rel_path: str
    code: str
    message: str
    fatal: bool  # False for files skipped by policy (unsupported suffix inside a directory)


def _load_ignore(root: Path) -> pathspec.PathSpec[Any] | None:
    ignore = root / IGNORE_FILE
    if not ignore.is_file():
        return None
    lines = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _check_file(root: Path, abs_path: Path, rel: str) -> SourceFile | WalkProblem:
    rel = unicodedata.normalize("NFC", rel)  # one document per name, however it is spelled
    problem = name_problem(rel)
    if problem:
        return WalkProblem(rel, "BAD_FILE_NAME", f"{rel[:80]!r}: {problem}.", True)
    if abs_path.is_symlink() and not _inside(abs_path, root):
        return WalkProblem(
            rel,
            "OUTSIDE_ROOT",
            f"{rel}: symlink points outside the added folder {root}; "
            "copy the file into the folder or add its real location instead.",
            True,
        )
    return SourceFile(root=root, abs_path=abs_path, rel_path=rel)


def walk(path: Path) -> Iterator[SourceFile | WalkProblem]:
    """Yield files (sorted, deterministic) under ``path``, or problems with them."""
    if not path.exists() and not path.is_symlink():
        yield WalkProblem(
            str(path), "NOT_FOUND", f"{path}: no such file or folder; check the path.", True
        )
        return
    if path.is_file() or (path.is_symlink() and not path.is_dir()):
        root = path.parent
        yield _described(_check_file(root, path, path.name), MetaFinder(root))
        return
    root = path
    taken = 0
    finder = MetaFinder(root)
    for item in _walk_dir(root):
        taken += isinstance(item, SourceFile)
        yield _described(item, finder)
    if not taken:
        yield WalkProblem(
            str(root),
            "NO_DOCUMENTS",
            f"{root}: the folder holds no document citewise can read (supported: "
            f"{', '.join(sorted(supported_suffixes()))}; files without an extension and "
            "_themes/_templates folders are skipped). Add a folder with documents, or name "
            "a file directly.",
            True,
        )


def _described(item: SourceFile | WalkProblem, finder: MetaFinder) -> SourceFile | WalkProblem:
    """``item`` with the fields its metadata files give it; a malformed metadata file
    fails this file alone (BAD_METADATA naming the metadata file), never the batch."""
    if isinstance(item, WalkProblem):
        return item
    try:
        metadata = finder.for_file(item.rel_path)
    except BadMetadata as exc:
        return WalkProblem(item.rel_path, exc.code, str(exc), True)
    return replace(item, metadata=metadata) if metadata else item


def _walk_dir(root: Path) -> Iterator[SourceFile | WalkProblem]:
    spec = _load_ignore(root)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        keep = []
        for d in sorted(dirnames):
            rel = d if rel_dir == "." else f"{rel_dir}/{d}"
            if d.startswith(".") or d.lower() in TEMPLATE_DIRS:
                continue
            if spec is not None and spec.match_file(rel + "/"):
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if name.startswith(".") or (spec is not None and spec.match_file(rel)):
                continue
            if is_sidecar(name):  # metadata of a document beside it, never a document
                if sidecar_target(name) not in filenames:
                    yield WalkProblem(
                        rel,
                        "ORPHAN_METADATA",
                        f"{rel}: skipped, no file {sidecar_target(name)!r} beside this "
                        "sidecar; rename it after its document or remove it.",
                        False,
                    )
                continue
            abs_path = here / name
            suffix = abs_path.suffix.lower()
            if not suffix:
                yield WalkProblem(
                    rel,
                    "UNSUPPORTED_FORMAT",
                    f"{rel}: skipped, a file without an extension in a folder is not taken "
                    "(name it on the command line to add it).",
                    False,
                )
                continue
            if not is_supported(suffix):
                yield WalkProblem(
                    rel,
                    "UNSUPPORTED_FORMAT",
                    f"{rel}: skipped, {suffix} is not a supported format "
                    f"({', '.join(sorted(supported_suffixes()))}).",
                    False,
                )
                continue
            yield _check_file(root, abs_path, rel)
