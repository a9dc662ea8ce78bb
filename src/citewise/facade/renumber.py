"""Version numbers in query results as one principal sees them (issue 13), applied where the
server hands results out: the library keeps the store's numbers (evidence, citations, replay
ids and the audit ledger read the store with them).

``number(path, store_version)`` is the caller's number of that version (``facade.history``).
The result transforms are pure; :func:`numbering_for` reads histories (for the CLI's
``--as``; the server's :class:`~citewise.facade.service.Service` has its own, cached).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from citewise.answer.models import Answer
from citewise.core.access import may_read
from citewise.core.search import SearchResult
from citewise.evidence.models import EvidencePack, Fragment
from citewise.facade.history import SeenHistory, seen_history

if TYPE_CHECKING:
    from citewise.kb import KnowledgeBase

#: Metadata of a version with none stored: readable by nobody (fails closed).
_NOBODY: dict[str, list[str]] = {"access": []}
#: ``(path, store version number) -> the caller's version number``.
Numbering = Callable[[str, int], int]


def search_result(result: SearchResult, number: Numbering) -> SearchResult:
    hits = tuple(replace(h, version_id=number(h.path, h.version_id)) for h in result.hits)
    return replace(result, hits=hits)


def _fragments(frags: tuple[Fragment, ...], number: Numbering) -> tuple[Fragment, ...]:
    return tuple(replace(f, version_id=number(f.path, f.version_id)) for f in frags)


def evidence_pack(pack: EvidencePack, number: Numbering) -> EvidencePack:
    paths = {f.doc_id: f.path for f in pack.fragments}
    segments = tuple(
        replace(s, version_id=number(paths[s.doc_id], s.version_id)) if s.doc_id in paths else s
        for s in pack.segments
    )
    return replace(
        pack,
        direct=_fragments(pack.direct, number),
        augmentation=_fragments(pack.augmentation, number),
        graph_neighbors=_fragments(pack.graph_neighbors, number),
        conflicts=_fragments(pack.conflicts, number),
        segments=segments,
    )


def answer(ans: Answer, number: Numbering) -> Answer:
    cites = tuple(replace(c, version_id=number(c.path, c.version_id)) for c in ans.citations)
    return replace(ans, citations=cites)


def numbering_for(kb: KnowledgeBase, principal: str | None) -> Numbering:
    """``principal``'s numbering of ``kb``'s versions, one history read per path."""
    seen: dict[str, SeenHistory] = {}

    def number(path: str, store_id: int) -> int:
        if path not in seen:
            versions = kb.versions(path)[::-1]  # oldest first
            stored = kb.store.version_metadata(kb.name, path)  # never the bytes, re-parsed
            flags = [
                v.action != "deleted" and may_read(stored.get(v.version_id, _NOBODY), principal)
                for v in versions
            ]
            seen[path] = seen_history(versions, flags)
        mine = seen[path].number(store_id)
        return store_id if mine is None else mine  # None: not readable, never shown

    return number
