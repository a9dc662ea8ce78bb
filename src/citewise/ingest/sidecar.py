"""Which metadata files give a walked file its fields, read safely (``meta_yaml.py`` parses).

For a file ``a/b/report.pdf`` under an added (or synced) root, the layers are, lowest
first: the ``.citewise.yaml`` of the root, of ``a`` and of ``a/b`` (nearest folder last, so
it wins key by key), then the sidecar ``a/b/report.pdf.meta.yaml``. The document's own
front matter, where its format has one, beats them all (``parse.parse_document``). Folder
files above the root are never read: what is added is the folder and what it holds.

Metadata files are opened without following a symbolic link and without blocking, and
must be small regular files in UTF-8; anything else fails the files they govern with
BAD_METADATA naming the metadata file (relative to the root) and the fix.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from citewise.errors import BadMetadata
from citewise.ingest.frontmatter import MAX_FRONT_MATTER_CHARS
from citewise.ingest.meta_yaml import (
    FOLDER_FILE,
    SIDECAR_SUFFIX,
    Fields,
    Rule,
    glob_matches,
    merge,
    parse_folder_file,
    parse_sidecar,
    with_provenance,
)

#: Bytes read from one metadata file (its text is capped at the front matter's size).
MAX_META_BYTES = 4 * MAX_FRONT_MATTER_CHARS


def read_meta_file(path: Path, name: str) -> str | None:
    """The text of a metadata file, None when there is none; BAD_METADATA when it is a
    link, not a regular file, too large, unreadable or not UTF-8 (``name`` is how it is
    named in the message: relative to the root, never a server path)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BadMetadata(
                f"{name}: is a symbolic link; metadata files are read only as regular files.",
                hint="Replace the link with a copy of the file.",
            ) from None
        raise BadMetadata(
            f"{name}: cannot be read ({exc.strerror or type(exc).__name__}).",
            hint="Check the file's permissions.",
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BadMetadata(
                f"{name}: is not a regular file.",
                hint="Metadata files must be ordinary YAML files; remove or rename this one.",
            )
        data = os.read(fd, MAX_META_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_META_BYTES:
        raise BadMetadata(
            f"{name}: over {MAX_META_BYTES:,} bytes.",
            hint="Keep metadata short (access, tags, title, edition, status).",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadMetadata(f"{name}: is not UTF-8 text.", hint="Save the file as UTF-8.") from None


class MetaFinder:
    """The metadata of the files under one root; each folder file is read once per walk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._rules: dict[str, tuple[Rule, ...] | BadMetadata] = {}

    def _folder(self, folder: str) -> tuple[Rule, ...]:
        if folder not in self._rules:
            name = f"{folder}/{FOLDER_FILE}" if folder else FOLDER_FILE
            try:
                text = read_meta_file(self.root / name, name)
                self._rules[folder] = () if text is None else parse_folder_file(text, name)
            except BadMetadata as exc:
                self._rules[folder] = exc
        found = self._rules[folder]
        if isinstance(found, BadMetadata):
            raise found
        return found

    def for_file(self, rel: str) -> Fields:
        """The fields ``rel`` (posix, relative to the root) gets from metadata files, with
        their provenance record; {} when none applies. Raises BAD_METADATA."""
        parts = rel.split("/")
        layers: list[Fields] = []
        sources: list[str] = []
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            below = "/".join(parts[depth:])
            matched = [f for glob, f in self._folder(folder) if glob_matches(glob, below)]
            if matched:
                layers.extend(matched)
                sources.append(f"{folder}/{FOLDER_FILE}" if folder else FOLDER_FILE)
        name = rel + SIDECAR_SUFFIX
        text = read_meta_file(self.root / name, name)
        if text is not None:
            layers.append(parse_sidecar(text, name))
            sources.append(name)
        return with_provenance(merge(layers), sources)
