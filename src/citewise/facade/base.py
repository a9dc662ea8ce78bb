"""The facade's shared part: one home, the readers-writer lock, the caller's access
to knowledge bases, documents and versions, and version numbers as the caller sees
them (the concerns build on it: :mod:`.reads`, :mod:`.writes`, :mod:`.folder_sync`,
:mod:`.questions`; :class:`~citewise.facade.service.Service` joins them)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from citewise.core.access import RevisionView, may_read, revision_view
from citewise.core.search import SearchFilters
from citewise.core.stored import (
    DocumentInfo,
    IngestOutcome,
)
from citewise.errors import (
    DocumentNotFound,
    KBNotFound,
)
from citewise.facade import renumber
from citewise.facade.caller import Caller
from citewise.facade.history import SeenHistory, seen_history
from citewise.facade.rwlock import RWLock
from citewise.facade.uploads import clean_stale
from citewise.kb import Home, KnowledgeBase

#: Metadata of a version with none stored: readable by nobody (fails closed).
_NOBODY: dict[str, list[str]] = {"access": []}


@dataclass(frozen=True, slots=True)
class Scope:
    """Narrowing filters a caller may add (never the principal: that comes from the key)."""

    path_prefixes: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    #: Editions (recall/editions.py): None = default, True = current only, False = all.
    current_only: bool | None = None
    as_of: str | None = None  # ISO date, already checked


def _no_kb(name: str) -> KBNotFound:
    return KBNotFound(f"No knowledge base named {name!r}.", hint="List them with GET /kb.")


def _no_doc(kb: str, path: str) -> DocumentNotFound:
    return DocumentNotFound(f"No document {path!r} in knowledge base {kb!r}.")


class ServiceBase:
    """Access-checked state of one home: the lock, the caller's view of KBs and versions."""

    def __init__(
        self,
        home: Home,
        *,
        max_upload_bytes: int | None = None,
        sync_roots: tuple[Path, ...] = (),
    ) -> None:
        self.home = home
        self.sync_roots = sync_roots
        self.max_upload_bytes = max_upload_bytes or home.settings.ingest.max_file_bytes
        self.lock = RWLock()
        self._version_meta: dict[tuple[str, str, int], dict[str, Any]] = {}
        self._meta_generation: dict[str, str] = {}
        clean_stale(home.settings.home)  # staging folders of a server that was killed

    @contextmanager
    def reading(self, caller: Caller, name: str) -> Iterator[KnowledgeBase]:
        """The shared lock, plus one pinned index state and graph of the KB for the whole
        read (access is checked first, so a hidden KB is never touched)."""
        with self.lock.read():
            kb = self.kb(caller, name)
            with self.home.index(kb.name).pinned():
                yield kb

    # -- knowledge bases ------------------------------------------------------------
    def kb(self, caller: Caller, name: str) -> KnowledgeBase:
        if not caller.may_use(name):
            raise _no_kb(name)
        try:
            return self.home.kb(name)
        except KBNotFound:
            raise _no_kb(name) from None

    def visible_documents(self, caller: Caller, kb: KnowledgeBase) -> list[DocumentInfo]:
        return [d for d in kb.documents() if may_read(d.metadata, caller.principal)]

    def _view(self, caller: Caller, name: str) -> RevisionView:
        """Revision numbers as the caller sees them: changes to documents it may not read
        never move them (read under the lock, from the store's version history)."""
        return revision_view(self.home.store.version_access(name), caller.principal)

    def _numbered(self, caller: Caller, kb: KnowledgeBase, doc: DocumentInfo) -> DocumentInfo:
        """``doc`` (current, readable) with its version numbered as the caller sees it."""
        try:
            number = self._history(caller, kb, doc.path).number(doc.version_id)
        except DocumentNotFound:
            return doc  # not reached: a readable current document has a history
        return doc if number is None else replace(doc, version_id=number)

    def _readable_version(self, kb: KnowledgeBase, caller: Caller, path: str, vid: int) -> bool:
        """Access to a stored version from the metadata stored with it at ingest (front
        matter, sidecar and upload fields alike): its bytes are never read nor parsed again."""
        key = (kb.name, path, vid)
        generation = self.home.store.generation(kb.name)
        if self._meta_generation.get(kb.name) != generation:  # a takedown or expiry since
            self._version_meta.clear()
            self._meta_generation[kb.name] = generation
        if key not in self._version_meta:
            for number, meta in self.home.store.version_metadata(kb.name, path).items():
                self._version_meta[(kb.name, path, number)] = meta
        # A version without stored metadata (not one with content) is readable by nobody.
        return may_read(self._version_meta.get(key, _NOBODY), caller.principal)

    def _document(self, caller: Caller, kb: KnowledgeBase, path: str) -> DocumentInfo:
        try:
            doc = kb.document(path)
        except DocumentNotFound:
            raise _no_doc(kb.name, path) from None
        if not may_read(doc.metadata, caller.principal):
            raise _no_doc(kb.name, path)
        return doc

    def _history(self, caller: Caller, kb: KnowledgeBase, path: str) -> SeenHistory:
        """The history of ``path`` as the caller sees it (``facade.history``: its own
        version numbers, nothing pointing at versions it may not read), or DOC_NOT_FOUND
        when it shows nothing: such a history looks exactly like a path that never existed."""
        try:
            versions = kb.versions(path)[::-1]  # oldest first
        except DocumentNotFound:
            raise _no_doc(kb.name, path) from None
        readable = [
            v.action != "deleted" and self._readable_version(kb, caller, path, v.version_id)
            for v in versions
        ]
        seen = seen_history(versions, readable)
        if not seen.entries:
            raise _no_doc(kb.name, path)
        return seen

    def _seen(self, caller: Caller, kb: KnowledgeBase, outcome: IngestOutcome) -> IngestOutcome:
        """A write's outcome numbered as the caller sees the KB and the path."""
        number = self._history(caller, kb, outcome.path).number(outcome.version_id)
        return replace(
            outcome,
            version_id=outcome.version_id if number is None else number,
            revision=self._view(caller, kb.name).number(outcome.revision),
        )

    def _numbering(self, caller: Caller, kb: KnowledgeBase) -> renumber.Numbering:
        """The caller's version numbers of readable versions (``facade.history``), one
        history read per path."""
        seen: dict[str, SeenHistory] = {}

        def number(path: str, store_id: int) -> int:
            if path not in seen:
                seen[path] = self._history(caller, kb, path)
            mine = seen[path].number(store_id)
            return store_id if mine is None else mine  # None: not readable, never shown

        return number

    # -- filters --------------------------------------------------------------------
    def _filters(self, caller: Caller, scope: Scope | None) -> SearchFilters:
        s = scope or Scope()
        return SearchFilters(
            s.path_prefixes, s.tags, s.metadata, caller.principal, s.current_only, s.as_of
        )
