"""Lookups of the PostgreSQL backend for recall and access: version access keys, the node
window of :mod:`citewise.store._near` (same limits, same order), clause paths and stats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from citewise.core.stored import ClauseMatch, NodeWindow
from citewise.store import _convert as cv
from citewise.store._near import FULL_VIEW_NODES, NEAR_NODES
from citewise.store.postgres.reads import PgReads, _one

if TYPE_CHECKING:
    Row = dict[str, Any]


class PgLookup(PgReads):
    def version_access(self, kb: str) -> list[tuple[int, int | None, dict[str, Any]]]:
        """``(rev_added, rev_removed, access)`` of every content version: the metadata keys
        named ``access`` in any case (empty when public), picked out by the server."""
        with self._read() as c:
            self._require_kb(c, kb)
            rows = c.execute(
                "SELECT v.rev_added, v.rev_removed, (SELECT coalesce(jsonb_object_agg(j.key, "
                "j.value), '{}'::jsonb) FROM jsonb_each(v.metadata_json::jsonb) j "
                "WHERE lower(trim(j.key)) = 'access' OR j.key IN ('withheld', 'takedown')) "
                "AS access "
                "FROM version v JOIN document d ON d.doc_id = v.doc_id "
                "WHERE d.kb = %s AND v.action != 'deleted'",
                (kb,),
            ).fetchall()
        return [
            (
                int(r["rev_added"]),
                None if r["rev_removed"] is None else int(r["rev_removed"]),
                dict(r["access"]),
            )
            for r in rows
        ]

    def nodes_near(
        self, kb: str, path: str, version_id: int, spans: Sequence[tuple[int, int]]
    ) -> NodeWindow:
        with self._read() as c:
            row = self._content_of(c, kb, path, version_id)
        if int(row["node_count"]) <= FULL_VIEW_NODES or not spans:
            return NodeWindow(self.nodes_of_version(kb, path, version_id), True)
        cid = int(row["content_id"])
        with self._read() as c:
            rows: dict[str, Row] = {}
            for start, _ in sorted(set(spans)):
                for sql in (
                    "SELECT * FROM node WHERE content_id = %s AND char_start < %s "
                    "ORDER BY char_start DESC LIMIT %s",
                    "SELECT * FROM node WHERE content_id = %s AND char_start >= %s "
                    "ORDER BY char_start LIMIT %s",
                ):
                    for r in c.execute(sql, (cid, start, NEAR_NODES)).fetchall():
                        rows[r["node_id"]] = r
            missing = {str(r["parent_id"]) for r in rows.values() if r["parent_id"]} - set(rows)
            while missing:
                found = c.execute(
                    "SELECT * FROM node WHERE content_id = %s AND node_id = ANY(%s)",
                    (cid, sorted(missing)),
                ).fetchall()
                rows.update((r["node_id"], r) for r in found)
                missing = {str(r["parent_id"]) for r in found if r["parent_id"]} - set(rows)
        nodes = sorted(
            (cv.node(r) for r in rows.values()),
            key=lambda n: (n.char_start, -n.char_end, n.ordinal),
        )
        return NodeWindow(nodes, False)

    def find_clauses(self, kb: str, clause_paths: list[str]) -> list[ClauseMatch]:
        if not clause_paths:
            return []
        with self._read() as c:
            self._require_kb(c, kb)
            rows = c.execute(
                "SELECT n.clause_path, n.node_id, n.kind, ch.chunk_id, d.path FROM document d "
                "JOIN version v ON v.vid = d.head_vid "
                "JOIN node n ON n.content_id = v.content_id "
                "JOIN chunk ch ON ch.content_id = n.content_id "
                "AND ch.char_start < n.char_end AND ch.char_end > n.char_start "
                "WHERE d.kb = %s AND v.action != 'deleted' AND n.clause_path = ANY(%s) "
                'ORDER BY d.path COLLATE "C", n.ordinal, ch.ordinal',
                (kb, list(clause_paths)),
            ).fetchall()
        return [
            ClauseMatch(r["clause_path"], r["node_id"], r["kind"], r["chunk_id"], r["path"])
            for r in rows
        ]

    def stats(self, kb: str) -> dict[str, int]:
        with self._read() as c:
            self._require_kb(c, kb)
            row = _one(
                c,
                "SELECT (SELECT count(*) FROM document d JOIN version v ON v.vid = d.head_vid "
                "  JOIN content c ON c.content_id = v.content_id WHERE d.kb = %(kb)s) AS documents,"
                " (SELECT coalesce(sum(c.node_count), 0) FROM document d JOIN version v "
                "  ON v.vid = d.head_vid JOIN content c ON c.content_id = v.content_id "
                "  WHERE d.kb = %(kb)s) AS nodes,"
                " (SELECT coalesce(sum(c.chunk_count), 0) FROM document d JOIN version v "
                "  ON v.vid = d.head_vid JOIN content c ON c.content_id = v.content_id "
                "  WHERE d.kb = %(kb)s) AS chunks,"
                " (SELECT count(*) FROM version v JOIN document d ON d.doc_id = v.doc_id "
                "  WHERE d.kb = %(kb)s) AS versions,"
                " (SELECT coalesce(sum(c.node_count), 0) FROM content c JOIN document d "
                "  ON d.doc_id = c.doc_id WHERE d.kb = %(kb)s) AS stored_nodes,"
                " (SELECT coalesce(sum(c.chunk_count), 0) FROM content c JOIN document d "
                "  ON d.doc_id = c.doc_id WHERE d.kb = %(kb)s) AS stored_chunks,"
                " (SELECT count(*) FROM revision WHERE kb = %(kb)s) AS revisions",
                {"kb": kb},
            )
        assert row is not None
        return {k: int(v) for k, v in row.items()}
