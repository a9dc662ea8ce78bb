"""Reads and citation resolution of the toy in-memory backend (see :mod:`tests.memstore`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

from citewise.core.records import Chunk, Node, sha256_text
from citewise.core.stored import (
    ClauseMatch,
    DocumentInfo,
    KBInfo,
    NodeWindow,
    ResolvedCitation,
    RevisionInfo,
    StoredChunk,
    VersionInfo,
)
from citewise.errors import (
    CitationNotFound,
    CorruptContent,
    DocumentNotFound,
    UsageError,
    VersionNotFound,
)
from citewise.store import adhash
from tests.memstore.state import Content, Doc, MemTx, State, Version, verify_node


class MemReads(MemTx):
    def close(self) -> None:
        pass

    def get_kb(self, name: str) -> KBInfo:
        with self.read() as s:
            s.require_kb(name)
            head = s.head_rev(name)
            desc, at = s.kbs[name]
        count, rev = (0, 0) if head is None else (head.document_count, head.revision)
        return KBInfo(name, at, desc, count, rev)

    def list_kbs(self) -> list[KBInfo]:
        with self.read() as s:
            names = sorted(s.kbs)
        return [self.get_kb(n) for n in names]

    # -- reads -------------------------------------------------------------------------
    def get_version_content(self, kb: str, path: str, version_id: int) -> tuple[bytes, str]:
        with self.read() as s:
            v = s.version(s.doc(kb, path).doc_id, version_id)
        if v is None or v.raw is None:
            raise VersionNotFound(f"{path!r} has no version {version_id} with content.")
        if hashlib.sha256(v.raw).hexdigest() != v.raw_sha:
            raise CorruptContent(f"Stored bytes of {path!r} version {version_id} are corrupt.")
        return v.raw, v.source

    def _info(self, s: State, doc: Doc, v: Version) -> DocumentInfo:
        c = None if v.content is None else s.contents[v.content]
        return DocumentInfo(
            doc.doc_id,
            doc.kb,
            doc.path,
            v.title,
            v.format,
            v.number,
            v.content_sha,
            0 if v.raw is None else len(v.raw),
            0 if c is None else len(c.nodes),
            0 if c is None else len(c.chunks),
            json.loads(v.metadata),
            v.created_at,
            v.action == "deleted",
        )

    def get_document(self, kb: str, path: str) -> DocumentInfo:
        with self.read() as s:
            doc = s.doc(kb, path)
            v = s.versions[doc.head]
            if v.action == "deleted":
                raise DocumentNotFound(f"{path!r} was deleted from knowledge base {kb!r}.")
            return self._info(s, doc, v)

    def list_documents(
        self, kb: str, *, prefix: str = "", limit: int | None = None, offset: int = 0
    ) -> list[DocumentInfo]:
        if (limit is not None and limit < 0) or offset < 0:
            raise UsageError("limit and offset must be non-negative.")
        with self.read() as s:
            s.require_kb(kb)
            rows = [self._info(s, d, v) for d, v in s.current(kb) if d.path.startswith(prefix)]
        return rows[offset:] if limit is None else rows[offset : offset + limit]

    def list_versions(self, kb: str, path: str) -> list[VersionInfo]:
        with self.read() as s:
            doc = s.doc(kb, path)
            rows = [v for v in s.versions.values() if v.doc_id == doc.doc_id]
        return [
            VersionInfo(
                v.number,
                v.doc_id,
                path,
                v.content_sha,
                0 if v.raw is None else len(v.raw),
                v.action,
                v.rev_added,
                v.created_at,
                v.vid == doc.head,
                v.source,
                v.restored_from,
            )
            for v in sorted(rows, key=lambda v: -v.number)
        ]

    def version_metadata(self, kb: str, path: str) -> dict[int, dict[str, Any]]:
        with self.read() as s:
            doc = s.doc(kb, path)
            rows = [
                v for v in s.versions.values() if v.doc_id == doc.doc_id and v.action != "deleted"
            ]
        return {v.number: json.loads(v.metadata) for v in rows}

    def list_revisions(self, kb: str) -> list[RevisionInfo]:
        with self.read() as s:
            s.require_kb(kb)
            return sorted((r for (k, _), r in s.revisions.items() if k == kb), key=_rev_no)

    def version_access(self, kb: str) -> list[tuple[int, int | None, dict[str, Any]]]:
        with self.read() as s:
            s.require_kb(kb)
            rows = [
                (v.rev_added, v.rev_removed, json.loads(v.metadata))
                for v in s.versions.values()
                if s.docs[v.doc_id].kb == kb and v.action != "deleted"
            ]
        return [
            (
                a,
                r,
                {
                    k: x
                    for k, x in meta.items()
                    if k.strip().lower() == "access" or k in ("withheld", "takedown")
                },
            )
            for a, r, meta in rows
        ]

    def chunk_texts(self, kb: str, keys: Sequence[tuple[str, int, str]]) -> dict[str, str]:
        out: dict[str, str] = {}
        with self.read() as s:
            for doc_id, version_id, chunk_id in keys:
                doc = s.docs.get(doc_id)
                v = None if doc is None or doc.kb != kb else s.version(doc_id, version_id)
                c = None if v is None or v.content is None else s.contents[v.content]
                for k in c.chunks if c is not None else ():
                    if k.id == chunk_id:
                        out[chunk_id] = k.search_text
        return out

    def get_document_text(self, kb: str, doc_id: str, version_id: int) -> str:
        with self.read() as s:
            s.require_kb(kb)
            doc = s.docs.get(doc_id)
            v = None if doc is None or doc.kb != kb else s.version(doc_id, version_id)
            c = None if v is None or v.content is None else s.contents[v.content]
        if c is None:
            raise VersionNotFound(f"Document {doc_id} has no version {version_id} with text.")
        if sha256_text(c.text) != c.sha:
            raise CorruptContent(f"Stored text of {doc_id} version {version_id} is corrupt.")
        return c.text

    def iter_chunks(self, kb: str) -> Iterator[StoredChunk]:
        with self.read() as s:
            s.require_kb(kb)
            rows = [(d, v, s.contents[v.content]) for d, v in s.current(kb) if v.content]
        for d, v, c in rows:
            for k in sorted(c.chunks, key=lambda k: k.ordinal):
                yield StoredChunk(
                    k.id,
                    kb,
                    d.doc_id,
                    d.path,
                    v.number,
                    k.ordinal,
                    k.node_ids,
                    k.heading_path,
                    k.breadcrumb,
                    k.search_text,
                    k.line_start,
                    k.line_end,
                    k.char_start,
                    k.char_end,
                    json.loads(v.metadata),
                )

    def nodes_of_version(self, kb: str, path: str, version_id: int) -> list[Node]:
        with self.read() as s:
            v = s.version(s.doc(kb, path).doc_id, version_id)
            if v is None or v.content is None:
                raise VersionNotFound(f"{path!r} has no version {version_id} with content.")
            nodes = s.contents[v.content].nodes
        return sorted(nodes, key=lambda n: (n.char_start, -n.char_end, n.ordinal))

    def document_bodies(
        self, kb: str, docs: Sequence[DocumentInfo]
    ) -> Iterator[tuple[str, list[Node]]]:
        for d in docs:
            yield (
                self.get_document_text(kb, d.doc_id, d.version_id),
                self.nodes_of_version(kb, d.path, d.version_id),
            )

    def nodes_near(
        self, kb: str, path: str, version_id: int, spans: Sequence[tuple[int, int]]
    ) -> NodeWindow:
        """The toy backend keeps every version small: always the whole node list."""
        return NodeWindow(self.nodes_of_version(kb, path, version_id), True)

    def generation(self, kb: str) -> str:
        with self.read() as s:
            s.require_kb(kb)
            vids = [v.vid for v in s.versions.values() if s.docs[v.doc_id].kb == kb]
            return f"{s.kbs[kb][1]}:{max(vids, default=0)}:{len(vids)}:{s.marks}"

    def find_clauses(self, kb: str, clause_paths: list[str]) -> list[ClauseMatch]:
        if not clause_paths:
            return []
        wanted = set(clause_paths)
        out: list[ClauseMatch] = []
        with self.read() as s:
            s.require_kb(kb)
            for d, v in s.current(kb):
                c = s.contents[v.content or 0]
                for n in sorted(c.nodes, key=lambda n: n.ordinal):
                    if n.clause_path not in wanted:
                        continue
                    for k in sorted(c.chunks, key=lambda k: k.ordinal):
                        if k.char_start < n.char_end and k.char_end > n.char_start:
                            out.append(ClauseMatch(n.clause_path, n.id, n.kind, k.id, d.path))
        return out

    def stats(self, kb: str) -> dict[str, int]:
        with self.read() as s:
            s.require_kb(kb)
            cur = [s.contents[v.content or 0] for _, v in s.current(kb)]
            docs = {d for d, doc in s.docs.items() if doc.kb == kb}
            stored = [c for c in s.contents.values() if c.doc_id in docs]
            return {
                "documents": len(cur),
                "nodes": sum(len(c.nodes) for c in cur),
                "chunks": sum(len(c.chunks) for c in cur),
                "versions": sum(1 for v in s.versions.values() if v.doc_id in docs),
                "stored_nodes": sum(len(c.nodes) for c in stored),
                "stored_chunks": sum(len(c.chunks) for c in stored),
                "revisions": sum(1 for k in s.revisions if k[0] == kb),
            }

    def integrity_check(self) -> list[str]:
        problems: list[str] = []
        with self.read() as s:
            for i, c in s.contents.items():
                if sha256_text(c.text) != c.sha:
                    problems.append(f"content {i}: text hash mismatch")
                for n in c.nodes:
                    try:
                        verify_node(n, c)
                    except CorruptContent as exc:
                        problems.append(str(exc))
            for (kb, number), r in s.revisions.items():
                members = s.members(kb, number)
                if adhash.multiset_hash(members) != r.hash or len(members) != r.document_count:
                    problems.append(f"revision {kb}@{number}: hash/count mismatch")
        return problems

    # -- citations ------------------------------------------------------------------------
    def resolve(self, citation_id: str) -> ResolvedCitation:
        cid = citation_id.strip() if isinstance(citation_id, str) else ""
        span: tuple[int, int] | None = None
        if ":" in cid:
            node_id, start, end = adhash.parse_span_id(cid)
            span = (start, end)
        elif cid.startswith(("n_", "c_")):
            node_id = cid
        else:
            raise UsageError(f"Unrecognised citation id {citation_id!r}.")
        with self.read() as s:
            return _resolve(s, cid, node_id, span)

    # -- raw access for tampering tests (what editing a database file would do) ---------
    def tamper_node_text(self, node_id: str, text: str) -> None:
        with self.write() as s:
            for i, c in s.contents.items():
                nodes = tuple(
                    dataclasses.replace(n, text=text) if n.id == node_id else n for n in c.nodes
                )
                s.contents[i] = dataclasses.replace(c, nodes=nodes)

    def tamper_document_text(self, doc_id: str, text: str) -> None:
        with self.write() as s:
            for i, c in s.contents.items():
                if c.doc_id == doc_id:
                    s.contents[i] = dataclasses.replace(c, text=text)


def _rev_no(r: RevisionInfo) -> int:
    return r.revision


def _resolve(s: State, cid: str, item_id: str, span: tuple[int, int] | None) -> ResolvedCitation:
    chunk = item_id.startswith("c_")
    best: tuple[tuple[bool, int], Content, Node | Chunk, Version, tuple[int, ...]] | None = None
    seen = False
    for c in s.contents.values():
        items: tuple[Node | Chunk, ...] = c.chunks if chunk else c.nodes
        item = next((x for x in items if x.id == item_id), None)
        if item is None:
            continue
        seen = True
        carriers = sorted(
            (
                v
                for v in s.versions.values()
                if v.content is not None and s.contents[v.content] is c
            ),
            key=lambda v: v.vid,
        )
        if not carriers:
            continue
        head = s.head_rev(s.docs[carriers[0].doc_id].kb)
        top = 0 if head is None else head.revision
        revs = {n for v in carriers for n in range(v.rev_added, v.rev_removed or top + 1)}
        current = [v for v in carriers if s.docs[v.doc_id].head == v.vid]
        chosen = current[0] if current else carriers[-1]
        rank = (bool(current), chosen.vid)
        if best is None or rank > best[0]:
            best = (rank, c, item, chosen, tuple(sorted(revs)))
    if best is None:
        kind = "chunk" if chunk else "node"
        raise CitationNotFound(f"No {'version carries' if seen else 'stored'} {kind} {item_id!r}.")
    (current_, _), c, item, v, revs_ = best
    doc = s.docs[v.doc_id]
    if isinstance(item, Chunk):
        members = [n for nid in item.node_ids for n in c.nodes if n.id == nid]
        if len(members) != len(item.node_ids):
            raise CorruptContent(f"Chunk {item_id} names a node that is no longer stored.")
        for m in members:
            verify_node(m, c)
        start, end, lines = item.char_start, item.char_end, (item.line_start, item.line_end)
        extra: dict[str, Any] = {"node_ids": list(item.node_ids), "breadcrumb": item.breadcrumb}
        node_id, node_kind, clause = (item.node_ids[0] if item.node_ids else ""), "chunk", None
    else:
        verify_node(item, c)
        start, end, lines = item.char_start, item.char_end, (item.line_start, item.line_end)
        if span is not None:
            if not item.char_start <= span[0] < span[1] <= item.char_end:
                raise UsageError(f"Span {cid!r} lies outside node {item_id}: {adhash.SPAN_FORMAT}.")
            start, end = span
            lines = adhash.line_range(c.text, start, end)
        extra = {"attrs": item.attrs}
        node_id, node_kind, clause = item.id, item.kind, item.clause_path
    text = c.text[start:end]
    return ResolvedCitation(
        id=cid,
        kind="chunk" if chunk else "node" if span is None else "span",
        kb=doc.kb,
        doc_id=doc.doc_id,
        path=doc.path,
        version_id=v.number,
        revisions=revs_,
        node_id=node_id,
        node_kind=node_kind,
        heading_path=item.heading_path,
        clause_path=clause,
        line_start=lines[0],
        line_end=lines[1],
        char_start=start,
        char_end=end,
        text=text,
        sha256=sha256_text(text),
        current=current_,
        extra={"title": v.title, "format": v.format} | extra,
    )
