"""Reads of a knowledge base as it stood at an earlier revision (pinned retrieval, issue 38),
written once for both backends over portable SQL (:mod:`citewise.store._sql`).

A version belongs to revision ``r`` when ``rev_added <= r < coalesce(rev_removed, ∞)``
(schema.sql); deletion markers have an empty interval, so the same condition that lists a
revision's members lists no deleted document. Rows are sorted by path in Python (the
engines' collations differ: SQLite compares bytes, PostgreSQL needs ``COLLATE "C"``).

Mixed into :class:`~citewise.store.sqlite.SQLiteStore` and
:class:`~citewise.store.postgres.store.PostgresStore`; callers see it as the optional
:class:`~citewise.store.protocol.RevisionReads` and reach it through
:class:`~citewise.store.revision_view.RevisionStore`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from citewise.core.stored import ClauseMatch, DocumentInfo, StoredChunk
from citewise.store import _convert as cv
from citewise.store._sql import marks, run

#: A version of knowledge base ``?`` that is a member of revision ``?`` (given twice).
MEMBER = (
    "d.kb = ? AND v.rev_added <= ? AND (v.rev_removed IS NULL OR v.rev_removed > ?) "
    "AND v.action != 'deleted'"
)
_DOCS_AT = (
    "SELECT d.doc_id, d.kb, d.path, " + cv.HEAD_COLUMNS + ", c.node_count, c.chunk_count "
    "FROM document d JOIN version v ON v.doc_id = d.doc_id "
    "LEFT JOIN content c ON c.content_id = v.content_id WHERE " + MEMBER
)

__all__ = ["MEMBER", "SQLRevisionReads"]


class SQLRevisionReads:
    """Over the backend's ``_read`` and ``_require_kb``."""

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    @staticmethod
    def _require_kb(c: Any, kb: str) -> None:
        raise NotImplementedError

    def documents_at(self, kb: str, revision: int) -> list[DocumentInfo]:
        """The documents of revision ``revision``, each at the version it held then, by path."""
        with self._read() as c:
            self._require_kb(c, kb)
            rows = run(c, _DOCS_AT, (kb, revision, revision)).fetchall()
        return sorted((cv.document_info(r) for r in rows), key=lambda d: d.path)

    def chunks_at(self, kb: str, revision: int) -> Iterator[StoredChunk]:
        """The chunks of revision ``revision``'s documents, by path then chunk ordinal."""
        with self._read() as c:
            self._require_kb(c, kb)
            docs = run(
                c,
                "SELECT d.doc_id, d.path, v.version_no, v.content_id, v.metadata_json "
                "FROM document d JOIN version v ON v.doc_id = d.doc_id WHERE " + MEMBER,
                (kb, revision, revision),
            ).fetchall()
        for doc in sorted(docs, key=lambda r: str(r["path"])):
            with self._read() as c:
                rows = run(
                    c,
                    "SELECT * FROM chunk WHERE content_id = ? ORDER BY ordinal",
                    (doc["content_id"],),
                ).fetchall()
            metadata = cv.loads_dict(doc["metadata_json"])
            for row in rows:
                yield cv.stored_chunk(row, kb, doc, metadata=metadata)

    def clauses_at(self, kb: str, revision: int, clause_paths: list[str]) -> list[ClauseMatch]:
        """Nodes of revision ``revision`` whose clause path is one of ``clause_paths``, each
        with an overlapping chunk (what ``find_clauses`` gives for the head)."""
        if not clause_paths:
            return []
        with self._read() as c:
            self._require_kb(c, kb)
            rows = run(
                c,
                "SELECT n.clause_path, n.node_id, n.kind, ch.chunk_id, d.path, n.ordinal, "
                "ch.ordinal AS chunk_ordinal FROM document d "
                "JOIN version v ON v.doc_id = d.doc_id "
                "JOIN node n ON n.content_id = v.content_id "
                "JOIN chunk ch ON ch.content_id = n.content_id "
                "AND ch.char_start < n.char_end AND ch.char_end > n.char_start "
                f"WHERE {MEMBER} AND n.clause_path IN ({marks(len(clause_paths))})",
                (kb, revision, revision, *clause_paths),
            ).fetchall()
        rows = sorted(rows, key=lambda r: (str(r["path"]), r["ordinal"], r["chunk_ordinal"]))
        return [
            ClauseMatch(r["clause_path"], r["node_id"], r["kind"], r["chunk_id"], r["path"])
            for r in rows
        ]
