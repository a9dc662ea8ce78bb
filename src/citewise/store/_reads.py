"""Read side of the SQLite backend: listings, content, chunks and citation resolution."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from citewise.core.records import Node, sha256_text
from citewise.core.stored import (
    DocumentInfo,
    KBInfo,
    RevisionInfo,
    StoredChunk,
    VersionInfo,
)
from citewise.errors import (
    CorruptContent,
    DocumentNotFound,
    KBNotFound,
    UsageError,
    VersionNotFound,
)
from citewise.store import _convert as cv
from citewise.store import checks
from citewise.store._node_cache import NodeCache
from citewise.store._txn import SQLiteTx
from citewise.store._window_cache import WindowCache

_KB_INFO_SQL = (
    "SELECT k.name, k.description, k.created_at, r.revision, r.document_count FROM kb k "
    "LEFT JOIN revision r ON r.kb = k.name AND r.revision = "
    "(SELECT max(revision) FROM revision WHERE kb = k.name)"
)
_DOC_SQL = (
    "SELECT d.doc_id, d.kb, d.path, " + cv.HEAD_COLUMNS + ", c.node_count, c.chunk_count "
    "FROM document d "
    "JOIN version v ON v.vid = d.head_vid LEFT JOIN content c ON c.content_id = v.content_id "
)

#: One version's nodes in document order (by document id and version number).
_VERSION_NODES_SQL = (
    "SELECT n.* FROM version v JOIN node n ON n.content_id = v.content_id "
    "WHERE v.doc_id = ? AND v.version_no = ? "
    "ORDER BY n.char_start, n.char_end DESC, n.ordinal"
)


class SQLiteReads(SQLiteTx):
    #: Decoded node rows shared between reads (set by the store's constructor).
    _node_cache: NodeCache
    #: Windows of long versions by start (set by the store's constructor).
    _window_cache: WindowCache

    # -- shared helpers (used by the write side too) ------------------------------
    @staticmethod
    def _require_kb(c: sqlite3.Connection, kb: str) -> None:
        if c.execute("SELECT 1 FROM kb WHERE name = ?", (kb,)).fetchone() is None:
            checks.check_kb_name(kb)
            raise KBNotFound(
                f"No knowledge base named {kb!r}.",
                hint="List bases with `citewise kb list`, or create it with "
                f"`citewise kb create {kb}`.",
            )

    @staticmethod
    def _head(c: sqlite3.Connection, doc_id: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = c.execute(_DOC_SQL + "WHERE d.doc_id = ?", (doc_id,)).fetchone()
        return row

    @staticmethod
    def _head_revision(c: sqlite3.Connection, kb: str) -> int:
        row = c.execute("SELECT max(revision) FROM revision WHERE kb = ?", (kb,)).fetchone()
        return int(row[0] or 0)

    @staticmethod
    def _current_count(c: sqlite3.Connection, kb: str) -> int:
        row = c.execute(
            "SELECT count(*) FROM document d JOIN version v ON v.vid = d.head_vid "
            "WHERE d.kb = ? AND v.action != 'deleted'",
            (kb,),
        ).fetchone()
        return int(row[0])

    def _doc_row(self, c: sqlite3.Connection, kb: str, path: str) -> sqlite3.Row:
        row: sqlite3.Row | None = c.execute(
            "SELECT * FROM document WHERE kb = ? AND path = ?", (kb, path)
        ).fetchone()
        if row is None:
            # a document row exists only in an existing base (ON DELETE CASCADE), so the
            # base is checked on a miss alone: KBNotFound first, as before
            self._require_kb(c, kb)
            raise DocumentNotFound(
                f"No document {path!r} in knowledge base {kb!r}.",
                hint="List documents to check the path (it is relative to the added folder).",
            )
        return row

    # -- knowledge bases -----------------------------------------------------------
    def get_kb(self, name: str) -> KBInfo:
        with self._read() as c:
            self._require_kb(c, name)
            return cv.kb_info(c.execute(_KB_INFO_SQL + " WHERE k.name = ?", (name,)).fetchone())

    def list_kbs(self) -> list[KBInfo]:
        with self._read() as c:
            return [cv.kb_info(r) for r in c.execute(_KB_INFO_SQL + " ORDER BY k.name")]

    def list_revisions(self, kb: str) -> list[RevisionInfo]:
        """Oldest first (``[-1]`` is the head revision)."""
        with self._read() as c:
            self._require_kb(c, kb)
            rows = c.execute(
                "SELECT * FROM revision WHERE kb = ? ORDER BY revision", (kb,)
            ).fetchall()
        return [cv.revision_info(r) for r in rows]

    def revision_members(self, kb: str, revision: int | None = None) -> list[tuple[str, str, int]]:
        """(path, content sha256, version id) of a revision's documents (default: head)."""
        with self._read() as c:
            self._require_kb(c, kb)
            rev = self._head_revision(c, kb) if revision is None else revision
            rows = c.execute(
                "SELECT d.path, v.content_sha256, v.version_no FROM version v "
                "JOIN document d ON d.doc_id = v.doc_id WHERE d.kb = ? AND v.rev_added <= ? "
                "AND (v.rev_removed IS NULL OR v.rev_removed > ?) ORDER BY d.path",
                (kb, rev, rev),
            ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def version_access(self, kb: str) -> list[tuple[int, int | None, dict[str, Any]]]:
        """``(rev_added, rev_removed, access)`` of every content version (deletion markers
        left out), ``access`` being the access keys of its metadata (``access`` in any case;
        empty when public): enough to number revisions as one principal sees them. Only
        those keys leave SQLite (much faster than parsing every metadata object here)."""
        with self._read() as c:
            self._require_kb(c, kb)
            rows = c.execute(
                "SELECT v.rev_added, v.rev_removed, (SELECT json_group_object(j.key, j.value) "
                "FROM json_each(v.metadata_json) j "
                "WHERE lower(trim(j.key)) = 'access' OR j.key IN ('withheld', 'takedown')) "
                "FROM version v JOIN document d ON d.doc_id = v.doc_id "
                "WHERE d.kb = ? AND v.action != 'deleted'",
                (kb,),
            ).fetchall()
        return [(int(r[0]), None if r[1] is None else int(r[1]), json.loads(r[2])) for r in rows]

    # -- documents and versions ------------------------------------------------------
    def get_document(self, kb: str, path: str) -> DocumentInfo:
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            row = self._head(c, doc["doc_id"])
        if row is None or row["action"] == "deleted":
            raise DocumentNotFound(
                f"{path!r} was deleted from knowledge base {kb!r}.",
                hint="Its versions are still listed in its history and can be restored.",
            )
        return cv.document_info(row)

    def list_documents(
        self, kb: str, *, prefix: str = "", limit: int | None = None, offset: int = 0
    ) -> list[DocumentInfo]:
        if (limit is not None and limit < 0) or offset < 0:
            raise UsageError("limit and offset must be non-negative.")
        with self._read() as c:
            self._require_kb(c, kb)
            rows = c.execute(
                _DOC_SQL + "WHERE d.kb = ? AND v.action != 'deleted' "
                "AND substr(d.path, 1, ?) = ? ORDER BY d.path LIMIT ? OFFSET ?",
                (kb, len(prefix), prefix, -1 if limit is None else limit, offset),
            ).fetchall()
        return [cv.document_info(r) for r in rows]

    def list_versions(self, kb: str, path: str) -> list[VersionInfo]:
        """Newest first; ``is_head`` marks the latest (which may be a deletion)."""
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            rows = c.execute(
                "SELECT " + cv.VERSION_INFO_COLUMNS + " FROM version "
                "WHERE doc_id = ? ORDER BY version_no DESC",
                (doc["doc_id"],),
            ).fetchall()
        return [cv.version_info(r, path, doc["head_vid"]) for r in rows]

    def version_metadata(self, kb: str, path: str) -> dict[int, dict[str, Any]]:
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            rows = c.execute(
                "SELECT version_no, metadata_json FROM version "
                "WHERE doc_id = ? AND action != 'deleted'",
                (doc["doc_id"],),
            ).fetchall()
        return {int(r[0]): cv.loads_dict(r[1]) for r in rows}

    def get_version_content(self, kb: str, path: str, version_id: int) -> tuple[bytes, str]:
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            row = c.execute(
                "SELECT action, raw, raw_sha256, source FROM version "
                "WHERE doc_id = ? AND version_no = ?",
                (doc["doc_id"], version_id),
            ).fetchone()
        if row is None or row["action"] == "deleted":
            raise VersionNotFound(
                f"{path!r} has no version {version_id} with content.",
                hint="List the document's versions to pick one (deletions have no content).",
            )
        raw = bytes(row["raw"])
        if hashlib.sha256(raw).hexdigest() != row["raw_sha256"]:
            raise CorruptContent(
                f"Stored bytes of {path!r} version {version_id} do not match their sha256.",
                hint="Restore the store from a backup, or re-add the file.",
            )
        return raw, str(row["source"])

    def get_document_text(self, kb: str, doc_id: str, version_id: int) -> str:
        with self._read() as c:
            row = c.execute(
                "SELECT c.text, c.content_sha256 FROM version v JOIN document d "
                "ON d.doc_id = v.doc_id JOIN content c ON c.content_id = v.content_id "
                "WHERE d.kb = ? AND v.doc_id = ? AND v.version_no = ?",
                (kb, doc_id, version_id),
            ).fetchone()
            if row is None:
                self._require_kb(c, kb)  # a missing base is named first, as before
        if row is None:
            raise VersionNotFound(f"Document {doc_id} has no version {version_id} with text.")
        if sha256_text(row["text"]) != row["content_sha256"]:
            raise CorruptContent(
                f"Stored text of {doc_id} version {version_id} does not match its sha256.",
                hint="Restore the store from a backup, or re-add the file.",
            )
        return str(row["text"])

    def nodes_of_version(self, kb: str, path: str, version_id: int) -> list[Node]:
        """The nodes of one version, in document order (as the parser produced them)."""
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            rows = c.execute(_VERSION_NODES_SQL, (doc["doc_id"], version_id)).fetchall()
            if (
                not rows
                and not c.execute(
                    "SELECT 1 FROM version WHERE doc_id = ? AND version_no = ? AND content_id "
                    "IS NOT NULL",
                    (doc["doc_id"], version_id),
                ).fetchone()
            ):
                raise VersionNotFound(f"{path!r} has no version {version_id} with content.")
        return [cv.node(r) for r in rows]

    def document_bodies(
        self, kb: str, docs: Sequence[DocumentInfo]
    ) -> Iterator[tuple[str, list[Node]]]:
        """``(text, nodes)`` of each of ``docs``, in order (an embedded file answers the
        per-document reads quickly, so this is the plain loop)."""
        for d in docs:
            yield (
                self.get_document_text(kb, d.doc_id, d.version_id),
                self.nodes_of_version(kb, d.path, d.version_id),
            )

    def iter_chunks(self, kb: str) -> Iterator[StoredChunk]:
        """Chunks of the current documents, by path then chunk ordinal."""
        with self._read() as c:
            self._require_kb(c, kb)
            docs = c.execute(
                "SELECT d.doc_id, d.path, v.version_no, v.content_id, v.metadata_json "
                "FROM document d JOIN version v ON v.vid = d.head_vid "
                "WHERE d.kb = ? AND v.action != 'deleted' ORDER BY d.path",
                (kb,),
            ).fetchall()
        for doc in docs:
            with self._read() as c:
                rows = c.execute(
                    "SELECT * FROM chunk WHERE content_id = ? ORDER BY ordinal",
                    (doc["content_id"],),
                ).fetchall()
            for row in rows:
                yield cv.stored_chunk(row, kb, doc)

    def stats(self, kb: str) -> dict[str, int]:
        """Current documents/nodes/chunks, plus all stored versions, nodes and revisions."""
        with self._read() as c:
            self._require_kb(c, kb)
            cur = c.execute(
                "SELECT count(*), coalesce(sum(c.node_count), 0), "
                "coalesce(sum(c.chunk_count), 0) FROM document d "
                "JOIN version v ON v.vid = d.head_vid "
                "JOIN content c ON c.content_id = v.content_id WHERE d.kb = ?",
                (kb,),
            ).fetchone()
            allv = c.execute(
                "SELECT count(*) FROM version v JOIN document d ON d.doc_id = v.doc_id "
                "WHERE d.kb = ?",
                (kb,),
            ).fetchone()
            stored = c.execute(
                "SELECT coalesce(sum(c.node_count), 0), coalesce(sum(c.chunk_count), 0) "
                "FROM content c JOIN document d ON d.doc_id = c.doc_id WHERE d.kb = ?",
                (kb,),
            ).fetchone()
            revs = c.execute("SELECT count(*) FROM revision WHERE kb = ?", (kb,)).fetchone()
        return {
            "documents": int(cur[0]),
            "nodes": int(cur[1]),
            "chunks": int(cur[2]),
            "versions": int(allv[0]),
            "stored_nodes": int(stored[0]),
            "stored_chunks": int(stored[1]),
            "revisions": int(revs[0]),
        }
