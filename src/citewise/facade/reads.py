"""The facade's reads: knowledge bases, documents, versions, citations and their
pages, graph neighbors and model health, each as the caller may see it (a hidden item
reads exactly like a missing one)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from citewise.answer.meaning.check import meaning_status
from citewise.core.access import may_read, may_read_access
from citewise.core.stored import (
    ResolvedCitation,
    VersionInfo,
)
from citewise.errors import (
    CitationNotFound,
    CitewiseError,
    NodeNotFound,
    NotFoundError,
    UsageError,
    Withheld,
)
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.graph.serialize import edge_json, point_json
from citewise.jsonable import to_jsonable
from citewise.recall.rerank import health as rerank_health

if TYPE_CHECKING:
    from citewise.ingest.pdf_render import RenderedPage


def _no_citation(cid: str) -> CitationNotFound:
    return CitationNotFound(f"No citation {cid[:80]!r} in the knowledge bases you can read.")


class Reads(ServiceBase):
    """Reads of KBs, documents, versions, citations, the graph and model health."""

    def kb_info(self, caller: Caller, name: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            info = kb.info()
            docs = self.visible_documents(caller, kb)
            revision = self._view(caller, name).number(info.revision)
        data: dict[str, Any] = to_jsonable(
            replace(info, document_count=len(docs), revision=revision)
        )
        data["stats"] = {
            "documents": len(docs),
            "nodes": sum(d.node_count for d in docs),
            "chunks": sum(d.chunk_count for d in docs),
            "bytes": sum(d.size_bytes for d in docs),
        }
        return data

    def list_kbs(self, caller: Caller) -> list[dict[str, Any]]:
        with self.lock.read():
            names = [k.name for k in self.home.list_kbs() if caller.may_use(k.name)]
        return [self.kb_info(caller, n) for n in names]

    # -- documents ------------------------------------------------------------------
    def documents(
        self,
        caller: Caller,
        name: str,
        *,
        query: str = "",
        prefix: str = "",
        tag: str = "",
        limit: int | None = None,
        offset: int = 0,
    ) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            docs = self.visible_documents(caller, kb)
            if prefix:
                docs = [d for d in docs if d.path.startswith(prefix)]
            if tag:
                docs = [
                    d
                    for d in docs
                    if tag.lower() in {str(t).lower() for t in d.metadata.get("tags") or ()}
                ]
            if query:
                q = query.lower()
                docs = [d for d in docs if q in d.path.lower() or q in d.title.lower()]
            total = len(docs)
            page = docs[offset : None if limit is None else offset + limit]
            page = [self._numbered(caller, kb, d) for d in page]
        return {"total": total, "offset": offset, "documents": to_jsonable(page)}

    def document(
        self, caller: Caller, name: str, path: str, *, nodes: bool = False
    ) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            doc = self._numbered(caller, kb, self._document(caller, kb, path))
            data: dict[str, Any] = to_jsonable(doc)
            if nodes:
                data["nodes"] = to_jsonable(kb.nodes(path))
        return data

    def versions(self, caller: Caller, name: str, path: str) -> list[VersionInfo]:
        with self.lock.read():
            kb = self.kb(caller, name)
            view = self._view(caller, name)
            return [
                replace(v, source="", revision=view.number(v.revision))
                for v in reversed(self._history(caller, kb, path).entries)
            ]

    def resolve(self, caller: Caller, citation_id: str) -> ResolvedCitation:
        """The citation as the caller sees it: its own revision and version numbers."""
        with self.lock.read():
            cited = self._readable_citation(caller, citation_id)
            kb = self.home.kb(cited.kb)
            view = self._view(caller, cited.kb)
            number = self._numbering(caller, kb)(cited.path, cited.version_id)
        seen = tuple(dict.fromkeys(view.number(r) for r in cited.revisions))
        return replace(cited, revisions=seen, version_id=number)

    def _readable_citation(self, caller: Caller, citation_id: str) -> ResolvedCitation:
        """The citation with the store's numbers (for reading its version), or not found
        when the caller may not read it. Call under the read lock."""
        try:
            cited = self.home.resolve(citation_id)
        except NotFoundError:
            raise _no_citation(citation_id) from None
        except Withheld as held:  # said only to a caller whose access lists allow it
            if not self._may_hear_withheld(caller, held):
                raise _no_citation(citation_id) from None
            raise
        if not caller.may_use(cited.kb):
            raise _no_citation(citation_id)
        kb = self.home.kb(cited.kb)
        if not self._readable_version(kb, caller, cited.path, cited.version_id):
            raise _no_citation(citation_id)
        return cited

    def _may_hear_withheld(self, caller: Caller, held: Withheld) -> bool:
        """Whether ``caller`` may be told a citation is withheld (path and reason): only
        when it may use the base and the version's ``access:`` list admits it."""
        if not caller.may_use(held.kb):
            return False
        meta = self.home.store.version_metadata(held.kb, held.path).get(held.version_id, {})
        return may_read_access(meta, caller.principal)

    def citation_page(self, caller: Caller, citation_id: str, part: int = 0) -> RenderedPage:
        """The cited PDF page with the cited boxes highlighted (authorized as
        :meth:`resolve`), within the ``max_render_pixels`` cap; a citation without a page
        locator is a usage error."""
        with self.lock.read():
            cited = self._readable_citation(caller, citation_id)  # the store's version number
        loc = cited.extra.get("locator") or {}
        parts = loc.get("parts") or [loc]
        if cited.extra.get("format") != "pdf" or not 0 <= part < len(parts):
            raise UsageError(
                f"Citation {citation_id!r} has no PDF page (part {part}).",
                hint="Page images exist for PDF citations; use the locator's parts index.",
            )
        with self.lock.read():
            raw, _ = self.home.store.get_version_content(cited.kb, cited.path, cited.version_id)
        from citewise.ingest.pdf_render import render  # pypdfium2 + Pillow on demand

        chosen = parts[part]
        cap = self.home.settings.ingest.limits.max_render_pixels
        boxes = chosen.get("boxes") or []
        return render(raw, cited.path, int(chosen["page"]), boxes, max_pixels=cap)

    # -- graph ----------------------------------------------------------------------
    def graph(self, caller: Caller, name: str, node: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            g = self.home.index(kb.name).graph_for(caller.principal)
            readable = {d.path for d in self.visible_documents(caller, kb)}
        found = [p for p in g.find(node) if p.path in readable]
        if not found:
            raise NodeNotFound(
                f"No graph node matches {node!r}.",
                hint="Pass a document path, path#anchor, a section node id or a heading title.",
            )
        p = found[0]
        edges = [("in", e, g.points[str(e.source)]) for e in g.in_edges(p.key)] + [
            ("out", e, g.points[str(e.target)]) for e in g.out_edges(p.key)
        ]
        edges = [t for t in edges if t[2].path in readable and t[1].span.path in readable]
        edges.sort(key=lambda t: (t[0], -t[1].confidence, t[1].kind, t[2].path, t[2].line_start))
        return {
            "point": point_json(p),
            "in_degree": sum(1 for d, _, _ in edges if d == "in"),
            "out_degree": sum(1 for d, _, _ in edges if d == "out"),
            "edges": [edge_json(e, d, o) for d, e, o in edges],
            "also_matched": [point_json(q) for q in found[1:]],
        }

    # -- health ---------------------------------------------------------------------
    def _visible_vectors(self, caller: Caller, name: str) -> int:
        vectors = self.home.index(name).vectors
        if vectors is None:
            return 0
        return sum(
            1
            for c in self.home.store.iter_chunks(name)
            if c.chunk_id in vectors and may_read(c.metadata, caller.principal)
        )

    def models(self, caller: Caller) -> dict[str, Any]:
        out: list[dict[str, Any]] = []
        with self.lock.read():
            names = [k.name for k in self.home.list_kbs() if caller.may_use(k.name)]
            for n in names:
                index = self.home.index(n)
                last_error = ""
                try:
                    index.sync()
                except CitewiseError as exc:
                    last_error = f"{exc.code}: {exc.message}"
                dense = index.dense
                out.append(
                    {
                        "kb": n,
                        "encoder": self.home.settings.encoder,
                        "dense_enabled": self.home.settings.dense,
                        "status": dense.status,
                        "fingerprint": dense.fingerprint,
                        "model": dense.encoder,
                        "precision": dense.precision,
                        "precision_reason": dense.precision_reason,
                        "vectors": self._visible_vectors(caller, n),
                        "last_error": last_error
                        or (dense.reason if dense.status == "unavailable" else ""),
                        "reason": dense.reason,
                        "reranker": rerank_health(index.reranker),
                        "meaning_check": meaning_status(),
                    }
                )
        return {"models": out}
