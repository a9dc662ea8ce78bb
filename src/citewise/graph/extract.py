"""Per-document extraction: knowledge points and the edges their authors already wrote.

Structural sources only (no model): heading containment, Markdown links and ``[[wiki
links]]``, Mermaid flowchart edges, and typed ``relations:`` in front matter. Each edge keeps
the exact span it was read from. Edges to other documents are left as :class:`Ref`
endpoints for :mod:`citewise.graph.build` to resolve against the current document set, so a
document's extract depends only on its own content and can be cached by content hash.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable
from urllib.parse import unquote

from citewise.core.records import Node, ParsedDocument, stable_id
from citewise.graph.mermaid import parse_flowchart
from citewise.graph.models import (
    CONFIDENCE,
    DocExtract,
    DocInput,
    Edge,
    Endpoint,
    Point,
    Ref,
    RelationKind,
    SourceSpan,
)
from citewise.graph.text import (
    is_bibliographic,
    label_kind,
    norm_title,
    relation_type_kind,
    slugify,
    subject_title,
)


@runtime_checkable
class EdgeExtractor(Protocol):
    """Adds edges for one document (e.g. a rule set or an LLM reading the text).

    Endpoints are point keys of this document (its document node id, section node ids) or
    :class:`Ref` values for other documents. Every edge must carry a real source span.
    """

    name: str

    def extract(self, doc: DocInput) -> list[Edge]: ...


class Lines:
    """Offset -> 1-based line number for one text."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


def doc_input_from_parsed(
    parsed: ParsedDocument, path: str, *, doc_id: str = "", version_id: int = 1
) -> DocInput:
    """A :class:`DocInput` straight from the parser (tests, dry runs)."""
    return DocInput(
        doc_id=doc_id or stable_id("d", path),
        path=path,
        version_id=version_id,
        content_sha256=parsed.content_sha256,
        title=parsed.title,
        format=parsed.format,
        metadata=parsed.metadata,
        text=parsed.text,
        nodes=parsed.nodes,
    )


