"""The storage contract: a :class:`Store` of knowledge bases and its audit :class:`Ledger`.

SQLite is the embedded default; PostgreSQL comes later. A backend implements both
protocols, is opened by :func:`citewise.store.factory.open_store`, and must pass
the suites of :mod:`citewise.testing` (``store_suite``, ``ledger_suite``); nothing outside
``store/``, ``audit/`` and the store migration (``sync/migrate.py``) names a backend class.
Nothing here is backend-specific: no connections or cursors in signatures, so a network
database can implement it.

Backends own their transactions. Each method that writes is atomic, and
``ingest_document`` writes a document version, its nodes, chunks, the revision
bookkeeping and the ledger entries recording the change in one transaction (a file is
ingested whole, with its ``ingest`` entry, or not at all). Callers that need several
ledger appends to commit together use the explicit :meth:`Ledger.transaction`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from citewise.core.ledger_entries import LedgerEntry
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


class LedgerWriter(Protocol):
    """An open ledger transaction (from :meth:`Ledger.transaction`)."""

    def append(
        self,
        type_: str,
        payload: Mapping[str, Any],
        *,
        kb: str | None = None,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
    ) -> LedgerEntry:
        """Append one entry (built by :func:`~citewise.core.ledger_entries.new_entry`) at the next
        ``seq``; it commits with the transaction, or not at all."""


@runtime_checkable
class Ledger(Protocol):
    """The append-only audit ledger: entries numbered ``seq`` 0, 1, ... (the Merkle leaf
    index), signed checkpoints, and saved answers bound to their ``answer`` entry.

    No method rewrites or removes an entry. The store appends ``revision``, ``ingest``,
    ``delete``, ``revert`` and ``kb_delete`` entries itself, in the transaction of the change.
    """

    # -- appending -----------------------------------------------------------
    def transaction(self) -> AbstractContextManager[LedgerWriter]:
        """An explicit transaction: every append inside commits together when the block
        ends, and none does when it raises."""

    def append_event(
        self,
        type_: str,
        payload: Mapping[str, Any],
        *,
        kb: str | None = None,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
    ) -> LedgerEntry:
        """Append one entry in its own transaction."""

    # -- reading -------------------------------------------------------------
    def ledger_size(self) -> int: ...
    def ledger_entry(self, seq: int) -> LedgerEntry:
        """One entry; ``CitationNotFound`` when there is none at ``seq``."""

    def iter_ledger(self, *, batch: int = 5000) -> Iterator[LedgerEntry]:
        """All entries in ``seq`` order (read ``batch`` at a time)."""

    def iter_leaves(self, *, batch: int = 20000) -> Iterator[tuple[int, bytes, str, str, str]]:
        """``(seq, leaf hash recomputed from the stored texts, stored hash hex, type, payload
        text)`` in ``seq`` order (see :func:`~citewise.core.ledger_entries.encode_stored`)."""

    def stored_leaves(self) -> list[bytes]:
        """The stored leaf hashes in ``seq`` order, unchecked (enough to build proofs)."""

    def query_ledger(
        self,
        *,
        types: tuple[str, ...] = (),
        principal: str | None = None,
        since: str | None = None,
        kb: str | None = None,
        limit: int | None = None,
    ) -> list[LedgerEntry]:
        """Entries matching every given filter (``since``: ``ts >= since``), ``seq`` order."""

    def last_event(self, type_: str, kb: str | None = None) -> LedgerEntry | None:
        """The newest entry of ``type_`` whose ``kb`` is exactly ``kb`` (``None`` matches
        entries without a knowledge base)."""

    # -- checkpoints -----------------------------------------------------------
    def save_checkpoint(self, checkpoint: Mapping[str, Any]) -> None: ...
    def list_checkpoints(self) -> list[dict[str, Any]]:
        """Saved checkpoints, oldest first, as saved."""

    # -- saved answers ---------------------------------------------------------
    def save_answer(
        self,
        answer_id: str,
        kb: str,
        answer_json: Mapping[str, Any],
        conditions: Mapping[str, Any],
        event: Mapping[str, Any],
        *,
        principal: str | None = None,
        lineage: Mapping[str, object] | None = None,
        extra_events: tuple[tuple[str, Mapping[str, Any]], ...] = (),
    ) -> LedgerEntry:
        """Save the answer whole with its ``answer`` entry (``event`` plus ``answer_id``,
        ``answer_sha256`` of the canonical answer JSON and ``revision_hash`` of the answer's
        revision), then each extra event with ``answer_id``, in one transaction."""

    def get_answer(self, answer_id: str) -> dict[str, Any]:
        """``answer_id, kb, revision, revision_hash, answer, answer_sha256, conditions,
        ledger_seq, created_at``; ``CitationNotFound`` when unknown."""

    def list_answer_bindings(self) -> list[tuple[str, int, str]]:
        """(answer id, ledger seq, sha256 of the stored answer JSON), by ledger seq."""


@runtime_checkable
class VectorSearch(Protocol):
    """Optional: a store that can rank its own vectors (PostgreSQL with pgvector). Callers
    check :meth:`vector_search_ready` and otherwise rank in-process."""

    def vector_search_ready(self) -> bool: ...

    def search_vectors(
        self, fingerprint: str, query: bytes, k: int, keys: Collection[str]
    ) -> list[tuple[str, float]]:
        """The ``k`` text keys among ``keys`` whose vectors (by ``fingerprint``) have the
        largest inner product with ``query`` (float32 bytes), best first, with it."""


@runtime_checkable
class RevisionReads(Protocol):
    """Optional: a store that can read a knowledge base as it stood at an earlier revision
    (pinned retrieval; :class:`~citewise.store.revision_view.RevisionStore` needs it)."""

    def documents_at(self, kb: str, revision: int) -> list[DocumentInfo]:
        """The documents of ``revision``, each at the version it held then, by path."""

    def chunks_at(self, kb: str, revision: int) -> Iterator[StoredChunk]:
        """The chunks of ``revision``'s documents, by path then chunk ordinal."""

    def clauses_at(self, kb: str, revision: int, clause_paths: list[str]) -> list[ClauseMatch]:
        """``find_clauses`` over ``revision``'s documents."""


