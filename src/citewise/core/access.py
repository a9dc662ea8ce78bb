"""Authorization and scope: which chunks a caller may see, decided before any ranking.

A document's front matter ``access:`` lists the principals that may read it; a document
without one is public within its knowledge base. Path prefixes, tags and metadata equality
narrow the scope further. The result is the set of chunk ids every route searches within.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from citewise.analysis.asof import parse_as_of
from citewise.core.rights import withholding
from citewise.core.search import SearchFilters
from citewise.core.stored import StoredChunk
from citewise.errors import UsageError


def may_read(metadata: Mapping[str, Any], principal: str | None) -> bool:
    """Whether ``principal`` may read a document with ``metadata``. Fails closed: an
    ``access`` key that is present but empty, or spelt in another case (``Access``),
    restricts the document to nobody rather than opening it to everyone (ingest refuses
    both; this guards documents stored before it did). A version taken down or expired
    (:func:`citewise.core.rights.withholding`) is readable by nobody: every read path
    (search, evidence, answers, graph, history, resolve, export) asks this rule."""
    if withholding(metadata) is not None:
        return False
    return may_read_access(metadata, principal)


def may_read_access(metadata: Mapping[str, Any], principal: str | None) -> bool:
    """The ``access:`` half of :func:`may_read` alone (withholding not applied): used
    only to decide whether to *say* a version is withheld to a caller who could
    otherwise read it."""
    keys = [k for k in metadata if isinstance(k, str) and k.strip().lower() == "access"]
    if not keys:
        return True
    if keys != ["access"]:
        return False
    access = metadata.get("access")
    if not access:
        return False
    allowed = {access} if isinstance(access, str) else {str(a) for a in access}
    return principal is not None and principal in allowed


def in_scope(chunk: StoredChunk, filters: SearchFilters) -> bool:
    meta = chunk.metadata
    if not may_read(meta, filters.principal):
        return False
    if filters.path_prefixes and not any(chunk.path.startswith(p) for p in filters.path_prefixes):
        return False
    if filters.tags:
        tags = {str(t).lower() for t in meta.get("tags") or ()}
        if not all(t.lower() in tags for t in filters.tags):
            return False
    return all(str(meta.get(key, "")) == value for key, value in filters.metadata)


def visible_chunks(chunks: Iterable[StoredChunk], filters: SearchFilters) -> set[str]:
    return {c.chunk_id for c in chunks if in_scope(c, filters)}


def parse_filters(
    items: Iterable[str],
    principal: str | None = None,
    *,
    current_only: bool | None = None,
    as_of: str | None = None,
) -> SearchFilters:
    """``path=PREFIX``, ``tag=TAG`` or ``KEY=VALUE`` (metadata) strings, as the CLI and the
    HTTP API accept them, into :class:`SearchFilters`; the edition switches as given
    (``as_of`` checked and written as an ISO date)."""
    prefixes: list[str] = []
    tags: list[str] = []
    meta: list[tuple[str, str]] = []
    for f in items:
        key, sep, value = f.partition("=")
        if not sep or not key or not value:
            raise UsageError(
                f"Bad filter {f!r}.", hint="Use KEY=VALUE, e.g. path=runbooks/ or tag=ops."
            )
        if key == "path":
            prefixes.append(value)
        elif key == "tag":
            tags.append(value)
        else:
            meta.append((key, value))
    day = parse_as_of(as_of).isoformat() if as_of is not None else None
    return SearchFilters(tuple(prefixes), tuple(tags), tuple(meta), principal, current_only, day)


@dataclass(frozen=True, slots=True)
class RevisionView:
    """One principal's numbering of a KB's revisions: ``changes`` are the KB revisions at
    which a version it may read entered or left. Its revision ``n`` is the ``n``-th such
    change, so changes to documents it may not read never move the number it sees."""

    changes: tuple[int, ...]

    def number(self, revision: int) -> int:
        """The principal's revision number for KB revision ``revision``."""
        return bisect_right(self.changes, revision)


def revision_view(
    versions: Iterable[tuple[int, int | None, Mapping[str, Any]]], principal: str | None
) -> RevisionView:
    """From every content version's ``(rev_added, rev_removed, access keys)``: the
    revisions that changed what ``principal`` may read (a version's own ``access:``
    decides, through :func:`may_read`)."""
    changes: set[int] = set()
    for added, removed, access in versions:
        if may_read(access, principal):
            changes.add(added)
            if removed is not None:
                changes.add(removed)
    return RevisionView(tuple(sorted(changes)))
