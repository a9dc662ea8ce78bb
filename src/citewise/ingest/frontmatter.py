"""YAML front matter: ``---`` on the first line, closed by ``---`` or ``...``.

The front matter is not a node; :func:`split_front_matter` returns the metadata
and the offset where the body starts, so node offsets stay offsets into the full
original text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

import yaml

from citewise.core.rights import check_rights
from citewise.errors import FrontMatterError

#: Nesting of YAML collections front matter may use (the YAML parser recurses per level).
MAX_YAML_DEPTH = 32
#: Characters of front matter: metadata is small, and the pure-Python YAML parser cannot be
#: interrupted by the per-file time limit (about 30 s per MB on a loaded 2-core machine).
MAX_FRONT_MATTER_CHARS = 64 * 1024


class BoundedLoader(yaml.SafeLoader):
    """Safe YAML without aliases and with bounded nesting. ``*alias`` chains expand
    exponentially when the metadata is walked (a "billion laughs" in a few hundred
    bytes) and deep ``[[[...`` overflows the stack; metadata never needs either."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark: Any = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases (*name) are not allowed in metadata", mark
            )
        if self._depth >= MAX_YAML_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_OPEN = re.compile(r"---[ \t]*(?:\r\n|\r|\n)")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n|$)", re.MULTILINE)


def split_front_matter(text: str, name: str) -> tuple[dict[str, Any], int]:
    """Return ``(metadata, body_offset)``; ``({}, 0)`` when there is no front matter.

    Raises :class:`FrontMatterError` (with the line number) for broken YAML,
    a non-mapping value, or a missing closing ``---``.
    """
    opening = _OPEN.match(text)
    if opening is None:
        return {}, 0
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        raise FrontMatterError(
            f"{name}: front matter opened with '---' on line 1 is never closed.",
            hint="Add a closing '---' line after the YAML, or remove the opening '---'.",
        )
    yaml_text = text[opening.end() : closing.start()]
    if len(yaml_text) > MAX_FRONT_MATTER_CHARS:
        raise FrontMatterError(
            f"{name}: front matter is {len(yaml_text):,} characters, over the "
            f"{MAX_FRONT_MATTER_CHARS:,}-character limit.",
            hint="Keep metadata short; move long content into the document body.",
        )
    try:
        loaded = yaml.load(yaml_text, Loader=BoundedLoader) if yaml_text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise FrontMatterError(
            f"{name}: front matter is not valid YAML{where}: {problem}.",
            hint="Fix the YAML between the '---' lines (quote values containing ':' or '#').",
        ) from exc
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, Mapping):
        raise FrontMatterError(
            f"{name}: front matter must be a mapping of 'key: value' lines, "
            f"got {type(loaded).__name__}.",
            hint="Write the front matter as 'key: value' pairs (e.g. 'title: My doc').",
        )
    return normalise_metadata(dict(loaded), name), closing.end()


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _str_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list | tuple | set):
        return [str(_jsonable(v)).strip() for v in value if v is not None and str(v).strip()]
    return [str(_jsonable(value))]


def normalise_metadata(
    meta: dict[str, Any],
    name: str,
    *,
    what: str = "front matter",
    error: type[FrontMatterError] = FrontMatterError,
) -> dict[str, Any]:
    """Normalise known keys; everything else is kept, made JSON-serialisable.

    ``title``/``edition``/``status`` -> str; ``tags``/``access`` -> list of str
    (a comma-separated string is split); ``relations`` -> list of mappings. ``what`` names
    where the metadata came from in messages (front matter, a sidecar, upload fields).
    """
    out: dict[str, Any] = {str(k): _jsonable(v) for k, v in meta.items()}
    _check_access(out, name, what, error)
    problem = check_rights(out, name, what)
    if problem is not None:
        raise error(problem, hint="See 'Rights, retention and takedown' in docs/governance.md.")
    for key in ("title", "edition", "status"):
        if key in out and out[key] is not None:
            out[key] = str(out[key]).strip()
    for key in ("tags", "access"):
        if key in out:
            out[key] = _str_list(out[key])
    if "access" in out and not out["access"]:
        raise error(
            f"{name}: {what} 'access' names no principal, so it would make the "
            "document readable by everyone.",
            hint="List who may read it (e.g. 'access: [alice]'), or remove the 'access' "
            "line to make the document public.",
        )
    if "relations" in out:
        rel = out["relations"]
        if rel is None:
            out["relations"] = []
        else:
            items = rel if isinstance(rel, list) else [rel]
            if not all(isinstance(r, dict) for r in items):
                raise error(
                    f"{name}: {what} 'relations' must be a list of mappings.",
                    hint="Write each relation as e.g. '- {type: supersedes, target: other.md}'.",
                )
            out["relations"] = items
    return out


def _check_access(
    meta: dict[str, Any], name: str, what: str, error: type[FrontMatterError]
) -> None:
    """Fail closed on a misspelt access key: ``Access:`` or `` access`` must never be
    read as "no access list" (which means public)."""
    for key in meta:
        if key != "access" and key.strip().lower() == "access":
            raise error(
                f"{name}: {what} key {key!r} is not 'access' (keys are case-sensitive), "
                "so the document would be public.",
                hint="Write the key as 'access' in lower case.",
            )
