"""Typed records returned by a :class:`~citewise.store.protocol.Store`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from citewise.core.records import Node

IngestAction = Literal["added", "changed", "unchanged", "reverted", "deleted"]


@dataclass(frozen=True, slots=True)
class KBInfo:
    name: str
    created_at: str
    description: str
    document_count: int
    revision: int


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A document as it stands in the current (or a given) revision."""

    doc_id: str
    kb: str
    path: str
    title: str
    format: str
    version_id: int
    content_sha256: str
    size_bytes: int
    node_count: int
    chunk_count: int
    metadata: dict[str, Any]
    added_at: str
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class VersionInfo:
    version_id: int
    doc_id: str
    path: str
    content_sha256: str
    size_bytes: int
    action: IngestAction
    revision: int
    created_at: str
    is_head: bool
    source: str = ""
    restored_from: int | None = None


@dataclass(frozen=True, slots=True)
class RevisionInfo:
    """An immutable corpus revision of one KB.

    ``hash`` is a multiset hash over (path, content sha256) of its documents, so
    two revisions with the same documents have the same hash.
    """

    kb: str
    revision: int
    hash: str
    document_count: int
    created_at: str
    sealed: bool


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    action: IngestAction
    doc_id: str
    path: str
    version_id: int
    revision: int
    node_count: int
    chunk_count: int


@dataclass(frozen=True, slots=True)
class ResolvedCitation:
    """The exact text behind a node id or span id, with full provenance."""

    id: str
    kind: Literal["node", "span", "chunk"]
    kb: str
    doc_id: str
    path: str
    version_id: int
    revisions: tuple[int, ...]
    node_id: str
    node_kind: str
    heading_path: tuple[str, ...]
    clause_path: str | None
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    text: str
    sha256: str
    current: bool
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk as stored, for indexing."""

    chunk_id: str
    kb: str
    doc_id: str
    path: str
    version_id: int
    ordinal: int
    node_ids: tuple[str, ...]
    heading_path: tuple[str, ...]
    breadcrumb: str
    search_text: str
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ClauseMatch:
    """A current node with a given clause path, and one chunk that overlaps it."""

    clause_path: str
    node_id: str
    node_kind: str
    chunk_id: str
    path: str


@dataclass(frozen=True, slots=True)
class NodeWindow:
    """Nodes of one version near some spans, in document order; ``complete`` when they are
    every node of the version (see ``Store.nodes_near``)."""

    nodes: list[Node]
    complete: bool


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One stored revision of a topic note (notes/): derived data, no ledger entry.

    ``view`` is whose documents the note was compiled from (``""``: the documents everyone
    may read; else the principal's own view); ``body`` is the note's JSON (its lines are
    quotations with citations; an empty ``lines`` list records that the topic is gone)."""

    kb: str
    view: str
    topic: str
    revision: int
    body: dict[str, Any]
