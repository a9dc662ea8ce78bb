"""Indexes of earlier revisions, built lazily and kept in a small cache (pinned retrieval,
issue 38).

A :class:`~citewise.index.manager.KBIndex` holds the head revision only. A search, evidence
pack or answer pinned to revision ``N`` runs on a second ``KBIndex`` over a
:class:`~citewise.store.revision_view.RevisionStore` of ``N``: its chunks are those of the
documents current at ``N``, and its vectors come from the store (every chunk vector is
kept there by text key when it is first encoded), so building it tokenises ``N``'s chunks
and encodes only a text the store has never seen. The head index is never touched nor
rebuilt. A revision never changes once sealed, so its index is built once; at most
:data:`PINNED_LIMIT` are kept per home (least recently used dropped), and none is saved
to disk (the head's index directory is read for the encoder choice and summaries only).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from citewise.index.manager import IndexState, KBIndex
from citewise.store.revision_view import RevisionStore, check_revision

#: Revision indexes kept per home (each holds one revision's BM25 segments and vectors).
PINNED_LIMIT = 4


class RevisionIndex(KBIndex):
    """A :class:`KBIndex` over a revision view: memory only, never saved or loaded."""

    view: RevisionStore

    def _load(self) -> None:
        self._loaded = True  # nothing cached on disk: built from the view on first sync

    def _save(self, state: IndexState) -> None:
        """A pinned revision's index is not cached on disk (the head's cache is the head's)."""


def revision_index(head: KBIndex, revision: int) -> RevisionIndex:
    """A fresh index of ``head``'s knowledge base at ``revision``, with the head's encoder
    choice, reranker and settings (checked: :class:`RevisionNotFound` names the range)."""
    head.sync()  # the encoder choice of a new base is made (and recorded) by the head
    view = RevisionStore(head.store, head.kb, revision)
    got = RevisionIndex(
        view,
        head.kb,
        head.dir,
        dense=head._dense_wanted,
        loader=head._loader,
        multilingual=head._multilingual,
    )
    got.view = view
    got.choice = head.choice
    got.rerank_config, got.reranker = head.rerank_config, head.reranker
    got.store_search_min = head.store_search_min
    return got


class PinnedIndexes:
    """The revision indexes of one home, by (knowledge base, revision), bounded."""

    def __init__(self, limit: int = PINNED_LIMIT) -> None:
        self.limit = limit
        self._held: OrderedDict[tuple[str, int], RevisionIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, head: KBIndex, revision: int) -> RevisionIndex:
        key = (head.kb, revision)
        wanted = check_revision(head.store, head.kb, revision)  # the range, every time
        with self._lock:
            got = self._held.get(key)
            if got is not None and got.view.info == wanted:  # not a base made anew since
                self._held.move_to_end(key)
                return got
        built = revision_index(head, revision)  # outside the lock: may take a while
        with self._lock:
            if key in self._held and self._held[key].view.info != wanted:
                del self._held[key]
            got = self._held.setdefault(key, built)
            self._held.move_to_end(key)
            while len(self._held) > self.limit:
                self._held.popitem(last=False)
        return got

    def forget(self, kb: str) -> None:
        """Drop ``kb``'s revision indexes (its base was deleted)."""
        with self._lock:
            for key in [k for k in self._held if k[0] == kb]:
                del self._held[key]

    def __len__(self) -> int:
        return len(self._held)
