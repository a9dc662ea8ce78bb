"""Citation resolution and integrity checks of the PostgreSQL backend (the same rules as
:mod:`citewise.store._resolve`: every text is sliced from the stored document text and
checked against its recorded hashes first)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citewise.errors import CitationNotFound, CorruptContent, UsageError
from citewise.ingest.locator import describe, locate
from citewise.ingest.models import sha256_text
from citewise.store import _convert as cv
from citewise.store import adhash
from citewise.store._resolve import _verify_node
from citewise.store.models import ResolvedCitation
from citewise.store.postgres.lookup import PgLookup

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]
    Row = dict[str, Any]

_MEMBERS_SQL = (
    "SELECT d.path, v.content_sha256 FROM version v JOIN document d ON d.doc_id = v.doc_id "
    "WHERE d.kb = %s AND v.rev_added <= %s AND (v.rev_removed IS NULL OR v.rev_removed > %s)"
)
_PICK_SQL = {
    "node": "SELECT * FROM node WHERE node_id = %s",
    "chunk": "SELECT * FROM chunk WHERE chunk_id = %s",
}


class PgResolve(PgLookup):
    def integrity_check(self) -> list[str]:
        """Problems found (empty when healthy): every stored node against its hash and
        document text, every revision hash against its membership (foreign keys and page
        checksums are the server's business)."""
        problems: list[str] = []
        with self._read() as c:
            for content in c.execute("SELECT * FROM content ORDER BY content_id").fetchall():
                text = str(content["text"])
                if sha256_text(text) != content["content_sha256"]:
                    problems.append(f"content {content['content_id']}: text hash mismatch")
                nodes = c.execute(
                    "SELECT * FROM node WHERE content_id = %s", (content["content_id"],)
                ).fetchall()
                for node in nodes:
                    try:
                        _verify_node(node, text, str(content["content_sha256"]))
                    except CorruptContent as exc:
                        problems.append(str(exc))
            for rev in c.execute("SELECT * FROM revision ORDER BY kb, revision").fetchall():
                members = c.execute(
                    _MEMBERS_SQL, (rev["kb"], rev["revision"], rev["revision"])
                ).fetchall()
                pairs = [(m["path"], m["content_sha256"]) for m in members]
                if adhash.multiset_hash(pairs) != rev["hash"] or len(members) != int(
                    rev["document_count"]
                ):
                    problems.append(f"revision {rev['kb']}@{rev['revision']}: hash/count mismatch")
        return problems

    # -- citations ----------------------------------------------------------------------
    def resolve(self, citation_id: str) -> ResolvedCitation:
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

    def _pick(self, c: Conn, table: str, value: str) -> tuple[Row, Row, tuple[int, ...], bool]:
        """The stored row for an id, the version that carries it, its revisions, current."""
        rows = c.execute(_PICK_SQL[table], (value,)).fetchall()
        if not rows:
            raise CitationNotFound(
                f"No stored {table} {value!r}.",
                hint="Check the id; ids from every past revision stay resolvable.",
            )
        best: tuple[tuple[bool, int], Row, Row, tuple[int, ...]] | None = None
        for row in rows:
            versions = c.execute(
                "SELECT v.*, d.kb, d.path, d.head_vid, c.text AS doc_text, "
                "c.content_sha256 AS c_sha FROM version v JOIN document d ON d.doc_id = v.doc_id "
                "JOIN content c ON c.content_id = v.content_id WHERE v.content_id = %s "
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
            found = c.execute(
                "SELECT * FROM node WHERE content_id = %s AND node_id = ANY(%s)",
                (chunk["content_id"], list(member_ids)),
            ).fetchall()
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