@runtime_checkable
class Store(Protocol):
    @property
    def ledger(self) -> Ledger:
        """The audit ledger kept beside the documents (same database, same transactions)."""

    # -- knowledge bases -------------------------------------------------
    def create_kb(self, name: str, description: str = "") -> KBInfo: ...
    def get_kb(self, name: str) -> KBInfo: ...
    def list_kbs(self) -> list[KBInfo]: ...
    def update_kb(self, name: str, description: str) -> KBInfo:
        """Change a base's description (no ledger entry: it changes no document)."""

    def delete_kb(self, name: str, *, force: bool = False) -> None: ...

    # -- ingest and history ----------------------------------------------
    def begin_batch(self, kb: str) -> None:
        """Start an ingest batch: the first change in it opens a new revision."""

    def end_batch(self, kb: str) -> RevisionInfo | None:
        """Seal the batch's revision (``None`` if the batch changed nothing)."""

    def group(self) -> AbstractContextManager[None]:
        """Group commit: the changes made inside commit together when the block ends (one
        durable write instead of one per change). Each stays whole or absent: a change
        that fails is rolled back alone and the others still commit; a crash inside loses
        the group's changes and nothing committed before. A backend may commit each change
        at once instead (the promise holds either way)."""

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

    def version_metadata(self, kb: str, path: str) -> dict[int, dict[str, Any]]:
        """The metadata stored with each content version of ``path`` at ingest, by version
        number (deletions left out): what access checks read, never the stored bytes."""

    def list_revisions(self, kb: str) -> list[RevisionInfo]:
        """Oldest first: ``[-1]`` is the head revision."""

    def version_access(self, kb: str) -> list[tuple[int, int | None, dict[str, Any]]]:
        """``(rev_added, rev_removed, access)`` of every version that has content, where
        ``access`` holds its metadata's keys named ``access`` in any case (empty: none)."""

    def get_document_text(self, kb: str, doc_id: str, version_id: int) -> str: ...
    def iter_chunks(self, kb: str) -> Iterator[StoredChunk]:
        """Chunks of the current revision's documents."""

    def chunk_texts(self, kb: str, keys: Sequence[tuple[str, int, str]]) -> dict[str, str]:
        """``search_text`` of chunks named ``(doc_id, version_id, chunk_id)`` (any stored
        version, current or not), by chunk id; unknown ones are left out."""

    def nodes_of_version(self, kb: str, path: str, version_id: int) -> list[Node]:
        """The node tree of one version, in document order."""

    def document_bodies(
        self, kb: str, docs: Sequence[DocumentInfo]
    ) -> Iterator[tuple[str, list[Node]]]:
        """``(text, nodes in document order)`` of each of ``docs`` (their ``doc_id`` and
        ``version_id``), in the order given: the bulk form of :meth:`get_document_text`
        and :meth:`nodes_of_version`, for building the graph of a whole base."""

    def nodes_near(
        self, kb: str, path: str, version_id: int, spans: Sequence[tuple[int, int]]
    ) -> NodeWindow:
        """The nodes of one version around ``spans`` (whole for small versions): a query's
        cost must not grow with one document's node count (see store/_near.py)."""

    def integrity_check(self) -> list[str]:
        """Problems found (empty when healthy): storage, hashes, revision membership."""

    def content_versions(self, kb: str) -> list[tuple[str, int, str, dict[str, Any]]]:
        """``(path, version, created_at, metadata)`` of every content version not withheld
        yet (store/_withhold.py: the retention sweep's input)."""

    def mark_withheld(self, kb: str, path: str, mark: Mapping[str, Any]) -> list[int]:
        """Withhold every content version of ``path`` (a takedown): the versions marked."""

    def mark_versions(
        self, kb: str, path: str, mark: Mapping[str, Any], versions: list[int]
    ) -> list[int]:
        """Withhold these versions of ``path`` (an expiry): the versions marked."""

    def unmark_withheld(self, kb: str, path: str, kind: str) -> list[int]:
        """Remove the withholding mark of ``kind`` from ``path``'s versions (a lifted
        takedown): the versions unmarked."""

    def generation(self, kb: str) -> str:
        """An opaque token that changes whenever the KB's current document set changes.

        Read before every search, so it must be cheap (one small query, or a counter the
        backend bumps in each change's transaction)."""

    def find_clauses(self, kb: str, clause_paths: list[str]) -> list[ClauseMatch]:
        """Current nodes with one of these clause paths, each with an overlapping chunk."""

    def resolve(self, citation_id: str) -> ResolvedCitation:
        """A node id ``n_…``, a chunk id ``c_…`` or a span id ``<node_id>:<start>-<end>``
        (code-point offsets into the document text, end exclusive, inside the node)."""

    def stats(self, kb: str) -> dict[str, int]: ...

    # -- derived dense vectors (see store/_vectors.py) -------------------------
    def get_vectors(self, fingerprint: str, keys: Sequence[str]) -> dict[str, bytes]:
        """Stored vectors of text ``keys`` made by the encoder ``fingerprint`` (float32
        little-endian bytes); keys with none stored are left out."""

    def put_vectors(self, fingerprint: str, vectors: Mapping[str, bytes]) -> None:
        """Keep vectors by text key (no revision, no ledger entry); a key already stored
        under ``fingerprint`` keeps its first vector."""

    # -- topic notes (derived, see store/_notes.py) ---------------------------------
    def save_notes(self, kb: str, records: Sequence[NoteRecord]) -> None:
        """Add note revisions (all or none); each must be its topic's stored head + 1 in
        its view, else UsageError (no ledger entry: notes are rebuilt from documents)."""

    def note_heads(self, kb: str, view: str) -> list[NoteRecord]:
        """The newest revision of every topic's note in ``view``, by topic id."""

    def note_history(self, kb: str, view: str, topic: str) -> list[NoteRecord]:
        """Every revision of one topic's note in ``view``, oldest first."""

    def close(self) -> None: ...
