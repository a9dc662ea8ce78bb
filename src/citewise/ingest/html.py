"""HTML -> :class:`RawNode` tree using the stdlib :mod:`html.parser`.

Only main text is kept: ``script``, ``style``, ``nav``, ``header``, ``footer``,
``aside``, ``template``, ``noscript`` and ``head`` are skipped. ``h1``-``h6``
start sections; ``p``, ``li``, ``table`` (with a ``table_row`` per body row
mapping header cells), ``pre`` and ``blockquote`` are blocks. A node's ``text``
is the exact source slice (markup included); ``search_text`` is the extracted
text. Unclosed ``p``/``li`` end where the next block starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from citewise.core.records import NodeKind
from citewise.errors import IngestError
from citewise.ingest.decode import trim_range
from citewise.ingest.limits import ParseBudget
from citewise.ingest.markdown import unique_headers
from citewise.ingest.tree import Heading, RawNode, collapse_ws, nest_sections

_SKIP = frozenset(
    {"script", "style", "nav", "header", "footer", "aside", "template", "noscript", "head"}
)
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr"}
)  # fmt: skip
_BLOCKS: dict[str, NodeKind] = {
    "p": "paragraph",
    "li": "list_item",
    "table": "table",
    "pre": "code",
    "blockquote": "blockquote",
}
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BREAKS = frozenset({"br", "p", "div", "li", "tr", "td", "th", "hr"})


@dataclass(slots=True)
class _Open:
    tag: str
    start: int
    node: RawNode | None = None
    heading: int = 0
    parts: list[str] = field(default_factory=list)
    list_depth: int = 0
    cells: list[str] = field(default_factory=list)
    in_head: bool = False


@dataclass(frozen=True, slots=True)
class HtmlResult:
    nodes: list[RawNode]
    title: str | None


class _Parser(HTMLParser):
    def __init__(self, text: str, budget: ParseBudget) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.budget = budget
        self._nl = [0] + [m.end() for m in re.finditer("\n", text)]
        self.items: list[Heading | RawNode] = []
        self.open: list[_Open] = []
        self.skip: list[str] = []
        self.list_depth = 0
        self.doc_title: str | None = None
        self.first_h1: str | None = None
        self._title_parts: list[str] | None = None
        self._header: list[str] = []

    def pos(self) -> int:
        line, col = self.getpos()
        return self._nl[line - 1] + col

    def _tag_end(self, start: int) -> int:
        end = self.text.find(">", start)
        return len(self.text) if end < 0 else end + 1

    # -- closing -----------------------------------------------------------
    def _close_at(self, idx: int, end: int, explicit: bool, inner: int | None = None) -> None:
        """Close ``open[idx:]``: the explicitly closed one ends at ``end``, the
        implicitly closed ones before ``inner`` (default ``end``), trimmed."""
        while len(self.open) > idx:
            op = self.open.pop()
            if explicit and len(self.open) == idx:
                stop = end
            else:
                _, stop = trim_range(self.text, op.start, end if inner is None else inner)
            self._finish(op, stop)

    def _finish(self, op: _Open, end: int) -> None:
        text = collapse_ws(" ".join(op.parts))
        if op.heading:
            self.budget.node()
            self.items.append(Heading(op.heading, op.start, end, text))
            if op.heading == 1 and self.first_h1 is None and text:
                self.first_h1 = text
            return
        if op.tag in ("td", "th"):
            table_row = next((o for o in reversed(self.open) if o.tag == "tr"), None)
            if table_row is not None:
                table_row.cells.append(text)
                table_row.in_head = table_row.in_head or op.tag == "th"
            return
        if op.tag == "tr":
            table = next(
                (o for o in reversed(self.open) if o.node and o.node.kind == "table"), None
            )
            if table is None or table.node is None:
                return
            in_thead = any(o.tag == "thead" for o in self.open)
            if (in_thead or op.in_head) and not self._header:
                self._header = unique_headers(op.cells)
                return
            header = self._header or unique_headers([""] * len(op.cells))
            self.budget.node()
            table.node.children.append(
                RawNode(
                    "table_row", op.start, end, collapse_ws(" ".join(op.cells)),
                    attrs={"header": list(header), "cells": list(op.cells),
                           "row": dict(zip(header, op.cells, strict=False))},
                )
            )  # fmt: skip
            return
        if op.node is None:
            return
        op.node.char_end = end
        op.node.search_text = text
        if op.node.kind == "table":
            op.node.attrs = {"header": list(self._header), "rows": len(op.node.children)}
            self._header = []

    def _emit(self, node: RawNode) -> None:
        parent = next((o.node for o in reversed(self.open) if o.node is not None), None)
        if parent is not None and parent.kind == "list_item" and node.kind == "list_item":
            parent.children.append(node)
        else:
            self.items.append(node)

    # -- HTMLParser callbacks ----------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.budget.step()
        try:
            self._start(tag, attrs)
        finally:
            self.budget.depth(len(self.open) + self.list_depth + len(self.skip))

    def _start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not self.skip[1:]:
            self._title_parts = []
        if self.skip:
            if tag in _SKIP:
                self.skip.append(tag)
            return
        if tag in _SKIP:
            self.skip.append(tag)
            return
        start = self.pos()
        if tag in _BREAKS:
            self._data(" ")
        if tag in ("ul", "ol"):
            self.list_depth += 1
            return
        if tag in _VOID:
            return
        inside = next((o for o in reversed(self.open) if o.node is not None), None)
        if tag in _HEADINGS or (tag in _BLOCKS and tag != "li"):
            # an open <p> ends where any new block begins
            idx = next((k for k, o in enumerate(self.open) if o.tag == "p"), None)
            if idx is not None:
                self._close_at(idx, start, explicit=False)
                inside = next((o for o in reversed(self.open) if o.node is not None), None)
        if tag in _HEADINGS:
            if inside is None:
                self.open.append(_Open(tag, start, heading=_HEADINGS[tag]))
            return
        if tag == "li":
            idx = next(
                (k for k, o in enumerate(self.open)
                 if o.tag in ("li", "p") and o.list_depth >= self.list_depth),
                None,
            )  # fmt: skip
            if idx is not None:
                self._close_at(idx, start, explicit=False)
            inside = next((o for o in reversed(self.open) if o.node is not None), None)
        if tag in _BLOCKS:
            node = None
            if inside is None or (tag == "li" and inside.node and inside.node.kind == "list_item"):
                node = RawNode(_BLOCKS[tag], start, start, "")
                self.budget.node()
                self._emit(node)
            self.open.append(_Open(tag, start, node=node, list_depth=self.list_depth))
            return
        if tag == "code" and inside is not None and inside.node and inside.node.kind == "code":
            cls = dict(attrs).get("class") or ""
            lang = next((c[9:] for c in cls.split() if c.startswith("language-")), None)
            if lang:
                inside.node.attrs["language"] = lang
        if tag in ("tr", "td", "th", "thead"):
            self.open.append(_Open(tag, start, list_depth=self.list_depth))

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._end_title()
        if self.skip:
            if tag == self.skip[-1]:
                self.skip.pop()
            return
        start = self.pos()
        end = self._tag_end(start)
        if tag in ("ul", "ol"):
            idx = next(
                (k for k, o in enumerate(self.open)
                 if o.tag == "li" and o.list_depth >= self.list_depth),
                None,
            )  # fmt: skip
            if idx is not None:
                self._close_at(idx, start, explicit=False)
            self.list_depth = max(0, self.list_depth - 1)
            return
        idx = next((k for k in range(len(self.open) - 1, -1, -1) if self.open[k].tag == tag), None)
        if idx is not None:
            self._close_at(idx, end, explicit=True, inner=start)

    def _end_title(self) -> None:
        if self._title_parts is not None and self.doc_title is None:
            self.doc_title = collapse_ws("".join(self._title_parts)) or None
        self._title_parts = None

    def handle_data(self, data: str) -> None:
        self.budget.step()
        if self._title_parts is not None:
            self._title_parts.append(data)
        if not self.skip:
            self._data(data)

    def _data(self, data: str) -> None:
        for op in self.open:
            op.parts.append(data)

    def finish(self) -> HtmlResult:
        self.close()
        self._close_at(0, len(self.text), explicit=False)
        for item in self.items:
            if isinstance(item, RawNode) and item.char_end < item.char_start:
                item.char_end = item.char_start
        return HtmlResult(nest_sections(self.text, self.items), self.doc_title or self.first_h1)


def parse_html(text: str, name: str, budget: ParseBudget | None = None) -> HtmlResult:
    """Parse HTML ``text``; ranges are exact offsets into ``text``."""
    parser = _Parser(text, budget or ParseBudget(name))
    try:
        parser.feed(text)
        return parser.finish()
    except (AssertionError, ValueError) as exc:  # pragma: no cover - parser is lenient
        raise IngestError(
            f"{name}: could not parse the HTML ({exc}).",
            hint="Check the file is well-formed HTML or convert it to Markdown.",
        ) from exc


__all__ = ["HtmlResult", "parse_html"]
