"""One principal's view of a path's version history (issue 13: a principal must not be able
to tell that versions it may not read exist).

The store numbers a path's versions 1, 2, 3, ... over every version. A principal's version
``n`` is instead the ``n``-th entry of the history it may see, built by :func:`seen_history`
from the store's history (oldest first) and which content versions it may read:

- a content version it may read is shown; one it may not read is left out;
- a deletion is shown when the version it removed was shown;
- a run of hidden versions that replaced a shown version is shown as one deletion (at the
  first hidden version's revision and time): from then on the document is not current for
  this principal, exactly as after a deletion, and its revision numbers already count that
  change (``recall.scope.revision_view``);
- after the start or a deletion, a version reads ``added``; a revert of a version it cannot
  see reads as the plain write it looks like (``added`` or ``changed``);
- the newest entry is the head (``is_head``); no other is.

A principal who may read every version gets the store's history unchanged. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from citewise.core.stored import VersionInfo


@dataclass(frozen=True, slots=True)
class SeenHistory:
    """The entries a principal sees (oldest first, numbered 1..n) and, per entry, the
    store's version number it stands for (``None`` for a deletion standing in for hidden
    versions)."""

    entries: tuple[VersionInfo, ...]
    store_ids: tuple[int | None, ...]

    def number(self, store_id: int) -> int | None:
        """The principal's number of the store's version ``store_id`` (None: not shown)."""
        for n, sid in enumerate(self.store_ids, start=1):
            if sid == store_id:
                return n
        return None

    def store_id(self, number: int) -> int | None:
        """The store's version number behind the principal's version ``number``."""
        if 1 <= number <= len(self.store_ids):
            return self.store_ids[number - 1]
        return None


def seen_history(versions: Sequence[VersionInfo], readable: Sequence[bool]) -> SeenHistory:
    """``versions`` oldest first; ``readable[i]`` says whether the principal may read
    ``versions[i]`` (ignored for deletions). See the module docstring for the rules."""
    entries: list[VersionInfo] = []
    ids: list[int | None] = []
    live = False  # is the document current for this principal after the last entry?
    for v, can_read in zip(versions, readable, strict=True):
        if v.action == "deleted":
            if live:  # removes a version it saw
                entries.append(v)
                ids.append(v.version_id)
                live = False
            continue
        if not can_read:
            if live:  # the document leaves its view here, as if deleted
                entries.append(_gone(v))
                ids.append(None)
                live = False
            continue
        entries.append(_seen_action(v, live, set(ids)))
        ids.append(v.version_id)
        live = True
    numbered = [
        replace(
            e,
            version_id=n,
            is_head=n == len(entries),
            restored_from=_renumber(e.restored_from, ids),
        )
        for n, e in enumerate(entries, start=1)
    ]
    return SeenHistory(tuple(numbered), tuple(ids))


def _gone(hidden: VersionInfo) -> VersionInfo:
    """A deletion standing in for ``hidden`` (and the hidden versions after it)."""
    return replace(
        hidden, action="deleted", content_sha256="", size_bytes=0, source="", restored_from=None
    )


def _seen_action(v: VersionInfo, live: bool, shown: set[int | None]) -> VersionInfo:
    if v.action == "reverted" and v.restored_from in shown:
        return v
    if v.action in ("changed", "unchanged", "reverted"):
        return replace(v, action="changed" if live else "added", restored_from=None)
    return v  # "added"


def _renumber(store_id: int | None, ids: list[int | None]) -> int | None:
    if store_id is None or store_id not in ids:
        return None
    return ids.index(store_id) + 1
