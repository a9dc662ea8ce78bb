"""Read side of the PostgreSQL backend: bases, revisions, documents, versions, content,
nodes and chunks (the recall lookups are in :mod:`.lookup`)."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

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
from citewise.store.postgres._db import PgTx

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]
    Row = dict[str, Any]

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
_NODE_ORDER = "ORDER BY n.char_start, n.char_end DESC, n.ordinal"
_BODY_BATCH = 500
_CURSORS = itertools.count()


def _one(c: Conn, sql: str, args: Sequence[object] | Mapping[str, object] = ()) -> Row | None:
    return c.execute(sql, args).fetchone()


class PgReads(PgTx):
    # -- shared helpers (used by the write side too) ------------------------------
    @staticmethod
    def _require_kb(c: Conn, kb: str) -> None:
        if _one(c, "SELECT 1 FROM kb WHERE name = %s", (kb,)) is None:
            checks.check_kb_name(kb)
            raise KBNotFound(
                f"No knowledge base named {kb!r}.",
                hint="List bases with `citewise kb list`, or create it with "
                f"`citewise kb create {kb}`.",
            )

    @staticmethod
    def _head(c: Conn, doc_id: str) -> Row | None:
        return _one(c, _DOC_SQL + "WHERE d.doc_id = %s", (doc_id,))

    @staticmethod
    def _head_revision(c: Conn, kb: str) -> int:
        row = _one(c, "SELECT coalesce(max(revision), 0) AS r FROM revision WHERE kb = %s", (kb,))
        return 0 if row is None else int(row["r"])

    @staticmethod
    def _current_count(c: Conn, kb: str) -> int:
        row = _one(
            c,
            "SELECT count(*) AS n FROM document d JOIN version v ON v.vid = d.head_vid "
            "WHERE d.kb = %s AND v.action != 'deleted'",
            (kb,),
        )
        return 0 if row is None else int(row["n"])

    def _doc_row(self, c: Conn, kb: str, path: str) -> Row:
        self._require_kb(c, kb)
        row = _one(c, "SELECT * FROM document WHERE kb = %s AND path = %s", (kb, path))
        if row is None:
            raise DocumentNotFound(
                f"No document {path!r} in knowledge base {kb!r}.",
                hint="List documents to check the path (it is relative to the added folder).",
            )
        return row

    # -- knowledge bases -----------------------------------------------------------
    def get_kb(self, name: str) -> KBInfo:
        with self._read() as c:
            self._require_kb(c, name)
            row = _one(c, _KB_INFO_SQL + " WHERE k.name = %s", (name,))
        assert row is not None
        return cv.kb_info(row)

    def list_kbs(self) -> list[KBInfo]:
        with self._read() as c:
            return [cv.kb_info(r) for r in c.execute(_KB_INFO_SQL + " ORDER BY k.name")]

    def list_revisions(self, kb: str) -> list[RevisionInfo]:
        with self._read() as c:
            self._require_kb(c, kb)
            rows = c.execute(
                "SELECT * FROM revision WHERE kb = %s ORDER BY revision", (kb,)
            ).fetchall()
        return [cv.revision_info(r) for r in rows]

    def revision_members(self, kb: str, revision: int | None = None) -> list[tuple[str, str, int]]:
        """(path, content sha256, version id) of a revision's documents (default: head)."""
        with self._read() as c:
            self._require_kb(c, kb)
            rev = self._head_revision(c, kb) if revision is None else revision
            rows = c.execute(
                "SELECT d.path, v.content_sha256, v.version_no FROM version v "
                "JOIN document d ON d.doc_id = v.doc_id WHERE d.kb = %s AND v.rev_added <= %s "
                "AND (v.rev_removed IS NULL OR v.rev_removed > %s) ORDER BY d.path",
                (kb, rev, rev),
            ).fetchall()
        return [(r["path"], r["content_sha256"], r["version_no"]) for r in rows]

    def generation(self, kb: str) -> str:
        """The base's change counter (bumped in each change's transaction) and birth time."""
        with self._read() as c:
            self._require_kb(c, kb)
            row = _one(c, "SELECT created_at, generation FROM kb WHERE name = %s", (kb,))
        assert row is not None
        return f"{row['created_at']}:{row['generation']}"

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
                _DOC_SQL + "WHERE d.kb = %s AND v.action != 'deleted' "
                'AND left(d.path, %s::int) = %s ORDER BY d.path COLLATE "C" LIMIT %s OFFSET %s',
                (kb, len(prefix), prefix, limit, offset),
            ).fetchall()
        return [cv.document_info(r) for r in rows]

    def list_versions(self, kb: str, path: str) -> list[VersionInfo]:
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            rows = c.execute(
                "SELECT " + cv.VERSION_INFO_COLUMNS + " FROM version "
                "WHERE doc_id = %s ORDER BY version_no DESC",
                (doc["doc_id"],),
            ).fetchall()
        return [cv.version_info(r, path, doc["head_vid"]) for r in rows]

    def version_metadata(self, kb: str, path: str) -> dict[int, dict[str, Any]]:
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            rows = c.execute(
                "SELECT version_no, metadata_json FROM version "
                "WHERE doc_id = %s AND action != 'deleted'",
                (doc["doc_id"],),
            ).fetchall()
        return {int(r["version_no"]): cv.loads_dict(r["metadata_json"]) for r in rows}

    def get_version_content(self, kb: str, path: str, version_id: int) -> tuple[bytes, str]:
        with self._read() as c:
            doc = self._doc_row(c, kb, path)
            row = _one(
                c,
                "SELECT action, raw, raw_sha256, source FROM version "
                "WHERE doc_id = %s AND version_no = %s",
                (doc["doc_id"], version_id),
            )
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
            self._require_kb(c, kb)
            row = _one(
                c,
                "SELECT c.text, c.content_sha256 FROM version v JOIN document d "
                "ON d.doc_id = v.doc_id JOIN content c ON c.content_id = v.content_id "
                "WHERE d.kb = %s AND v.doc_id = %s AND v.version_no = %s",
                (kb, doc_id, version_id),
            )
        if row is None:
            raise VersionNotFound(f"Document {doc_id} has no version {version_id} with text.")
        if sha256_text(row["text"]) != row["content_sha256"]:
            raise CorruptContent(
                f"Stored text of {doc_id} version {version_id} does not match its sha256.",
                hint="Restore the store from a backup, or re-add the file.",
            )
        return str(row["text"])

    def _content_of(self, c: Conn, kb: str, path: str, version_id: int) -> Row:
        doc = self._doc_row(c, kb, path)
        row = _one(
            c,
            "SELECT v.content_id, c.node_count FROM version v JOIN content c "
            "ON c.content_id = v.content_id WHERE v.doc_id = %s AND v.version_no = %s",
            (doc["doc_id"], version_id),
        )
        if row is None:
            raise VersionNotFound(f"{path!r} has no version {version_id} with content.")
        return row

    def nodes_of_version(self, kb: str, path: str, version_id: int) -> list[Node]:
        with self._read() as c:
            cid = self._content_of(c, kb, path, version_id)["content_id"]
            rows = c.execute(
                f"SELECT * FROM node n WHERE n.content_id = %s {_NODE_ORDER}", (cid,)
            ).fetchall()
        return [cv.node(r) for r in rows]

    def iter_chunks(self, kb: str) -> Iterator[StoredChunk]:
        """Chunks of the current documents, by path then chunk ordinal: one query whose
        rows stream through a server-side cursor (one snapshot, no query per document, and
        never the whole result in client memory). A document's chunks share one metadata
        dict."""
        with self._stream() as c:
            self._require_kb(c, kb)
            with c.cursor(name=f"chunks_{next(_CURSORS)}") as cur:
                cur.itersize = 2000
                cur.execute(
                    "SELECT ch.*, d.doc_id, d.path, v.version_no, v.metadata_json "
                    "FROM document d JOIN version v ON v.vid = d.head_vid "
                    "JOIN chunk ch ON ch.content_id = v.content_id "
                    "WHERE d.kb = %s AND v.action != 'deleted' "
                    'ORDER BY d.path COLLATE "C", ch.ordinal',
                    (kb,),
                )
                doc: Row = {}
                for row in cur:
                    if row["doc_id"] != doc.get("doc_id"):
                        doc = dict(row, metadata_json=cv.loads_dict(row["metadata_json"]))
                    yield cv.stored_chunk(row, kb, doc, metadata=doc["metadata_json"])

    def document_bodies(
        self, kb: str, docs: Sequence[DocumentInfo]
    ) -> Iterator[tuple[str, list[Node]]]:
        """``(text, nodes)`` of each ``(doc_id, version_id)`` in ``docs``, in order: two
        queries per 500 documents instead of two per document."""
        for start in range(0, len(docs), _BODY_BATCH):
            part = docs[start : start + _BODY_BATCH]
            with self._read() as c:
                self._require_kb(c, kb)
                texts = {
                    (r["doc_id"], r["version_no"]): r
                    for r in c.execute(
                        "SELECT v.doc_id, v.version_no, v.content_id, c.text, c.content_sha256 "
                        "FROM version v JOIN document d ON d.doc_id = v.doc_id "
                        "JOIN content c ON c.content_id = v.content_id "
                        "WHERE d.kb = %s AND (v.doc_id, v.version_no) IN "
                        "(SELECT * FROM unnest(%s::text[], %s::int[]))",
                        (kb, [d.doc_id for d in part], [d.version_id for d in part]),
                    )
                }
                nodes: dict[int, list[Node]] = {}
                for r in c.execute(
                    "SELECT * FROM node n WHERE n.content_id = ANY(%s) "
                    "ORDER BY n.content_id, n.char_start, n.char_end DESC, n.ordinal",
                    ([t["content_id"] for t in texts.values()],),
                ):
                    nodes.setdefault(r["content_id"], []).append(cv.node(r))
            for d in part:
                row = texts.get((d.doc_id, d.version_id))
                if row is None:
                    raise VersionNotFound(
                        f"Document {d.doc_id} has no version {d.version_id} with text."
                    )
                if sha256_text(row["text"]) != row["content_sha256"]:
                    raise CorruptContent(
                        f"Stored text of {d.doc_id} version {d.version_id} does not match "
                        "its sha256.",
                        hint="Restore the store from a backup, or re-add the file.",
                    )
                yield str(row["text"]), nodes.get(row["content_id"], [])
