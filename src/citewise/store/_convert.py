"""Row <-> record conversion shared by the backends (SQLite rows, PostgreSQL dict rows)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, cast

from citewise.core.records import Chunk, Node, ParsedDocument
from citewise.core.stored import (
    DocumentInfo,
    IngestAction,
    KBInfo,
    RevisionInfo,
    StoredChunk,
    VersionInfo,
)
from citewise.errors import CitationNotFound

#: A row read by name: ``sqlite3.Row`` or a psycopg ``dict_row``.
RowLike = sqlite3.Row | Mapping[str, Any]


def insert_content(
    c: sqlite3.Connection, doc_id: str, content_sha: str, parsed: ParsedDocument
) -> int:
    """The content row of (doc_id, text sha), inserting its text, nodes and chunks once."""
    row = c.execute(
        "SELECT content_id FROM content WHERE doc_id = ? AND content_sha256 = ?",
        (doc_id, content_sha),
    ).fetchone()
    if row is not None:  # same text seen before (e.g. a revert): reuse its nodes
        return int(row[0])
    cur = c.execute(
        "INSERT INTO content(doc_id, content_sha256, text, node_count, chunk_count) "
        "VALUES (?, ?, ?, ?, ?)",
        (doc_id, content_sha, parsed.text, len(parsed.nodes), len(parsed.chunks)),
    )
    content_id = int(cur.lastrowid or 0)
    c.executemany(
        "INSERT OR IGNORE INTO node(content_id, node_id, kind, parent_id, heading_path, "
        "ordinal, line_start, line_end, char_start, char_end, text, search_text, sha256, "
        "clause_path, attrs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(content_id, *node_values(n)) for n in parsed.nodes],
    )
    c.executemany(
        "INSERT OR IGNORE INTO chunk(content_id, chunk_id, ordinal, node_ids, heading_path, "
        "breadcrumb, search_text, line_start, line_end, char_start, char_end, word_count) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(content_id, *chunk_values(k)) for k in parsed.chunks],
    )
    return content_id


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def without_mark(metadata_json: str) -> str:
    """Stored metadata without a takedown or expiry mark (core/rights.py): the same
    bytes ingested again stay withheld (unchanged), they are not published anew."""
    if '"withheld"' not in metadata_json:
        return metadata_json
    meta = loads_dict(metadata_json)
    meta.pop("withheld", None)
    return dumps(meta)


def loads_dict(value: str) -> dict[str, Any]:
    if value == "{}":
        return {}  # most nodes' attrs: a fresh dict, as json.loads gives
    return cast(dict[str, Any], json.loads(value))


def loads_tuple(value: str) -> tuple[str, ...]:
    if len(value) <= _TUPLE_MEMO_CHARS:
        return _memo_tuple(value)  # a tuple is immutable: sharing it is safe
    return tuple(cast(list[str], json.loads(value)))


#: Heading paths recur on every node of a section: short JSON arrays are decoded once.
_TUPLE_MEMO_CHARS = 1000


@lru_cache(maxsize=4096)
def _memo_tuple(value: str) -> tuple[str, ...]:
    return tuple(cast(list[str], json.loads(value)))


def kb_info(row: RowLike) -> KBInfo:
    return KBInfo(
        name=row["name"],
        created_at=row["created_at"],
        description=row["description"],
        document_count=row["document_count"] or 0,
        revision=row["revision"] or 0,
    )


def revision_info(row: RowLike) -> RevisionInfo:
    return RevisionInfo(
        kb=row["kb"],
        revision=row["revision"],
        hash=row["hash"],
        document_count=row["document_count"],
        created_at=row["created_at"],
        sealed=row["sealed_at"] is not None,
    )


def document_info(row: RowLike) -> DocumentInfo:
    """From a row of document d joined with head version v and content c."""
    return DocumentInfo(
        doc_id=row["doc_id"],
        kb=row["kb"],
        path=row["path"],
        title=row["title"],
        format=row["format"],
        version_id=row["version_no"],
        content_sha256=row["content_sha256"],
        size_bytes=row["size_bytes"],
        node_count=row["node_count"] or 0,
        chunk_count=row["chunk_count"] or 0,
        metadata=loads_dict(row["metadata_json"]),
        added_at=row["created_at"],
        deleted=row["action"] == "deleted",
    )


#: The head version's columns a document row carries (``v`` joined to document ``d``): all
#: but ``raw``, so listing documents never loads their stored bytes.
HEAD_COLUMNS = (
    "v.vid, v.version_no, v.action, v.content_id, v.content_sha256, v.raw_sha256, "
    "v.size_bytes, v.format, v.title, v.metadata_json, v.source, v.restored_from, "
    "v.rev_added, v.rev_removed, v.created_at"
)
#: The version columns :func:`version_info` reads: never ``raw`` (a history listing must not
#: load every stored file's bytes).
VERSION_INFO_COLUMNS = (
    "vid, doc_id, version_no, content_sha256, size_bytes, action, rev_added, created_at, "
    "source, restored_from"
)


def version_info(row: RowLike, path: str, head_vid: int | None) -> VersionInfo:
    return VersionInfo(
        version_id=row["version_no"],
        doc_id=row["doc_id"],
        path=path,
        content_sha256=row["content_sha256"],
        size_bytes=row["size_bytes"],
        action=cast(IngestAction, row["action"]),
        revision=row["rev_added"],
        created_at=row["created_at"],
        is_head=row["vid"] == head_vid,
        source=row["source"],
        restored_from=row["restored_from"],
    )


def node_values(n: Node) -> tuple[Any, ...]:
    """The ``node`` columns after ``content_id``, in schema order (read back by :func:`node`)."""
    return (
        n.id,
        n.kind,
        n.parent_id,
        dumps(list(n.heading_path)),
        n.ordinal,
        n.line_start,
        n.line_end,
        n.char_start,
        n.char_end,
        n.text,
        n.search_text,
        n.sha256,
        n.clause_path,
        dumps(n.attrs),
    )


def node(r: RowLike) -> Node:
    """A ``node`` row as written by :func:`node_values`."""
    return Node(
        id=r["node_id"],
        kind=r["kind"],
        parent_id=r["parent_id"],
        heading_path=loads_tuple(r["heading_path"]),
        ordinal=r["ordinal"],
        line_start=r["line_start"],
        line_end=r["line_end"],
        char_start=r["char_start"],
        char_end=r["char_end"],
        text=r["text"],
        search_text=r["search_text"],
        sha256=r["sha256"],
        clause_path=r["clause_path"],
        attrs=loads_dict(r["attrs"]),
    )


def chunk_values(k: Chunk) -> tuple[Any, ...]:
    """The ``chunk`` columns after ``content_id`` (read back by :func:`stored_chunk`)."""
    return (
        k.id,
        k.ordinal,
        dumps(list(k.node_ids)),
        dumps(list(k.heading_path)),
        k.breadcrumb,
        k.search_text,
        k.line_start,
        k.line_end,
        k.char_start,
        k.char_end,
        k.word_count,
    )


def stored_chunk(
    row: RowLike, kb: str, doc: RowLike, *, metadata: dict[str, Any] | None = None
) -> StoredChunk:
    """A chunk row with its document's fields; ``metadata`` (parsed once per document)
    spares parsing ``doc["metadata_json"]`` again for every chunk."""
    return StoredChunk(
        chunk_id=row["chunk_id"],
        kb=kb,
        doc_id=doc["doc_id"],
        path=doc["path"],
        version_id=doc["version_no"],
        ordinal=row["ordinal"],
        node_ids=loads_tuple(row["node_ids"]),
        heading_path=loads_tuple(row["heading_path"]),
        breadcrumb=row["breadcrumb"],
        search_text=row["search_text"],
        line_start=row["line_start"],
        line_end=row["line_end"],
        char_start=row["char_start"],
        char_end=row["char_end"],
        metadata=loads_dict(doc["metadata_json"]) if metadata is None else metadata,
    )


# -- saved answers (the ledger's ``answer`` table; one shape for every backend) -----------
def saved_answer(row: sqlite3.Row | Mapping[str, Any] | None, answer_id: str) -> dict[str, Any]:
    """``{"answer_id", "kb", "revision", "revision_hash", "answer", "answer_sha256",
    "conditions", "ledger_seq", "created_at"}`` of a saved answer row; a missing row is
    :class:`~citewise.errors.CitationNotFound` naming the id."""
    if row is None:
        raise CitationNotFound(
            f"No saved answer {answer_id!r}.",
            hint="Answer ids are the trace ids `citewise ask --json` prints (t_...).",
        )
    return {
        "answer_id": row["answer_id"],
        "kb": row["kb"],
        "revision": int(row["revision"]),
        "revision_hash": row["revision_hash"],
        "answer": json.loads(row["answer_json"]),
        "answer_sha256": _sha256(str(row["answer_json"])),
        "conditions": json.loads(row["conditions"]),
        "ledger_seq": int(row["ledger_seq"]),
        "created_at": row["created_at"],
    }


def answer_binding(row: sqlite3.Row | Mapping[str, Any]) -> tuple[str, int, str]:
    """(answer id, ledger seq, sha256 of the stored answer JSON) of an answer row."""
    return (str(row["answer_id"]), int(row["ledger_seq"]), _sha256(str(row["answer_json"])))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
