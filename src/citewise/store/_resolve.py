"""Citation resolution and integrity checks, written once for both backends
(:class:`SQLResolve`, portable SQL: :mod:`citewise.store._sql`); :class:`SQLiteResolve` adds
SQLite's own integrity and foreign-key checks, and PostgreSQL's ``PgResolve`` mixes it in
as it is.

Every returned text is sliced from the stored document text and checked against
the recorded hashes first; a mismatch raises CorruptContent, never silent text.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from citewise.core.locator import describe, locate
from citewise.core.records import sha256_text
from citewise.core.stored import ResolvedCitation
from citewise.errors import CitationNotFound, CorruptContent, UsageError
from citewise.store import _convert as cv
from citewise.store import adhash
from citewise.store._reads import SQLiteReads
from citewise.store._sql import marks, run

_MEMBERS_SQL = (
    "SELECT d.path, v.content_sha256 FROM version v JOIN document d ON d.doc_id = v.doc_id "
    "WHERE d.kb = ? AND v.rev_added <= ? AND (v.rev_removed IS NULL OR v.rev_removed > ?)"
)
_PICK_SQL = {
    "node": "SELECT * FROM node WHERE node_id = ?",
    "chunk": "SELECT * FROM chunk WHERE chunk_id = ?",
}


class SQLResolve:
    """Citations and integrity over the backend's ``_read`` and ``_head_revision``."""

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    @staticmethod
    def _head_revision(c: Any, kb: str) -> int:
        raise NotImplementedError

    def _engine_problems(self, c: Any) -> list[str]:
        """The database engine's own consistency findings (none by default)."""
        return []

    def integrity_check(self) -> list[str]:
        """Problems found (empty when healthy): the engine's own checks, every stored node
        against its hash and document text, every revision hash against its membership.
        Reads everything; meant for ``verify`` commands and tests."""
        problems: list[str] = []
        with self._read() as c:
            problems += self._engine_problems(c)
            for content in run(c, "SELECT * FROM content ORDER BY content_id").fetchall():
                text = str(content["text"])
                if sha256_text(text) != content["content_sha256"]:
                    problems.append(f"content {content['content_id']}: text hash mismatch")
                nodes = run(
                    c, "SELECT * FROM node WHERE content_id = ?", (content["content_id"],)
                ).fetchall()
                for node in nodes:
                    try:
                        _verify_node(node, text, str(content["content_sha256"]))
                    except CorruptContent as exc:
                        problems.append(str(exc))
            for rev in run(c, "SELECT * FROM revision ORDER BY kb, revision").fetchall():
                members = run(
                    c, _MEMBERS_SQL, (rev["kb"], rev["revision"], rev["revision"])
                ).fetchall()
                pairs = [(m["path"], m["content_sha256"]) for m in members]
                if adhash.multiset_hash(pairs) != rev["hash"] or len(members) != int(
                    rev["document_count"]
                ):
                    problems.append(f"revision {rev['kb']}@{rev['revision']}: hash/count mismatch")
        return problems

    def chunk_texts(self, kb: str, keys: Sequence[tuple[str, int, str]]) -> dict[str, str]:
        """``search_text`` of the chunks ``(doc_id, version_id, chunk_id)`` by chunk id: one
        query per document version (a search asks for a few chunks of a few documents)."""
        wanted: dict[tuple[str, int], list[str]] = {}
        for doc_id, version_id, chunk_id in keys:
            wanted.setdefault((doc_id, version_id), []).append(chunk_id)
        out: dict[str, str] = {}
        with self._read() as c:
            for (doc_id, version_id), ids in wanted.items():
                rows = run(
                    c,
                    "SELECT ch.chunk_id, ch.search_text FROM document d "
                    "JOIN version v ON v.doc_id = d.doc_id "
                    "JOIN chunk ch ON ch.content_id = v.content_id "
                    f"WHERE d.kb = ? AND d.doc_id = ? AND v.version_no = ? "
                    f"AND ch.chunk_id IN ({marks(len(ids))})",
                    (kb, doc_id, version_id, *ids),
                ).fetchall()
                out.update((str(r["chunk_id"]), str(r["search_text"])) for r in rows)
        return out

    # -- citations ----------------------------------------------------------------------
    def resolve(self, citation_id: str) -> ResolvedCitation:
        """A node id (``n_…``), chunk id (``c_…``) or span id (``n_…:start-end``)."""
        cid = citation_id.strip() if isinstance(citation_id, str) else ""
        if ":" in cid:
            node_id, start, end = adhash.parse_span_id(cid)
            return self._resolve_node(node_id, cid, (start, end))
        if cid.startswith("n_"):
            return self._resolve_node(cid, cid, None)
        if cid.startswith("c_"):
            return self._resolve_chunk(cid)
        raise UsageError(
            f"Unrecognised citation id {citation_id!r}.",
            hint=f"Use a node id (n_…), a chunk id (c_…) or a span id {adhash.SPAN_FORMAT}.",
        )

    def get_node(self, node_id: str) -> ResolvedCitation:
        return self._resolve_node(node_id, node_id, None)

    def _pick(self, c: Any, table: str, value: str) -> tuple[Any, Any, tuple[int, ...], bool]:
        """The stored row for an id, the version that carries it, its revisions, current."""
        rows = run(c, _PICK_SQL[table], (value,)).fetchall()
        if not rows:
            raise CitationNotFound(
                f"No stored {table} {value!r}.",
                hint="Check the id; ids from every past revision stay resolvable.",
            )
        best: tuple[tuple[bool, int], Any, Any, tuple[int, ...]] | None = None
        for row in rows:
            versions = run(
                c,
                "SELECT v.*, d.kb, d.path, d.head_vid, c.text AS doc_text, "
                "c.content_sha256 AS c_sha FROM version v JOIN document d ON d.doc_id = v.doc_id "
                "JOIN content c ON c.content_id = v.content_id WHERE v.content_id = ? "
                "ORDER BY v.vid",
                (row["content_id"],),
            ).fetchall()
            if not versions:
                continue
            head_rev = self._head_revision(c, versions[0]["kb"])
            revs: set[int] = set()
            for v in versions:
                stop = head_rev + 1 if v["rev_removed"] is None else v["rev_removed"]
                revs.update(range(v["rev_added"], stop))
            current = [v for v in versions if v["vid"] == v["head_vid"]]
            chosen = current[0] if current else versions[-1]
            rank = (bool(current), int(chosen["vid"]))
            if best is None or rank > best[0]:
                best = (rank, row, chosen, tuple(sorted(revs)))
        if best is None:
            raise CitationNotFound(f"No version carries {table} {value!r}.")
        return best[1], best[2], best[3], best[0][0]

    def _resolve_node(
        self, node_id: str, cid: str, span: tuple[int, int] | None
    ) -> ResolvedCitation:
        with self._read() as c:
            node, ver, revs, current = self._pick(c, "node", node_id)
        doc_text = str(ver["doc_text"])
        _verify_node(node, doc_text, str(ver["c_sha"]))
        if span is None:
            start, end = int(node["char_start"]), int(node["char_end"])
            lines = (int(node["line_start"]), int(node["line_end"]))
        else:
            start, end = span
            if not node["char_start"] <= start < end <= node["char_end"]:
                raise UsageError(
                    f"Span {cid!r} lies outside node {node_id} "
                    f"({node['char_start']}-{node['char_end']}).",
                    hint=f"A span id is {adhash.SPAN_FORMAT} within the node's char range.",
                )
            lines = adhash.line_range(doc_text, start, end)
        text = doc_text[start:end]
        return ResolvedCitation(
            id=cid,
            kind="node" if span is None else "span",
            kb=ver["kb"],
            doc_id=ver["doc_id"],
            path=ver["path"],
            version_id=ver["version_no"],
            revisions=revs,
            node_id=node_id,
            node_kind=node["kind"],
            heading_path=cv.loads_tuple(node["heading_path"]),
            clause_path=node["clause_path"],
            line_start=lines[0],
            line_end=lines[1],
            char_start=start,
            char_end=end,
            text=text,
            sha256=sha256_text(text),
            current=current,
            extra={
                "title": ver["title"],
                "format": ver["format"],
                "attrs": cv.loads_dict(node["attrs"]),
                "locator": (loc := locate([cv.node(node)], start, end)),
                "locator_words": describe(loc),
            },
        )

    def _resolve_chunk(self, chunk_id: str) -> ResolvedCitation:
        with self._read() as c:
            chunk, ver, revs, current = self._pick(c, "chunk", chunk_id)
            member_ids = cv.loads_tuple(chunk["node_ids"])
            found: list[Any] = []
            if member_ids:
                sql = "SELECT * FROM node WHERE content_id = ? AND node_id IN "
                sql += f"({marks(len(member_ids))})"
                found = run(c, sql, (chunk["content_id"], *member_ids)).fetchall()
        by_id = {r["node_id"]: r for r in found}
        doc_text = str(ver["doc_text"])
        for nid in member_ids:
            if nid not in by_id:
                raise CorruptContent(f"Chunk {chunk_id} names a node that is no longer stored.")
            _verify_node(by_id[nid], doc_text, str(ver["c_sha"]))
        start, end = int(chunk["char_start"]), int(chunk["char_end"])
        text = doc_text[start:end]
        return ResolvedCitation(
            id=chunk_id,
            kind="chunk",
            kb=ver["kb"],
            doc_id=ver["doc_id"],
            path=ver["path"],
            version_id=ver["version_no"],
            revisions=revs,
            node_id=member_ids[0] if member_ids else "",
            node_kind="chunk",
            heading_path=cv.loads_tuple(chunk["heading_path"]),
            clause_path=None,
            line_start=int(chunk["line_start"]),
            line_end=int(chunk["line_end"]),
            char_start=start,
            char_end=end,
            text=text,
            sha256=sha256_text(text),
            current=current,
            extra={
                "title": ver["title"],
                "format": ver["format"],
                "node_ids": list(member_ids),
                "breadcrumb": chunk["breadcrumb"],
                "locator": (loc := locate([cv.node(by_id[n]) for n in member_ids], start, end)),
                "locator_words": describe(loc),
            },
        )


class SQLiteResolve(SQLiteReads, SQLResolve):
    def _engine_problems(self, c: Any) -> list[str]:
        """SQLite's integrity check and foreign-key check."""
        problems = [f"sqlite: {r[0]}" for r in c.execute("PRAGMA integrity_check") if r[0] != "ok"]
        return problems + [
            f"foreign key: {tuple(r)}" for r in c.execute("PRAGMA foreign_key_check")
        ]


def _verify_node(node: cv.RowLike, doc_text: str, doc_sha: str) -> None:
    """CorruptContent unless the node and its document text still match their hashes."""
    text = str(node["text"])
    ok = (
        sha256_text(text) == node["sha256"]
        and doc_text[node["char_start"] : node["char_end"]] == text
        and sha256_text(doc_text) == doc_sha
    )
    if not ok:
        raise CorruptContent(
            f"Stored text of node {node['node_id']} no longer matches its recorded sha256.",
            hint="The store was modified outside citewise; restore it from a backup "
            "or re-add the document.",
        )
