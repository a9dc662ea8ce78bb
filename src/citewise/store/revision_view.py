"""A knowledge base as it stood at an earlier revision: a read-only :class:`Store` view
(pinned retrieval, issue 38).

Everything a search, evidence pack or answer reads of "the current documents" answers here
for revision ``N`` instead of the head: the documents and their versions current at ``N``
(a document deleted after ``N`` is present, one added after ``N`` absent), its chunks and
clause nodes, the revision list up to ``N`` and the version history as it was then (so
revision numbers as a principal sees them are those of ``N``). Reads of one stored version
(text, nodes, chunk texts, citations, vectors) are the same at every revision and pass
through; the ledger passes through, so an answer asked at ``N`` is recorded with the rest.
Every write is refused: history is never changed through a pinned view.

The generation token is fixed per revision (a revision never changes once sealed), so an
index built on the view is built once and never re-synced.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, NoReturn

from citewise.core.records import Node, ParsedDocument
from citewise.core.stored import (
    ClauseMatch,
    DocumentInfo,
    IngestOutcome,
    KBInfo,
    NodeWindow,
    NoteRecord,
    ResolvedCitation,
    RevisionInfo,
    StoredChunk,
    VersionInfo,
)
from citewise.errors import DocumentNotFound, RevisionNotFound, UsageError
from citewise.store.protocol import Ledger, RevisionReads, Store


def check_revision(store: Store, kb: str, revision: int) -> RevisionInfo:
    """Revision ``revision`` of ``kb``; :class:`RevisionNotFound` naming the valid range
    when it has none (below 1, newer than the head, or a base with no revision yet)."""
    revisions = store.list_revisions(kb)  # raises KBNotFound with a hint
    head = revisions[-1].revision if revisions else 0
    if not isinstance(revision, int) or isinstance(revision, bool) or not 1 <= revision <= head:
        valid = f"1 to {head}" if head else "none yet (nothing has been added)"
        raise RevisionNotFound(
            f"Knowledge base {kb!r} has no revision {revision!r}; valid revisions: {valid}.",
            hint="List them with `citewise revisions`, or leave the revision out to use "
            "the current one.",
        )
    return revisions[revision - 1]


def _read_only(what: str) -> NoReturn:
    raise UsageError(
        f"A pinned revision is read-only: cannot {what}.",
        hint="Write through the knowledge base itself, without a revision.",
    )


class RevisionStore:
    """``kb`` of ``store`` as it stood at revision ``revision`` (checked on creation)."""

    def __init__(self, store: Store, kb: str, revision: int) -> None:
        if not isinstance(store, RevisionReads):
            raise UsageError(
                "This store cannot read earlier revisions.",
                hint="Pinned revisions need the SQLite or PostgreSQL backend.",
            )
        self.base, self.kb, self.revision = store, kb, revision
        self.info = check_revision(store, kb, revision)
        self._reads: RevisionReads = store
        self._docs: dict[str, DocumentInfo] | None = None

    def _mine(self, kb: str) -> bool:
        return kb == self.kb

    def _documents(self) -> dict[str, DocumentInfo]:
        if self._docs is None:
            self._docs = {d.path: d for d in self._reads.documents_at(self.kb, self.revision)}
        return self._docs

    @property
    def ledger(self) -> Ledger:
        return self.base.ledger

    # -- knowledge bases ---------------------------------------------------------------
    def get_kb(self, name: str) -> KBInfo:
        info = self.base.get_kb(name)
        if not self._mine(name):
            return info
        return replace(info, revision=self.revision, document_count=self.info.document_count)

    def list_kbs(self) -> list[KBInfo]:
        return [self.get_kb(k.name) for k in self.base.list_kbs()]

    def list_revisions(self, kb: str) -> list[RevisionInfo]:
        revs = self.base.list_revisions(kb)
        return [r for r in revs if r.revision <= self.revision] if self._mine(kb) else revs

    def generation(self, kb: str) -> str:
        if not self._mine(kb):
            return self.base.generation(kb)
        # The base's counter too: a takedown or expiry (store/_withhold.py) changes the
        # metadata of versions of old revisions, so their chunks are read again (cheap:
        # tokens and vectors of known chunk ids are kept).
        return (
            f"{self.info.created_at}@r{self.revision}:{self.info.hash}:{self.base.generation(kb)}"
        )

    # -- documents and history as they were at the revision -----------------------------
    def get_document(self, kb: str, path: str) -> DocumentInfo:
        if not self._mine(kb):
            return self.base.get_document(kb, path)
        doc = self._documents().get(path)
        if doc is None:
            raise DocumentNotFound(
                f"No document {path!r} in knowledge base {kb!r} at revision {self.revision}.",
                hint="List the documents of that revision, or ask without a revision.",
            )
        return doc

    def list_documents(
        self, kb: str, *, prefix: str = "", limit: int | None = None, offset: int = 0
    ) -> list[DocumentInfo]:
        if not self._mine(kb):
            return self.base.list_documents(kb, prefix=prefix, limit=limit, offset=offset)
        if (limit is not None and limit < 0) or offset < 0:
            raise UsageError("limit and offset must be non-negative.")
        docs = [d for p, d in self._documents().items() if p.startswith(prefix)]
        return docs[offset:] if limit is None else docs[offset : offset + limit]

    def list_versions(self, kb: str, path: str) -> list[VersionInfo]:
        versions = self.base.list_versions(kb, path)
        if not self._mine(kb):
            return versions
        then = [v for v in versions if v.revision <= self.revision]
        if not then:
            raise DocumentNotFound(
                f"No document {path!r} in knowledge base {kb!r} at revision {self.revision}."
            )
        return [replace(v, is_head=i == 0) for i, v in enumerate(then)]

    def version_metadata(self, kb: str, path: str) -> dict[int, dict[str, Any]]:
        return self.base.version_metadata(kb, path)

    def content_versions(self, kb: str) -> list[tuple[str, int, str, dict[str, Any]]]:
        return self.base.content_versions(kb)

    def mark_withheld(self, kb: str, path: str, mark: Mapping[str, Any]) -> list[int]:
        return self.base.mark_withheld(kb, path, mark)

    def mark_versions(
        self, kb: str, path: str, mark: Mapping[str, Any], versions: list[int]
    ) -> list[int]:
        return self.base.mark_versions(kb, path, mark, versions)

    def unmark_withheld(self, kb: str, path: str, kind: str) -> list[int]:
        return self.base.unmark_withheld(kb, path, kind)

    def version_access(self, kb: str) -> list[tuple[int, int | None, dict[str, Any]]]:
        rows = self.base.version_access(kb)
        if not self._mine(kb):
            return rows
        n = self.revision
        return [
            (added, removed if removed is not None and removed <= n else None, access)
            for added, removed, access in rows
            if added <= n
        ]

    def iter_chunks(self, kb: str) -> Iterator[StoredChunk]:
        if not self._mine(kb):
            return self.base.iter_chunks(kb)
        return self._reads.chunks_at(kb, self.revision)

    def find_clauses(self, kb: str, clause_paths: list[str]) -> list[ClauseMatch]:
        if not self._mine(kb):
            return self.base.find_clauses(kb, clause_paths)
        return self._reads.clauses_at(kb, self.revision, clause_paths)

    # -- reads of one stored version: the same at every revision ------------------------
    def get_version_content(self, kb: str, path: str, version_id: int) -> tuple[bytes, str]:
        return self.base.get_version_content(kb, path, version_id)

    def get_document_text(self, kb: str, doc_id: str, version_id: int) -> str:
        return self.base.get_document_text(kb, doc_id, version_id)

    def chunk_texts(self, kb: str, keys: Sequence[tuple[str, int, str]]) -> dict[str, str]:
        return self.base.chunk_texts(kb, keys)

    def nodes_of_version(self, kb: str, path: str, version_id: int) -> list[Node]:
        return self.base.nodes_of_version(kb, path, version_id)

    def document_bodies(
        self, kb: str, docs: Sequence[DocumentInfo]
    ) -> Iterator[tuple[str, list[Node]]]:
        return self.base.document_bodies(kb, docs)

    def nodes_near(
        self, kb: str, path: str, version_id: int, spans: Sequence[tuple[int, int]]
    ) -> NodeWindow:
        return self.base.nodes_near(kb, path, version_id, spans)

    def integrity_check(self) -> list[str]:
        return self.base.integrity_check()

    def resolve(self, citation_id: str) -> ResolvedCitation:
        return self.base.resolve(citation_id)

    def stats(self, kb: str) -> dict[str, int]:
        return self.base.stats(kb)

    def get_vectors(self, fingerprint: str, keys: Sequence[str]) -> dict[str, bytes]:
        return self.base.get_vectors(fingerprint, keys)

    def put_vectors(self, fingerprint: str, vectors: Mapping[str, bytes]) -> None:
        self.base.put_vectors(fingerprint, vectors)  # derived data, no revision

    def close(self) -> None:
        """The view owns nothing: the base store stays open."""

    # -- topic notes: compiled from the head's documents, so a pinned view has none -----
    def note_heads(self, kb: str, view: str) -> list[NoteRecord]:
        return []

    def note_history(self, kb: str, view: str, topic: str) -> list[NoteRecord]:
        return []

    # -- writes: refused -----------------------------------------------------------------
    def create_kb(self, name: str, description: str = "") -> KBInfo:
        _read_only("create a knowledge base")

    def update_kb(self, name: str, description: str) -> KBInfo:
        _read_only("change a knowledge base")

    def delete_kb(self, name: str, *, force: bool = False) -> None:
        _read_only("delete a knowledge base")

    def begin_batch(self, kb: str) -> None:
        _read_only("begin a batch")

    def end_batch(self, kb: str) -> RevisionInfo | None:
        _read_only("end a batch")

    def group(self) -> AbstractContextManager[None]:
        _read_only("group changes")

    def ingest_document(
        self,
        kb: str,
        path: str,
        raw: bytes,
        parsed: ParsedDocument,
        *,
        source: str = "",
        restored_from: int | None = None,
    ) -> IngestOutcome:
        _read_only("add a document")

    def delete_document(self, kb: str, path: str) -> IngestOutcome:
        _read_only("delete a document")

    def save_notes(self, kb: str, records: Sequence[NoteRecord]) -> None:
        _read_only("save topic notes")
