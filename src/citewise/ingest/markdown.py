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
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from citewise.core.records import NodeKind
from citewise.ingest.decode import LineIndex, trim_range
from citewise.ingest.limits import ParseBudget, limit_error
from citewise.ingest.titles import clean_title
from citewise.ingest.tree import Heading, RawNode, collapse_ws, nest_sections

_BUDGET = "citewise_budget"
_COUNTED = "citewise_counted"
#: Block tokens per node the token stream may hold (memory: deep nesting makes many
#: tokens per node) before the node limit applies.
_TOKENS_PER_NODE = 8
#: Tokens that become (at most) one node each; counted while markdown-it runs, so a file
#: of a million headings stops at the node limit, not after tokenizing all of it.
_NODE_OPENS = frozenset(
    {"heading_open", "paragraph_open", "list_item_open", "blockquote_open", "tr_open",
     "fence", "code_block"}
)  # fmt: skip


_TOP_ONLY = frozenset({"paragraph_open", "blockquote_open"})


def _guard_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """First block rule, called at every block start: depth, size and time checks.

    markdown-it itself silently drops blocks nested past ``maxNesting``; the parser is
    built with ``maxNesting`` above the depth limit (a nested block opens at most two levels
    deeper), so this refuses the file first."""
    budget: ParseBudget | None = state.env.get(_BUDGET)
    if budget is None:
        return False
    budget.depth(state.level)
    tokens = state.tokens
    seen, opens = state.env.get(_COUNTED, (0, 0))
    # a paragraph or quote inside an item or quote is part of that node, not one of its own
    opens += sum(
        1
        for t in tokens[seen:]
        if t.type in _NODE_OPENS and (t.level == 0 or t.type not in _TOP_ONLY)
    )
    state.env[_COUNTED] = (len(tokens), opens)
    limit = budget.limits.max_nodes
    if opens > limit:
        raise limit_error(budget.name, f"more than {limit:,} blocks", "max_nodes", limit)
    if len(tokens) > _TOKENS_PER_NODE * limit:
        raise limit_error(budget.name, f"{len(tokens):,} Markdown block tokens", "max_nodes", limit)
    budget.step()
    return False


def _guard_inline(state: StateInline, silent: bool) -> bool:
    budget: ParseBudget | None = state.env.get(_BUDGET)
    if budget is not None:
        budget.step()
    return False


@lru_cache(maxsize=8)
def markdown_parser(max_depth: int) -> MarkdownIt:
    """CommonMark + GFM tables, nesting bounded just above ``max_depth``, with guards."""
    md = MarkdownIt("commonmark", {"maxNesting": max_depth + 4}).enable("table")
    md.block.ruler.before("table", "citewise_guard", _guard_block)
    md.inline.ruler.before("text", "citewise_guard", _guard_inline)
    return md


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
    def __init__(self, text: str, index: LineIndex, body_offset: int, budget: ParseBudget) -> None:
        self.text = text
        self.index = index
        self.budget = budget
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
                self.budget.node()
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
        budget = self.budget
        md = markdown_parser(budget.limits.max_depth)
        tokens = md.parse(body, {_BUDGET: budget})
        budget.check_time()
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
            budget.step()
            inside = any(c.node is not None for c in stack)
            in_quote = any(c.node is not None and c.node.kind == "blockquote" for c in stack)
            if tok.type == "heading_open":
                title = clean_title(inline_plain(tokens[i + 1]))  # no attr lists / HTML
                if inside:
                    add_text(title)
                else:
                    start, end = self.span(tok.map)
                    level = int(tok.tag[1:])
                    items.append(Heading(level, start, end, title))
                    budget.node()
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
                budget.node()
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
                    budget.node()
            elif tok.type == "table_open":
                node, i = self.table(tokens, i)
                if inside:
                    add_text(node.search_text)
                else:
                    items.append(node)
                    budget.node()
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
                    budget.node()
                stack.append(_Capture(node, tok.type.replace("_open", "_close")))
            elif tok.type in ("list_item_close", "blockquote_close"):
                cap = stack.pop()
                if cap.node is not None:
                    cap.node.search_text = collapse_ws(" ".join(cap.parts))
            i += 1
        return MarkdownResult(nest_sections(self.text, items), first_h1 or first_html_h1)


def parse_markdown(
    text: str,
    body_offset: int,
    index: LineIndex | None = None,
    budget: ParseBudget | None = None,
) -> MarkdownResult:
    """Parse ``text[body_offset:]``; ranges are offsets into the full ``text``."""
    idx = index or LineIndex(text)
    spend = budget or ParseBudget("document.md")
    return _Builder(text, idx, body_offset, spend).build(text[body_offset:])
