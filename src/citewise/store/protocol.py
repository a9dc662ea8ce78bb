"""The narrow storage protocol. SQLite is the embedded default; PostgreSQL comes later.

Every backend must pass ``tests/store_suite.py``. Backends own their
transactions: each method that writes is atomic, and ``ingest_document`` writes
a document version, its nodes, chunks and the revision bookkeeping in one
transaction (a file is ingested whole or not at all).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from citewise.ingest.models import Node, ParsedDocument
from citewise.store.models import (
    ClauseMatch,
    DocumentInfo,
    IngestOutcome,
    KBInfo,
    ResolvedCitation,
    RevisionInfo,
    StoredChunk,
    VersionInfo,
)


@runtime_checkable
class Store(Protocol):
    # -- knowledge bases -------------------------------------------------
    def create_kb(self, name: str, description: str = "") -> KBInfo: ...
    def get_kb(self, name: str) -> KBInfo: ...
    def list_kbs(self) -> list[KBInfo]: ...
    def delete_kb(self, name: str, *, force: bool = False) -> None: ...

    # -- ingest and history ----------------------------------------------
    def begin_batch(self, kb: str) -> None:
        """Start an ingest batch: the first change in it opens a new revision."""

    def end_batch(self, kb: str) -> RevisionInfo | None:
        """Seal the batch's revision (``None`` if the batch changed nothing)."""

    def ingest_document(
        self,
        kb: str,
        path: str,
        raw: bytes,
        parsed: ParsedDocument,
        *,
        source: str = "",
        restored_from: int | None = None,
    ) -> IngestOutcome: ...
    def delete_document(self, kb: str, path: str) -> IngestOutcome: ...
    def get_version_content(self, kb: str, path: str, version_id: int) -> tuple[bytes, str]:
        """Exact original bytes and the source label of one version."""

    # -- reads -------------------------------------------------------------
    def get_document(self, kb: str, path: str) -> DocumentInfo: ...
    def list_documents(
        self, kb: str, *, prefix: str = "", limit: int | None = None, offset: int = 0
    ) -> list[DocumentInfo]: ...
    def list_versions(self, kb: str, path: str) -> list[VersionInfo]:
        """Newest first, deletions included; ``version_id`` counts 1.. per document."""

    def list_revisions(self, kb: str) -> list[RevisionInfo]:
        """Oldest first: ``[-1]`` is the head revision."""

    def version_access(self, kb: str) -> list[tuple[int, int | None, Any]]:
        """``(rev_added, rev_removed, access)`` of every version that has content, where
        ``access`` is its metadata's ``access`` value (None when it has none)."""

    def get_document_text(self, kb: str, doc_id: str, version_id: int) -> str: ...
    def iter_chunks(self, kb: str) -> Iterator[StoredChunk]:
        """Chunks of the current revision's documents."""

    def nodes_of_version(self, kb: str, path: str, version_id: int) -> list[Node]:
        """The node tree of one version, in document order."""

    def integrity_check(self) -> list[str]:
        """Problems found (empty when healthy): storage, hashes, revision membership."""

    def generation(self, kb: str) -> str:
        """An opaque token that changes whenever the KB's current document set changes."""

    def find_clauses(self, kb: str, clause_paths: list[str]) -> list[ClauseMatch]:
        """Current nodes with one of these clause paths, each with an overlapping chunk."""

    def resolve(self, citation_id: str) -> ResolvedCitation:
        """A node id ``n_…``, a chunk id ``c_…`` or a span id ``<node_id>:<start>-<end>``
        (code-point offsets into the document text, end exclusive, inside the node)."""

    def stats(self, kb: str) -> dict[str, int]: ...
    def close(self) -> None: ...
