"""Metadata kept beside documents: a sidecar ``NAME.ext.meta.yaml`` and a folder's
``.citewise.yaml``, parsed and validated (pure functions; reading them is ``sidecar.py``).

A sidecar is a mapping of fields, as front matter is (``access``, ``tags``, ``title``,
``edition``, ``status``, ``relations``, ``effective`` and any other key)::

    access: [finance]
    tags: [q3, board]

A folder file maps globs (relative to its folder, ``/``-separated) to such fields::

    files:
      "confidential/*.pdf": {access: [finance]}
      "**/*.xlsx": {tags: [sheets]}

``*`` and ``?`` never cross a ``/``; a ``**`` part matches any number of folders (none
included), so ``**`` alone matches every file below. Every entry that matches applies, in
the file's order, a later entry's field replacing an earlier one's.

Fields go through the front matter's own validation (``frontmatter.normalise_metadata``),
so an empty ``access`` or a key spelt ``Access`` is refused the same way. A sidecar may not
set the keys the parsers write themselves (:data:`RESERVED`), and a key one letter
from ``access`` is refused rather than read as "no access list" (public).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import yaml

from citewise.errors import BadMetadata
from citewise.ingest.frontmatter import (
    MAX_FRONT_MATTER_CHARS,
    BoundedLoader,
    normalise_metadata,
)

SIDECAR_SUFFIX = ".meta.yaml"
FOLDER_FILE = ".citewise.yaml"
#: Where the stored metadata of a document records which files (or an upload) gave it
#: fields, and a digest of them: a sync compares it to see a sidecar change without a parse.
META_FROM = "metadata_from"
#: Keys the format parsers set (page, sheet, slide, chapter, paragraph and table maps that
#: locators read; OCR; the PDF text check; a delimited file's delimiter) and the
#: provenance record: never given from outside.
PARSER_KEYS = frozenset(
    {"locators", "needs_ocr", "ocr_pages", "pages", "sheets", "slides", "chapters"}
    | {"paragraphs", "tables", "text_check", "text_suspect", "delimiter"}
)
RESERVED = PARSER_KEYS | {META_FROM}
#: Exceptions the YAML parser and value conversion raise on hostile input besides
#: ``yaml.YAMLError`` (an impossible date, an integer too long to print, deep recursion).
_VALUE_ERRORS = (ValueError, TypeError, OverflowError, RecursionError)

Fields = dict[str, Any]


def is_sidecar(name: str) -> bool:
    """Whether a file name is a sidecar (``report.pdf.meta.yaml``), never a document."""
    return name.lower().endswith(SIDECAR_SUFFIX) and len(name) > len(SIDECAR_SUFFIX)


def sidecar_target(name: str) -> str:
    """The document a sidecar describes: its name without ``.meta.yaml``."""
    return name[: -len(SIDECAR_SUFFIX)]


def _load(text: str, name: str) -> Any:
    if len(text) > MAX_FRONT_MATTER_CHARS:
        raise BadMetadata(
            f"{name}: {len(text):,} characters, over the {MAX_FRONT_MATTER_CHARS:,}-character "
            "limit for metadata.",
            hint="Keep metadata short (access, tags, title, edition, status).",
        )
    try:
        return yaml.load(text, Loader=BoundedLoader) if text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise BadMetadata(
            f"{name}: not valid YAML{where}: {problem}.",
            hint="Fix the YAML (write 'key: value' lines; quote values containing ':' or '#').",
        ) from exc
    except _VALUE_ERRORS as exc:
        raise BadMetadata(
            f"{name}: a value cannot be read ({type(exc).__name__}).",
            hint="Quote dates and long numbers (e.g. edition: '2024-02-30').",
        ) from exc


def fields(value: Any, name: str, what: str) -> Fields:
    """Validated, normalised fields from a loaded mapping, or BAD_METADATA naming ``name``."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadMetadata(
            f"{name}: {what} must be a mapping of 'key: value' lines, got {type(value).__name__}.",
            hint="Write e.g. 'access: [finance]' and 'tags: [q3]' on lines of their own.",
        )
    for key in value:
        text = str(key)
        if text in RESERVED:
            raise BadMetadata(
                f"{name}: {what} may not set {text!r} (citewise writes it).",
                hint=f"Remove the {text!r} line.",
            )
        folded = text.strip().lower()  # ``Access``: the front matter's own check names it
        if folded != "access" and one_typo(folded, "access"):
            raise BadMetadata(
                f"{name}: {what} key {text!r} looks like a misspelt 'access', so the "
                "document would be public.",
                hint="Write the key as 'access', or rename it if it means something else.",
            )
    try:
        return normalise_metadata(dict(value), name, what=what, error=BadMetadata)
    except _VALUE_ERRORS as exc:
        raise BadMetadata(
            f"{name}: a value of the {what} cannot be read ({type(exc).__name__}).",
            hint="Quote long numbers and unusual values.",
        ) from exc


