"""Knowledge bases, ingest and delete, written once for both backends (portable SQL,
:mod:`citewise.store._sql`). Each change is one write transaction of the backend: the version
rows, content, nodes and chunks, the revision's multiset hash and the ledger entries commit
together or not at all (a file is ingested whole, with its ``ingest`` entry, or not at all).
A backend supplies its transactions and reads, ``_insert_id`` (SQLite's ``lastrowid``,
PostgreSQL's ``RETURNING``), ``_store_content`` and ``_finish_change``."""

from __future__ import annotations

import hashlib
from typing import Any

from citewise.core.records import ParsedDocument, stable_id
from citewise.core.stored import IngestAction, IngestOutcome, KBInfo
from citewise.errors import DocumentNotFound, KBExists, KBInUse, KBIsDefault, VersionNotFound
from citewise.store import _convert as cv
from citewise.store import adhash, checks
from citewise.store._ledger import append_entry
from citewise.store._revisions import SQLRevisions, timestamp
from citewise.store._sql import run

#: The base every store has; it cannot be deleted.
DEFAULT_KB = "default"


class SQLWrites(SQLRevisions):
    """Over the backend's hooks (see the module docstring)."""

    def get_kb(self, name: str) -> KBInfo:
        raise NotImplementedError

    @staticmethod
    def _current_count(c: Any, kb: str) -> int:
        raise NotImplementedError

    @staticmethod
    def _head(c: Any, doc_id: str) -> Any:
        raise NotImplementedError

    @staticmethod
    def _head_revision(c: Any, kb: str) -> int:
        raise NotImplementedError

    @staticmethod
    def _insert_id(c: Any, column: str, sql: str, args: tuple[Any, ...]) -> int:
        """Run an INSERT and return the new row's ``column`` (an identity)."""
        raise NotImplementedError

    def _store_content(self, c: Any, doc_id: str, content_sha: str, parsed: ParsedDocument) -> int:
        raise NotImplementedError

    def _finish_change(self, c: Any, kb: str, rev: int, hash_hex: str, count_delta: int) -> None:
        raise NotImplementedError

    # -- knowledge bases -----------------------------------------------------
    def create_kb(self, name: str, description: str = "") -> KBInfo:
        checks.check_kb_name(name)
        with self._write() as c:
            if run(c, "SELECT 1 FROM kb WHERE name = ?", (name,)).fetchone():
                raise KBExists(
                    f"Knowledge base {name!r} already exists.",
                    hint="Pick another name, or use the existing one.",
                )
            run(
                c,
                "INSERT INTO kb(name, description, created_at) VALUES (?, ?, ?)",
                (name, description, timestamp()),
            )
        return self.get_kb(name)

    def update_kb(self, name: str, description: str) -> KBInfo:
        with self._write() as c:
            self._require_kb(c, name)
            run(c, "UPDATE kb SET description = ? WHERE name = ?", (description, name))
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
            run(c, "DELETE FROM kb WHERE name = ?", (name,))
            self._batches.pop(name, None)
            append_entry(c, "kb_delete", {"kb": name, "documents": held}, kb=name)
        self._forget_contents()

    def _forget_contents(self) -> None:
        """Hook: drop what the backend keeps per content row (row ids may be reused)."""

    # -- ingest and delete -------------------------------------------------------
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
            metadata_json = cv.dumps(parsed.metadata)
            # Same bytes and text but other metadata (a sidecar or upload fields changed) is
            # a new version of the same content: the same nodes, so citations still resolve,
            # and the history says when access, tags or title changed.
            if (
                head is not None
                and live
                and head["content_sha256"] == content_sha
                and head["raw_sha256"] == raw_sha
                and cv.without_mark(head["metadata_json"]) == metadata_json
                and head["title"] == parsed.title
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
                run(
                    c,
                    "INSERT INTO document(doc_id, kb, path, created_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (doc_id) DO NOTHING",
                    (doc_id, kb, path, now),
                )
            content_id = self._store_content(c, doc_id, content_sha, parsed)
            hash_hex = self._revision_hash(c, kb, rev)
            delta = 1
            if head is not None and live:
                run(c, "UPDATE version SET rev_removed = ? WHERE vid = ?", (rev, head["vid"]))
                hash_hex = adhash.remove(hash_hex, path, head["content_sha256"])
                delta = 0
            version_no = 1 if head is None else int(head["version_no"]) + 1
            vid = self._insert_id(
                c,
                "vid",
                "INSERT INTO version(doc_id, version_no, action, content_id, content_sha256, "
                "raw, raw_sha256, size_bytes, format, title, metadata_json, source, "
                "restored_from, rev_added, rev_removed, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
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
                    metadata_json,
                    source,
                    restored_from,
                    rev,
                    now,
                ),
            )
            run(c, "UPDATE document SET head_vid = ? WHERE doc_id = ?", (vid, doc_id))
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
                "metadata_sha256": hashlib.sha256(metadata_json.encode("utf-8")).hexdigest(),
                "size_bytes": len(raw),
                "revision": rev,
                "revision_hash": hash_hex,
                "restored_from": restored_from,
            }
            append_entry(c, "revert" if action == "reverted" else "ingest", event, kb=kb)
        return IngestOutcome(
            action, doc_id, path, version_no, rev, len(parsed.nodes), len(parsed.chunks)
        )

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
            run(c, "UPDATE version SET rev_removed = ? WHERE vid = ?", (rev, head["vid"]))
            vid = self._insert_id(
                c,
                "vid",
                "INSERT INTO version(doc_id, version_no, action, rev_added, rev_removed, "
                "created_at) VALUES (?, ?, 'deleted', ?, ?, ?)",
                (doc_id, number, rev, rev, timestamp()),
            )
            run(c, "UPDATE document SET head_vid = ? WHERE doc_id = ?", (vid, doc_id))
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

    def _require_restorable(self, c: Any, doc_id: str, path: str, version_no: int) -> None:
        row = run(
            c,
            "SELECT action FROM version WHERE doc_id = ? AND version_no = ?",
            (doc_id, version_no),
        ).fetchone()
        if row is None or row["action"] == "deleted":
            raise VersionNotFound(
                f"{path!r} has no version {version_no} with content to restore.",
                hint="List the document's versions to pick one.",
            )
