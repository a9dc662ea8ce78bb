"""Entry point: bytes of one file -> :class:`ParsedDocument`.

Steps: size limit, format by extension, decode, front matter (Markdown and
text), format parser, clause tracking, ids, chunking.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from citewise.config import IngestConfig
from citewise.errors import FileTooLarge, UnsupportedFormat
from citewise.ingest.chunking import build_chunks
from citewise.ingest.clauses import ClauseEvent, assign_clause_paths
from citewise.ingest.decode import LineIndex, decode_bytes
from citewise.ingest.frontmatter import split_front_matter
from citewise.ingest.html import parse_html
from citewise.ingest.limits import ParseBudget
from citewise.ingest.markdown import parse_markdown
from citewise.ingest.models import DocFormat, Node, ParsedDocument, sha256_text, stable_id
from citewise.ingest.text import parse_text
from citewise.ingest.tree import RawNode
from citewise.ingest.xml import parse_xml

FORMATS: dict[str, DocFormat] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    "": "text",
    ".html": "html",
    ".htm": "html",
    ".xml": "xml",
}
_CLAUSE_BLOCKS = frozenset({"paragraph", "list_item", "blockquote"})


def detect_format(name: str) -> DocFormat:
    """Format from the file extension; raises :class:`UnsupportedFormat`."""
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    fmt = FORMATS.get(suffix)
    if fmt is None:
        supported = ", ".join(sorted(s for s in FORMATS if s)) + " and files without extension"
        raise UnsupportedFormat(
            f"{name}: format {suffix!r} is not supported.",
            hint=f"Supported: {supported}. Convert the file or exclude it from the ingest.",
        )
    return fmt


def _stem(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).stem or name


def _walk(root: RawNode, budget: ParseBudget) -> list[tuple[RawNode, int]]:
    """Pre-order ``(node, depth)`` without recursion (deep trees cannot overflow the
    stack); depth and node count are checked against the budget as it goes."""
    out: list[tuple[RawNode, int]] = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        budget.depth(depth)
        budget.step()
        out.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(node.children))
    if len(out) > budget.limits.max_nodes:
        budget.node(len(out) - budget.nodes)
    return out


def _assign_clauses(order: list[tuple[RawNode, int]]) -> None:
    events: list[ClauseEvent] = []
    targets: list[RawNode] = []
    for raw, depth in order:
        if raw.clause_preset:
            continue
        if raw.kind == "section":
            events.append(ClauseEvent("heading", raw.title or "", raw.level or depth))
        elif raw.kind in _CLAUSE_BLOCKS:
            events.append(ClauseEvent("block", raw.search_text))
        else:
            continue
        targets.append(raw)
    for raw, res in zip(targets, assign_clause_paths(events), strict=True):
        raw.clause_path = res.path
        if res.marker:
            raw.attrs["clause_marker"] = res.marker
        if res.inherited:
            raw.attrs["clause_inherited"] = True
        if res.ambiguous:
            raw.attrs["clause_ambiguous"] = True


def document_metadata(raw: bytes, name: str) -> dict[str, Any]:
    """The metadata :func:`parse_document` would give ``raw`` (its front matter), without
    parsing the body: access checks on stored versions stay cheap however large they are."""
    fmt = detect_format(name)
    if fmt not in ("markdown", "text"):
        return {}
    metadata, _ = split_front_matter(decode_bytes(raw, name), name)
    return metadata


def parse_document(
    raw: bytes,
    *,
    name: str,
    kb: str,
    doc_path: str,
    config: IngestConfig,
    clock: Callable[[], float] | None = None,
) -> ParsedDocument:
    """Parse one file. Errors are :class:`~citewise.errors.IngestError` subclasses;
    a file past a :class:`~citewise.config.ParseLimits` bound raises
    :class:`~citewise.errors.ParseLimitExceeded`. ``clock`` is for tests."""
    if len(raw) > config.max_file_bytes:
        raise FileTooLarge(
            f"{name}: {len(raw):,} bytes exceeds the {config.max_file_bytes:,}-byte limit.",
            hint="Split the file or raise ingest.max_file_bytes.",
        )
    fmt = detect_format(name)
    budget = ParseBudget(name, config.limits, clock or time.monotonic)
    text = decode_bytes(raw, name)
    index = LineIndex(text)
    metadata: dict[str, Any] = {}
    body_offset = 0
    first_heading: str | None = None
    if fmt in ("markdown", "text"):
        metadata, body_offset = split_front_matter(text, name)
    if fmt == "markdown":
        md = parse_markdown(text, body_offset, index, budget)
        children, first_heading = md.nodes, md.first_h1
    elif fmt == "text":
        children = parse_text(text, body_offset, budget)
    elif fmt == "html":
        html_doc = parse_html(text, name, budget)
        children, first_heading = html_doc.nodes, html_doc.title
    else:
        xml_doc = parse_xml(text, name, budget)
        children, first_heading = xml_doc.nodes, xml_doc.title
    title = str(metadata.get("title") or first_heading or _stem(name))

    root = RawNode("document", 0, len(text), title, title=title, children=children)
    root.clause_preset = True
    order = _walk(root, budget)
    budget.text(sum(r.char_end - r.char_start for r, _ in order), len(text))
    _assign_clauses(order)
    budget.check_time()

    content_sha = sha256_text(text)
    nodes: list[Node] = []
    ids: dict[int, str] = {}
    paths: dict[int, tuple[str, ...]] = {}
    parents: dict[int, RawNode | None] = {id(root): None}
    for raw_node, _ in order:
        for child in raw_node.children:
            parents[id(child)] = raw_node
    for ordinal, (raw_node, _) in enumerate(order):
        budget.step()
        parent = parents[id(raw_node)]
        path = paths[id(parent)] if parent is not None else ()
        if raw_node.kind == "section":
            path = (*path, raw_node.title or "")
        paths[id(raw_node)] = path
        node_id = stable_id("n", kb, doc_path, content_sha, raw_node.kind, str(ordinal))
        ids[id(raw_node)] = node_id
        body = text[raw_node.char_start : raw_node.char_end]
        line_start, line_end = index.line_range(raw_node.char_start, raw_node.char_end)
        nodes.append(
            Node(
                id=node_id,
                kind=raw_node.kind,
                parent_id=ids[id(parent)] if parent is not None else None,
                heading_path=path,
                ordinal=ordinal,
                line_start=line_start,
                line_end=line_end,
                char_start=raw_node.char_start,
                char_end=raw_node.char_end,
                text=body,
                search_text=raw_node.search_text,
                sha256=sha256_text(body),
                clause_path=raw_node.clause_path,
                attrs=raw_node.attrs,
            )
        )
    budget.check_time()
    chunks = build_chunks(nodes, title, config.chunks, (kb, doc_path, content_sha))
    return ParsedDocument(
        format=fmt, text=text, title=title, metadata=metadata, nodes=tuple(nodes), chunks=chunks
    )