def one_typo(word: str, target: str) -> bool:
    """Whether ``word`` is ``target`` with one letter added, dropped or changed (``acess``,
    ``accesss``, ``acsess``); ``accessed`` or ``success`` are other words."""
    if abs(len(word) - len(target)) > 1 or word == target:
        return False
    if len(word) == len(target):
        return sum(a != b for a, b in zip(word, target, strict=True)) == 1
    short, long = sorted((word, target), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def parse_sidecar(text: str, name: str) -> Fields:
    """The fields of a sidecar file's text; BAD_METADATA (naming ``name``) if malformed."""
    return fields(_load(text, name), name, "the sidecar")


#: How upload fields are named in messages and in the provenance record.
UPLOAD = "upload"


def parse_upload_fields(value: str | Mapping[str, Any] | None) -> Fields:
    """An upload's metadata (a JSON object, or YAML: the text of the ``metadata`` form
    field, or an MCP argument's mapping) validated as a sidecar is, with its provenance;
    {} when none is given. BAD_METADATA (HTTP 400) when malformed."""
    name = "the upload's metadata field"
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    loaded = _load(value, name) if isinstance(value, str) else value
    return with_provenance(fields(loaded, name, "metadata"), [UPLOAD])


#: One entry of a folder file: (glob, fields).
Rule = tuple[str, Fields]


def parse_folder_file(text: str, name: str) -> tuple[Rule, ...]:
    """The entries of a ``.citewise.yaml`` text, in order; BAD_METADATA if malformed."""
    loaded = _load(text, name)
    if loaded is None or loaded == {}:
        return ()
    example = "files: {'confidential/*.pdf': {access: [finance]}}"
    if not isinstance(loaded, Mapping) or set(map(str, loaded)) != {"files"}:
        keys = sorted(map(str, loaded)) if isinstance(loaded, Mapping) else []
        raise BadMetadata(
            f"{name}: a folder file holds one key, 'files', mapping globs to metadata"
            + (f" (found {', '.join(repr(k) for k in keys[:5])})" if keys else "")
            + ".",
            hint=f"Write e.g. {example}; '**' matches every file below the folder.",
        )
    entries = loaded["files"]
    if entries is None:
        return ()
    if not isinstance(entries, Mapping):
        raise BadMetadata(
            f"{name}: 'files' must map globs to metadata, got {type(entries).__name__}.",
            hint=f"Write e.g. {example}.",
        )
    rules: list[Rule] = []
    for glob, value in entries.items():
        pattern = str(glob).strip()
        problem = glob_problem(pattern)
        if problem:
            raise BadMetadata(
                f"{name}: glob {pattern[:80]!r} {problem}.",
                hint="Write globs relative to this folder, e.g. 'reports/*.pdf' or '**/*.xlsx'.",
            )
        rules.append((pattern, fields(value, f"{name} [{pattern}]", "the entry")))
    return tuple(rules)


def glob_problem(pattern: str) -> str:
    """Why ``pattern`` is not a usable glob ("" when it is)."""
    if not pattern:
        return "is empty"
    if pattern.startswith("/") or any(p in ("", ".", "..") for p in pattern.split("/")):
        return "must be relative to the folder, without '.', '..' or empty parts"
    return ""


def glob_matches(pattern: str, rel: str) -> bool:
    """Whether the ``/``-separated path ``rel`` matches ``pattern`` (see the module doc).

    One pass over the pattern's parts, keeping the set of path positions reached, so a
    pattern of many ``**`` parts costs parts x folders, never their combinations."""
    parts = rel.split("/")
    reach = {0}
    for part in pattern.split("/"):
        if part == "**":
            reach = set(range(min(reach), len(parts) + 1))
        else:
            reach = {i + 1 for i in reach if i < len(parts) and fnmatch.fnmatchcase(parts[i], part)}
        if not reach:
            return False
    return len(parts) in reach


def merge(layers: list[Fields]) -> Fields:
    """Layers lowest first: a later layer's field replaces an earlier one's, key by key."""
    out: Fields = {}
    for layer in layers:
        out.update(layer)
    return out


def digest(value: Fields) -> str:
    """A stable hash of a set of fields (what :data:`META_FROM` records)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def with_provenance(value: Fields, sources: list[str]) -> Fields:
    """``value`` and the :data:`META_FROM` record naming ``sources`` ({} when empty)."""
    if not sources:
        return {}
    return {**value, META_FROM: {"files": sources, "sha256": digest(value)}}
