"""Typed contracts of the ingest stage: what a parsed document looks like.

A document is a tree of :class:`Node` objects whose character ranges slice the
decoded original text exactly (``text[char_start:char_end] == node.text``).
Retrieval :class:`Chunk` objects are a separate projection over leaf nodes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

NodeKind = Literal[
    "document",
    "section",
    "paragraph",
    "list_item",
    "table",
    "table_row",
    "code",
    "mermaid",
    "blockquote",
    "page_furniture",  # a running header/footer (PDF): stored and citable, never chunked
]

#: Leaf kinds that carry searchable content and can become chunk members.
BLOCK_KINDS: frozenset[str] = frozenset(
    {"paragraph", "list_item", "table", "code", "mermaid", "blockquote"}
)

#: A format name registered in ``ingest/formats.py`` (built in: markdown, text, html, xml).
DocFormat = str


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stable_id(prefix: str, *parts: str) -> str:
    """A short, deterministic id: ``prefix`` + 24 hex chars of sha256 over ``parts``."""
    h = hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()
    return f"{prefix}_{h[:24]}"


@dataclass(frozen=True, slots=True)
class Node:
    """One structural unit of a document version.

    Ranges: ``line_start``/``line_end`` are 1-based and inclusive;
    ``char_start``/``char_end`` are code-point offsets into the decoded text,
    end exclusive. ``text`` is exactly ``doc_text[char_start:char_end]``.
    """

    id: str
    kind: NodeKind
    parent_id: str | None
    heading_path: tuple[str, ...]
    ordinal: int
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    text: str
    search_text: str
    sha256: str
    clause_path: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrieval unit: complete adjacent block nodes inside one section.

    ``breadcrumb`` (title + heading path) is searchable but never quoted.
    ``char_start``/``char_end`` span from the first to the last member node.
    """

    id: str
    ordinal: int
    node_ids: tuple[str, ...]
    heading_path: tuple[str, ...]
    breadcrumb: str
    search_text: str
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    word_count: int


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """The parser's output for one decoded file."""

    format: DocFormat
    text: str
    title: str
    metadata: dict[str, Any]
    nodes: tuple[Node, ...]
    chunks: tuple[Chunk, ...]

    @property
    def content_sha256(self) -> str:
        return sha256_text(self.text)


FileStatus = Literal["added", "changed", "unchanged", "reverted", "skipped", "failed"]


@dataclass(frozen=True, slots=True)
class FileResult:
    """What happened to one file of an ``add`` batch."""

    path: str
    status: FileStatus
    nodes: int = 0
    chunks: int = 0
    code: str = ""
    message: str = ""


@dataclass(frozen=True, slots=True)
class AddReport:
    """The outcome of one ``add`` batch; ``failed`` files did not stop the others."""

    kb: str
    files: tuple[FileResult, ...]
    revision: int | None
    revision_hash: str | None
    #: Documents that came from an added folder and are no longer in it (``sync`` removes).
    missing: tuple[str, ...] = ()

    def count(self, status: FileStatus) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def ok(self) -> bool:
        return self.count("failed") == 0