_LINK = re.compile(
    r"(?<![!\\])\[(?P<text>(?:[^\[\]\n]|\[[^\]\n]*\])*)\]"
    r"\(\s*(?P<url><[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
_WIKI = re.compile(r"\[\[(?P<target>[^\]\|#\n]*)(?:#(?P<anchor>[^\]\|\n]*))?(?:\|[^\]\n]*)?\]\]")
_HREF = re.compile(r"<a\s[^>]*?href\s*=\s*[\"'](?P<url>[^\"']+)[\"']", re.IGNORECASE)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_SCHEME = re.compile(r"^(?:[a-z][a-z0-9+.\-]*:|//)", re.IGNORECASE)
_EXPLICIT_ID = re.compile(r"\{#([\w\-.:]+)\}\s*$")
_TEXT_KINDS = frozenset({"paragraph", "list_item", "table", "table_row", "blockquote"})


def resolve_path(base_path: str, target: str) -> str:
    """A link target relative to the linking document, as a KB path (``""`` if outside)."""
    if target.startswith("/"):
        joined = target.lstrip("/")
    else:
        joined = posixpath.join(posixpath.dirname(base_path), target)
    norm = posixpath.normpath(joined)
    return "" if norm.startswith("..") or norm == "." else norm


def split_url(url: str) -> tuple[str, str] | None:
    """``(path, anchor)`` of a local link; ``None`` for external links."""
    url = url.strip().strip("<>")
    if not url or _SCHEME.match(url):
        return None
    path, _, anchor = url.partition("#")
    path = unquote(path.split("?", 1)[0])
    return path, unquote(anchor)


class _Builder:
    def __init__(self, doc: DocInput) -> None:
        self.doc = doc
        self.lines = Lines(doc.text)
        self.points: dict[str, Point] = {}
        self.edges: list[Edge] = []
        self.node_point: dict[str, str] = {}
        self.anchors: dict[str, str] = {}
        self.children: dict[str, list[Node]] = {}
        for n in doc.nodes:
            if n.parent_id is not None:
                self.children.setdefault(n.parent_id, []).append(n)
        root = next((n for n in doc.nodes if n.kind == "document"), None)
        self.root = root
        self.doc_key = root.id if root else stable_id("n", doc.doc_id, doc.content_sha256, "doc")

    def span(self, node_id: str, start: int, end: int) -> SourceSpan:
        d = self.doc
        return SourceSpan(
            path=d.path,
            doc_id=d.doc_id,
            version_id=d.version_id,
            node_id=node_id,
            char_start=start,
            char_end=end,
            line_start=self.lines.line(start),
            line_end=self.lines.line(max(start, end - 1)),
            text=d.text[start:end],
        )

    # -- points and containment -------------------------------------------------------
    def points_and_containment(self) -> None:
        d = self.doc
        root = self.root
        self.points[self.doc_key] = Point(
            key=self.doc_key,
            kind="document",
            title=d.title,
            norm_title=norm_title(d.title),
            doc_id=d.doc_id,
            path=d.path,
            version_id=d.version_id,
            node_id=self.doc_key,
            line_start=root.line_start if root else 1,
            line_end=root.line_end if root else 1,
            char_start=root.char_start if root else 0,
            char_end=root.char_end if root else len(d.text),
        )
        seen_slugs: dict[str, int] = {}
        owner: dict[str, str] = {}
        for n in d.nodes:  # document order: parents come first
            parent = owner.get(n.parent_id or "", self.doc_key)
            if n.kind == "document":
                owner[n.id] = self.doc_key
                self.node_point[n.id] = self.doc_key
                continue
            if n.kind != "section":
                owner[n.id] = parent
                self.node_point[n.id] = parent
                continue
            owner[n.id] = n.id
            self.node_point[n.id] = n.id
            first_line = n.text.split("\n", 1)[0].rstrip("\r")
            title = n.heading_path[-1] if n.heading_path else n.search_text
            slug = slugify(title)
            count = seen_slugs.get(slug, 0)
            seen_slugs[slug] = count + 1
            unique = slug if count == 0 else f"{slug}-{count}"
            self.anchors.setdefault(unique, n.id)
            explicit = _EXPLICIT_ID.search(first_line)
            if explicit:
                self.anchors.setdefault(explicit.group(1).lower(), n.id)
            self.points[n.id] = Point(
                key=n.id,
                kind="section",
                title=title,
                norm_title=norm_title(title),
                doc_id=d.doc_id,
                path=d.path,
                version_id=d.version_id,
                node_id=n.id,
                heading_path=n.heading_path,
                slug=unique,
                line_start=n.line_start,
                line_end=n.line_end,
                char_start=n.char_start,
                char_end=n.char_end,
                bibliographic=is_bibliographic(title),
            )
            head_end = n.char_start + len(first_line)
            self.edges.append(
                Edge(
                    source=n.id,
                    target=parent,
                    kind="part_of",
                    confidence=CONFIDENCE["containment"],
                    origin="containment",
                    span=self.span(n.id, n.char_start, head_end),
                )
            )

    # -- links ----------------------------------------------------------------------------
    def _own_ranges(self, n: Node) -> list[tuple[int, int]]:
        """Offsets (relative to ``n.text``) not covered by child nodes or code spans."""
        blocked = sorted(
            (c.char_start - n.char_start, c.char_end - n.char_start)
            for c in self.children.get(n.id, ())
        )
        blocked += [m.span() for m in _CODE_SPAN.finditer(n.text)]
        return sorted(blocked)

    def links(self) -> None:
        d = self.doc
        markdown = d.format == "markdown"
        for n in d.nodes:
            if n.kind not in _TEXT_KINDS:
                continue
            blocked = self._own_ranges(n)

            def free(a: int, b: int, blocked: list[tuple[int, int]] = blocked) -> bool:
                return not any(s < b and a < e for s, e in blocked)

            source = self.node_point.get(n.id, self.doc_key)
            if markdown:
                for m in _LINK.finditer(n.text):
                    if free(*m.span()):
                        self._link(n, source, m.start(), m.end(), m.group("url"))
            elif d.format == "html":
                for m in _HREF.finditer(n.text):
                    if free(*m.span()):
                        self._link(n, source, m.start(), m.end(), m.group("url"))
            if d.format in ("markdown", "text"):
                for m in _WIKI.finditer(n.text):
                    if not free(*m.span()):
                        continue
                    name = m.group("target").strip()
                    anchor = (m.group("anchor") or "").strip()
                    target: Ref = (
                        Ref(path=d.path, anchor=anchor)
                        if not name
                        else Ref(name=name, anchor=anchor)
                    )
                    self.edges.append(
                        Edge(
                            source=source,
                            target=target,
                            kind="references",
                            confidence=CONFIDENCE["wikilink"],
                            origin="wikilink",
                            span=self.span(n.id, n.char_start + m.start(), n.char_start + m.end()),
                            label=name or anchor,
                        )
                    )

    def _link(self, n: Node, source: str, start: int, end: int, url: str) -> None:
        parts = split_url(url)
        if parts is None:
            return
        path, anchor = parts
        target_path = self.doc.path if not path else resolve_path(self.doc.path, path)
        if not target_path:
            return
        self.edges.append(
            Edge(
                source=source,
                target=Ref(path=target_path, anchor=anchor),
                kind="references",
                confidence=CONFIDENCE["link"],
                origin="link",
                span=self.span(n.id, n.char_start + start, n.char_start + end),
                label=url.strip("<>"),
            )
        )

    # -- front matter ---------------------------------------------------------------------
    def front_matter(self) -> None:
        rels = _relations(self.doc.metadata)
        if not rels:
            return
        spans = _front_matter_spans(self.doc.text, len(rels))
        for (rel_type, target, raw), (a, b) in zip(rels, spans, strict=True):
            kind, rev = relation_type_kind(rel_type)
            path, _, anchor = target.partition("#")
            ref = Ref(path=resolve_path(self.doc.path, unquote(path)), anchor=anchor, name=path)
            src: Endpoint = self.doc_key
            dst: Endpoint = ref
            if rev:
                src, dst = dst, src
            self.edges.append(
                Edge(
                    source=src,
                    target=dst,
                    kind=kind,
                    confidence=_confidence(raw, CONFIDENCE["front_matter"]),
                    origin="front_matter",
                    span=self.span(self.doc_key, a, b),
                    label=rel_type,
                )
            )

    # -- mermaid --------------------------------------------------------------------------
    def mermaid(self) -> None:
        local: dict[str, list[str]] = {}
        for p in self.points.values():
            if p.kind == "section":
                for t in {p.norm_title, subject_title(p.title)}:
                    local.setdefault(t, []).append(p.key)
        for n in self.doc.nodes:
            if n.kind != "mermaid" and not (
                n.kind == "code" and str(n.attrs.get("language") or "").lower() == "mermaid"
            ):
                continue
            body_start = n.text.find("\n") + 1
            last = n.text.rstrip().rfind("\n")
            body_end = (
                last
                if last >= body_start
                and n.text[last + 1 :].lstrip()[:3]
                in (
                    "```",
                    "~~~",
                )
                else len(n.text)
            )
            chart = parse_flowchart(n.text[body_start:body_end])
            if chart is None:
                continue
            base = n.char_start + body_start
            section = self.node_point.get(n.id, self.doc_key)
            keys: dict[str, Endpoint] = {}
            for mid, mnode in chart.nodes.items():
                norm = norm_title(mnode.label)
                match = local.get(norm) or local.get(subject_title(mnode.label))
                if match:
                    keys[mid] = match[0]
                    continue
                ckey = stable_id("k", self.doc.doc_id, self.doc.content_sha256, norm)
                keys[mid] = Ref(title=mnode.label, fallback=ckey)
                if ckey not in self.points:
                    a, b = base + mnode.start, base + mnode.end
                    self.points[ckey] = Point(
                        key=ckey,
                        kind="concept",
                        title=mnode.label,
                        norm_title=norm,
                        doc_id=self.doc.doc_id,
                        path=self.doc.path,
                        version_id=self.doc.version_id,
                        node_id=n.id,
                        heading_path=n.heading_path,
                        line_start=self.lines.line(a),
                        line_end=self.lines.line(max(a, b - 1)),
                        char_start=a,
                        char_end=b,
                    )
                    self.edges.append(
                        Edge(
                            source=ckey,
                            target=section,
                            kind="part_of",
                            confidence=CONFIDENCE["containment"],
                            origin="containment",
                            span=self.span(n.id, a, b),
                            label="drawn in",
                        )
                    )
            for e in chart.edges:
                kind: RelationKind
                if e.label:
                    got = label_kind(e.label)
                    if got is None:
                        kind, rev, conf = "other", False, CONFIDENCE["mermaid_unmapped_label"]
                    else:
                        (kind, rev), conf = got, CONFIDENCE["mermaid_labelled"]
                else:
                    kind = "precedes" if e.directed else "other"
                    rev, conf = False, CONFIDENCE["mermaid_unlabelled"]
                src, dst = keys[e.source], keys[e.target]
                if rev:
                    src, dst = dst, src
                self.edges.append(
                    Edge(
                        source=src,
                        target=dst,
                        kind=kind,
                        confidence=conf,
                        origin="mermaid",
                        span=self.span(n.id, base + e.start, base + e.end),
                        label=e.label,
                        directed=e.directed,
                    )
                )


def _confidence(raw: dict[str, Any], default: float) -> float:
    value = raw.get("confidence")
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return default


_EDITION_KEYS = ("supersedes", "superseded_by", "amends", "replaces", "repeals")


def _relations(meta: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(type, target, raw mapping)`` in front-matter order."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    rels = meta.get("relations")
    if isinstance(rels, list):
        for r in rels:
            if isinstance(r, dict):
                t, target = r.get("type") or r.get("kind"), r.get("target") or r.get("to")
                if isinstance(t, str) and isinstance(target, str) and target.strip():
                    out.append((t.strip(), target.strip(), r))
    return out


_FM_OPEN = re.compile(r"---[ \t]*(?:\r\n|\r|\n)")
_FM_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)


def _front_matter_spans(text: str, count: int) -> list[tuple[int, int]]:
    """The span of each ``relations:`` item in the front matter (best effort).

    Block lists give one span per ``- `` item; a flow list on one line, or anything the
    reader does not recognise, gives the whole ``relations`` entry for every relation.
    """
    opening = _FM_OPEN.match(text)
    close = _FM_CLOSE.search(text, opening.end()) if opening else None
    if opening is None or close is None:
        return [(0, 0)] * count
    block = text[opening.end() : close.start()]
    base = opening.end()
    key = re.search(r"^relations[ \t]*:", block, re.MULTILINE)
    if key is None:
        return [(base, base + len(block.rstrip()))] * count
    lines = block[key.start() :].splitlines(keepends=True)
    start = base + key.start()
    pos = start + len(lines[0])
    items: list[list[int]] = []
    entry_end = start + len(lines[0].rstrip())
    for line in lines[1:]:
        stripped = line.strip()
        indented = line[:1] in (" ", "\t")
        if stripped and not indented and not stripped.startswith("-"):
            break
        if stripped.startswith("- ") or stripped == "-":
            lead = len(line) - len(line.lstrip())
            items.append([pos + lead, pos + len(line.rstrip())])
        elif stripped and items:
            items[-1][1] = pos + len(line.rstrip())
        if stripped:
            entry_end = pos + len(line.rstrip())
        pos += len(line)
    if len(items) == count:
        return [(a, b) for a, b in items]
    return [(start, entry_end)] * count


def extract_document(doc: DocInput, extractors: Sequence[EdgeExtractor] = ()) -> DocExtract:
    """Points and edges of one document; extra extractors run after the structural pass."""
    b = _Builder(doc)
    b.points_and_containment()
    b.links()
    b.front_matter()
    b.mermaid()
    for ex in extractors:
        b.edges.extend(ex.extract(doc))
    return DocExtract(
        doc_id=doc.doc_id,
        path=doc.path,
        content_sha256=doc.content_sha256,
        title=doc.title,
        document_key=b.doc_key,
        points=tuple(b.points.values()),
        edges=tuple(b.edges),
        node_point=b.node_point,
        anchors=b.anchors,
    )
