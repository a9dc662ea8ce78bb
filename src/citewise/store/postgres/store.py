"""The PostgreSQL backend of the :class:`~citewise.store.protocol.Store` protocol: the write
side (knowledge bases, batches, revisions, ingest, delete).

``PostgresStore("postgresql://user@host/db")`` opens (and migrates, see :mod:`.schema`) the
database. Every change is one transaction holding the global advisory write lock (see
:mod:`._db`): the version rows, content, nodes, chunks, the revision's multiset hash, the
base's ``generation`` counter and the ledger entries commit together or not at all, and
several servers writing into one database serialise without losing or duplicating a version.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from citewise.errors import (
    DocumentNotFound,
    KBExists,
    KBInUse,
    KBIsDefault,
    VersionNotFound,
)
from citewise.ingest.models import ParsedDocument, stable_id
from citewise.store import _convert as cv
from citewise.store import adhash, checks
from citewise.store._revisions import timestamp
from citewise.store.models import IngestAction, IngestOutcome, KBInfo
from citewise.store.postgres import schema
from citewise.store.postgres._db import connect, redact
from citewise.store.postgres.ledger import PgLedger, append_entry
from citewise.store.postgres.revisions import PgRevisions
from citewise.store.postgres.vectors import PgVectors, enable_pgvector

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]

DEFAULT_KB = "default"


class PostgresStore(PgRevisions, PgVectors):
    """``PostgresStore(url)``; thread-safe (a pool of connections, see :mod:`._db`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = redact(url)
        self._batches: dict[str, int | None] = {}
        self._hnsw_ready: set[str] = set()
        self._db = connect(url)
        self.ledger = PgLedger(self._db)
        try:
            with self._write() as c:
                schema.migrate(c, self.where)
                self._pgvector = enable_pgvector(c)
                c.execute(
                    "INSERT INTO kb(name, description, created_at) VALUES (%s, %s, %s) "
                    "ON CONFLICT (name) DO NOTHING",
                    (DEFAULT_KB, "The default knowledge base.", timestamp()),
                )
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    # -- knowledge bases -----------------------------------------------------
    def create_kb(self, name: str, description: str = "") -> KBInfo:
        checks.check_kb_name(name)
        with self._write() as c:
            if c.execute("SELECT 1 FROM kb WHERE name = %s", (name,)).fetchone():
                raise KBExists(
                    f"Knowledge base {name!r} already exists.",
                    hint="Pick another name, or use the existing one.",
                )
            c.execute(
                "INSERT INTO kb(name, description, created_at) VALUES (%s, %s, %s)",
                (name, description, timestamp()),
            )
        return self.get_kb(name)

    def update_kb(self, name: str, description: str) -> KBInfo:
        with self._write() as c:
            self._require_kb(c, name)
            c.execute("UPDATE kb SET description = %s WHERE name = %s", (description, name))
        return self.get_kb(name)

    def delete_kb(self, name: str, *, force: bool = False) -> None:
        checks.check_kb_name(name)
        if name == DEFAULT_KB:
            raise KBIsDefault(
                "The default knowledge base cannot be deleted.",
                hint="Delete its documents instead, or create and use another base.",
            )
        with self._write() as c:
            self._require_kb(c, name)
            held = self._current_count(c, name)
            if held and not force:
                raise KBInUse(
                    f"Knowledge base {name!r} still holds {held} document(s).",
                    hint="Delete the documents first, or force the deletion (--force) "
                    "to remove the base with all its history.",
                )
            c.execute("DELETE FROM kb WHERE name = %s", (name,))
            self._batches.pop(name, None)
            append_entry(c, "kb_delete", {"kb": name, "documents": held}, kb=name)

    # -- ingest ------------------------------------------------------------------
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
        checks.check_doc_path(path)
        checks.check_parsed(parsed)
        content_sha = parsed.content_sha256
        raw_sha = hashlib.sha256(raw).hexdigest()
        doc_id = stable_id("d", kb, path)
        with self._write() as c:
            self._require_kb(c, kb)
            head = self._head(c, doc_id)
            live = head is not None and head["action"] != "deleted"
            if restored_from is not None:
                self._require_restorable(c, doc_id, path, restored_from)
            if (
                head is not None
                and live
                and head["content_sha256"] == content_sha
                and head["raw_sha256"] == raw_sha
            ):
                return IngestOutcome(
                    "unchanged",
                    doc_id,
                    path,
                    head["version_no"],
                    self._head_revision(c, kb),
                    head["node_count"],
                    head["chunk_count"],
                )
            action: IngestAction = (
                "reverted" if restored_from is not None else "changed" if live else "added"
            )
            rev = self._open_revision(c, kb)
            now = timestamp()
            if head is None:
                c.execute(
                    "INSERT INTO document(doc_id, kb, path, created_at) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (doc_id) DO NOTHING",
                    (doc_id, kb, path, now),
                )
            content_id = self._store_content(c, doc_id, content_sha, parsed)
            hash_hex = self._revision_hash(c, kb, rev)
            delta = 1
            if head is not None and live:
                c.execute("UPDATE version SET rev_removed = %s WHERE vid = %s", (rev, head["vid"]))
                hash_hex = adhash.remove(hash_hex, path, head["content_sha256"])
                delta = 0
            version_no = 1 if head is None else int(head["version_no"]) + 1
            vid = c.execute(
                "INSERT INTO version(doc_id, version_no, action, content_id, content_sha256, "
                "raw, raw_sha256, size_bytes, format, title, metadata_json, source, "
                "restored_from, rev_added, rev_removed, created_at) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, NULL, %s) RETURNING vid",
                (
                    doc_id,
                    version_no,
                    action,
                    content_id,
                    content_sha,
                    raw,
                    raw_sha,
                    len(raw),
                    parsed.format,
                    parsed.title,
                    cv.dumps(parsed.metadata),
                    source,
                    restored_from,
                    rev,
                    now,
                ),
            ).fetchone()
            assert vid is not None
            c.execute("UPDATE document SET head_vid = %s WHERE doc_id = %s", (vid["vid"], doc_id))
            hash_hex = adhash.add(hash_hex, path, content_sha)
            self._finish_change(c, kb, rev, hash_hex, delta)
            event = {
                "kb": kb,
                "path": path,
                "doc_id": doc_id,
                "action": action,
                "version": version_no,
                "content_sha256": content_sha,
                "raw_sha256": raw_sha,
                "size_bytes": len(raw),
                "revision": rev,
                "revision_hash": hash_hex,
                "restored_from": restored_from,
            }
            append_entry(c, "revert" if action == "reverted" else "ingest", event, kb=kb)
        return IngestOutcome(
            action, doc_id, path, version_no, rev, len(parsed.nodes), len(parsed.chunks)
        )

    def _store_content(self, c: Conn, doc_id: str, content_sha: str, parsed: ParsedDocument) -> int:
        """The content row of (doc_id, text sha), inserting its text, nodes and chunks once."""
        row = c.execute(
            "SELECT content_id FROM content WHERE doc_id = %s AND content_sha256 = %s",
            (doc_id, content_sha),
        ).fetchone()
        if row is not None:  # same text seen before (e.g. a revert): reuse its nodes
            return int(row["content_id"])
        new = c.execute(
            "INSERT INTO content(doc_id, content_sha256, text, node_count, chunk_count) "
            "VALUES (%s, %s, %s, %s, %s) RETURNING content_id",
            (doc_id, content_sha, parsed.text, len(parsed.nodes), len(parsed.chunks)),
        ).fetchone()
        assert new is not None
        content_id = int(new["content_id"])
        with c.cursor() as cur:
            cur.executemany(
                "INSERT INTO node(content_id, node_id, kind, parent_id, heading_path, ordinal, "
                "line_start, line_end, char_start, char_end, text, search_text, sha256, "
                "clause_path, attrs) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(content_id, *cv.node_values(n)) for n in parsed.nodes],
            )
            cur.executemany(
                "INSERT INTO chunk(content_id, chunk_id, ordinal, node_ids, heading_path, "
                "breadcrumb, search_text, line_start, line_end, char_start, char_end, "
                "word_count) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(content_id, *cv.chunk_values(k)) for k in parsed.chunks],
            )
        return content_id

    def delete_document(self, kb: str, path: str) -> IngestOutcome:
        doc_id = stable_id("d", kb, path)
        with self._write() as c:
            self._require_kb(c, kb)
            head = self._head(c, doc_id)
            if head is None or head["action"] == "deleted":
                raise DocumentNotFound(
                    f"No current document {path!r} in knowledge base {kb!r}.",
                    hint="List documents to check the path; deleted documents keep their history.",
                )
            rev = self._open_revision(c, kb)
            number = int(head["version_no"]) + 1
            c.execute("UPDATE version SET rev_removed = %s WHERE vid = %s", (rev, head["vid"]))
            vid = c.execute(
                "INSERT INTO version(doc_id, version_no, action, rev_added, rev_removed, "
                "created_at) VALUES (%s, %s, 'deleted', %s, %s, %s) RETURNING vid",
                (doc_id, number, rev, rev, timestamp()),
            ).fetchone()
            assert vid is not None
            c.execute("UPDATE document SET head_vid = %s WHERE doc_id = %s", (vid["vid"], doc_id))
            hash_hex = adhash.remove(self._revision_hash(c, kb, rev), path, head["content_sha256"])
            self._finish_change(c, kb, rev, hash_hex, -1)
            event = {
                "kb": kb,
                "path": path,
                "doc_id": doc_id,
                "version": number,
                "removed_content_sha256": head["content_sha256"],
                "revision": rev,
                "revision_hash": hash_hex,
            }
            append_entry(c, "delete", event, kb=kb)
        return IngestOutcome("deleted", doc_id, path, number, rev, 0, 0)

    def _require_restorable(self, c: Conn, doc_id: str, path: str, version_no: int) -> None:
        row = c.execute(
            "SELECT action FROM version WHERE doc_id = %s AND version_no = %s",
            (doc_id, version_no),
        ).fetchone()
        if row is None or row["action"] == "deleted":
            raise VersionNotFound(
                f"{path!r} has no version {version_no} with content to restore.",
                hint="List the document's versions to pick one.",
            )
