"""Markdown (CommonMark + GFM tables) -> :class:`RawNode` tree.

Ranges come from markdown-it token line maps and are mapped to offsets of the
full original text (front matter included). A ``list_item`` or ``blockquote`` is
one block: paragraphs, code and tables inside it are not separate blocks, but
nested list items are child ``list_item`` nodes (their range lies inside the
parent's). ``search_text`` is rebuilt from inline tokens, so Markdown syntax
(``#``, bullets, pipes, emphasis, link URLs) is gone.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from citewise.ingest.decode import LineIndex, trim_range
from citewise.ingest.models import NodeKind
from citewise.ingest.tree import Heading, RawNode, collapse_ws, nest_sections

_MD = MarkdownIt("commonmark").enable("table")
_HTML_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def html_h1(block: str) -> str | None:
    """The plain text of the first ``<h1>`` in a raw HTML block (a page whose title is
    written in HTML rather than as a Markdown ``#`` heading)."""
    m = _HTML_H1.search(block)
    if m is None:
        return None
    return collapse_ws(html.unescape(_TAG.sub(" ", m.group(1)))) or None


def inline_plain(token: Token) -> str:
    """Plain text of an ``inline`` token: text, code spans, image alt; no URLs."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(inline_plain(child))
    return "".join(parts)


def unique_headers(cells: Sequence[str]) -> list[str]:
    """Header names usable as dict keys: empty -> ``column N``, repeats get `` (N)``."""
    out: list[str] = []
    seen: set[str] = set()
    for i, cell in enumerate(cells):
        name = cell or f"column {i + 1}"
        if name in seen:
            name = f"{name} ({i + 1})"
        seen.add(name)
        out.append(name)
    return out


@dataclass(slots=True)
class _Capture:
    node: RawNode | None  # None: a container we do not emit (inside another block)
    close: str
    parts: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class MarkdownResult:
    nodes: list[RawNode]
    first_h1: str | None


class _Builder:
    def __init__(self, text: str, index: LineIndex, body_offset: int) -> None:
        self.text = text
        self.index = index
        self.line_offset = index.line_of(body_offset) - 1 if body_offset else 0

    def span(self, line_map: list[int] | None) -> tuple[int, int]:
        assert line_map is not None
        first = self.line_offset + line_map[0] + 1
        last = self.line_offset + max(line_map[1], line_map[0] + 1)
        return trim_range(self.text, self.index.line_start(first), self.index.line_end(last))

    def table(self, tokens: Sequence[Token], i: int) -> tuple[RawNode, int]:
        start, end = self.span(tokens[i].map)
        header: list[str] = []
        rows: list[RawNode] = []
        cells: list[str] = []
        in_head = False
        row_map: list[int] | None = None
        j = i + 1
        while tokens[j].type != "table_close":
            tok = tokens[j]
            if tok.type == "thead_open":
                in_head = True
            elif tok.type == "thead_close":
                in_head = False
                header = unique_headers(cells)
                cells = []
            elif tok.type == "tr_open":
                row_map, cells = tok.map, []
            elif tok.type == "inline":
                cells.append(collapse_ws(inline_plain(tok)))
            elif tok.type == "tr_close" and not in_head:
                rs, re_ = self.span(row_map)
                rows.append(
                    RawNode(
                        kind="table_row",
                        char_start=rs,
                        char_end=re_,
                        search_text=collapse_ws(" ".join(cells)),
                        attrs={
                            "header": list(header),
                            "cells": list(cells),
                            "row": dict(zip(header, cells, strict=False)),
                        },
                    )
                )
            j += 1
        search = collapse_ws(" ".join([*header, *(r.search_text for r in rows)]))
        node = RawNode(
            kind="table",
            char_start=start,
            char_end=end,
            search_text=search,
            attrs={"header": header, "rows": len(rows)},
            children=rows,
        )
        return node, j

    def build(self, body: str) -> MarkdownResult:
        tokens = _MD.parse(body)
        items: list[Heading | RawNode] = []
        stack: list[_Capture] = []
        first_h1: str | None = None
        first_html_h1: str | None = None

        def emit(node: RawNode) -> None:
            parent = next((c.node for c in reversed(stack) if c.node is not None), None)
            if parent is not None and parent.kind == "list_item" and node.kind == "list_item":
                parent.children.append(node)
            else:
                items.append(node)

        def add_text(text: str) -> None:
            for cap in stack:
                cap.parts.append(text)

        i = 0
        while i < len(tokens):
            tok = tokens[i]
            inside = any(c.node is not None for c in stack)
            in_quote = any(c.node is not None and c.node.kind == "blockquote" for c in stack)
            if tok.type == "heading_open":
                title = collapse_ws(inline_plain(tokens[i + 1]))
                if inside:
                    add_text(title)
                else:
                    start, end = self.span(tok.map)
                    level = int(tok.tag[1:])
                    items.append(Heading(level, start, end, title))
                    if level == 1 and first_h1 is None and title:
                        first_h1 = title
                i += 3
                continue
            if tok.type == "html_block" and first_html_h1 is None:
                first_html_h1 = html_h1(tok.content)
            if tok.type == "inline":
                add_text(inline_plain(tok))
            elif tok.type == "paragraph_open" and not inside:
                start, end = self.span(tok.map)
                plain = collapse_ws(inline_plain(tokens[i + 1]))
                items.append(RawNode("paragraph", start, end, plain))
                i += 3
                continue
            elif tok.type in ("fence", "code_block"):
                if inside:
                    add_text(tok.content)
                else:
                    start, end = self.span(tok.map)
                    lang = tok.info.strip().split()[0] if tok.info.strip() else ""
                    kind: NodeKind = "mermaid" if lang.lower() == "mermaid" else "code"
                    attrs = {"language": lang or None}
                    items.append(RawNode(kind, start, end, collapse_ws(tok.content), attrs=attrs))
            elif tok.type == "table_open":
                node, i = self.table(tokens, i)
                if inside:
                    add_text(node.search_text)
                else:
                    items.append(node)
            elif tok.type in ("list_item_open", "blockquote_open"):
                node = None
                if tok.type == "blockquote_open" and not inside:
                    start, end = self.span(tok.map)
                    node = RawNode("blockquote", start, end, "")
                elif tok.type == "list_item_open" and not in_quote:
                    start, end = self.span(tok.map)
                    node = RawNode("list_item", start, end, "", attrs={"marker": tok.markup})
                    if tok.info:
                        node.attrs["number"] = tok.info
                if node is not None:
                    emit(node)
                stack.append(_Capture(node, tok.type.replace("_open", "_close")))
            elif tok.type in ("list_item_close", "blockquote_close"):
                cap = stack.pop()
                if cap.node is not None:
                    cap.node.search_text = collapse_ws(" ".join(cap.parts))
            i += 1
        return MarkdownResult(nest_sections(self.text, items), first_h1 or first_html_h1)


def parse_markdown(text: str, body_offset: int, index: LineIndex | None = None) -> MarkdownResult:
    """Parse ``text[body_offset:]``; ranges are offsets into the full ``text``."""
    idx = index or LineIndex(text)
    return _Builder(text, idx, body_offset).build(text[body_offset:])
