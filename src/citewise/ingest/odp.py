"""ODP -> extracted text + :class:`RawNode` tree, like PPTX (one section per slide).

An ODP file is a zip whose ``content.xml`` holds one ``draw:page`` per slide; it is read
with defusedxml like ODT and ODS. Each slide is a section headed by its title frame
(``presentation:class="title"``; ``Slide N`` when it has none), in slide order. Every
text frame's paragraphs (group shapes included, in document order) are blocks: a
``list_item`` inside ``text:list``, else a ``paragraph``. Tables are ``table`` nodes
whose first row is the header and whose other rows are ``table_row`` nodes with the
header mapping. Speaker notes (``presentation:notes``) follow the slide's content as one
paragraph. Locators as PPTX: ``{"slide": N (1-based), "notes": false}`` on slide content
(plus ``"table"``/``"row"`` on tables), ``{"slide": N, "notes": true}`` on notes.
Element nesting is told to the budget (``max_depth``); a password-protected file is
``ENCRYPTED``.
"""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

from citewise.core.records import NodeKind
from citewise.errors import EmptyFile, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget
from citewise.ingest.ods import TABLE, TEXT, body_of, check_encrypted, text_of
from citewise.ingest.odt import _row_cells, _rows
from citewise.ingest.office import TextBuilder, broken, table_node
from citewise.ingest.tree import Heading, RawNode, nest_sections
from citewise.ingest.zipbudget import open_package

DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_TEXT_BLOCKS = (f"{TEXT}p", f"{TEXT}h")
#: placeholder frames a master page fills in (page number, date, footer): not content
_FIELDS = frozenset({"page-number", "date-time", "footer", "header"})


def _title(page: Element, budget: ParseBudget) -> tuple[str, Element | None]:
    for frame in page.iter(f"{DRAW}frame"):
        if frame.get(f"{PRESENTATION}class") == "title":
            return text_of(frame, budget), frame
    return "", None


class _Slide:
    def __init__(self, builder: TextBuilder, budget: ParseBudget, number: int) -> None:
        self.builder, self.budget, self.number = builder, budget, number
        self.where = {"slide": number, "notes": False}
        self.items: list[Heading | RawNode] = []
        self.tables = 0

    def text(self, el: Element, in_list: bool, depth: int) -> None:
        """Paragraphs of a text box, list items inside lists (nesting told the budget)."""
        self.budget.depth(depth)
        for child in el:
            if child.tag in _TEXT_BLOCKS:
                text = text_of(child, self.budget)
                if text:
                    s, e = self.builder.block(text)
                    kind: NodeKind = "list_item" if in_list else "paragraph"
                    loc = {"locator": dict(self.where)}
                    self.items.append(RawNode(kind, s, e, text, attrs=loc))
            elif child.tag == f"{TABLE}table":
                self.table(child)
            else:
                self.text(child, in_list or child.tag == f"{TEXT}list", depth + 1)

    def table(self, el: Element) -> None:
        elements, _ = _rows(el)
        grid = [r for r in (_row_cells(row) for row in elements) if any(r)]
        if grid:
            width = max(len(r) for r in grid)
            grid = [r + [""] * (width - len(r)) for r in grid]
            loc = {**self.where, "table": self.tables}
            rows = [{**loc, "row": r} for r in range(1, len(grid))]
            node = table_node(self.builder, grid[0], grid[1:], loc, rows)
            if node is not None:
                self.items.append(node)
        self.tables += 1

    def notes(self, page: Element) -> None:
        notes = page.find(f"{PRESENTATION}notes")
        if notes is None:
            return
        frames = [
            f for f in notes.iter(f"{DRAW}frame") if f.get(f"{PRESENTATION}class") not in _FIELDS
        ]
        blocks = [p for f in frames for p in f.iter() if p.tag in _TEXT_BLOCKS]
        lines = [t for p in blocks if (t := text_of(p, self.budget))]
        if lines:
            s, e = self.builder.block("\n".join(lines))
            attrs = {"locator": {"slide": self.number, "notes": True}, "notes": True}
            self.items.append(RawNode("paragraph", s, e, " ".join(lines), attrs=attrs))


def _slide(
    builder: TextBuilder, budget: ParseBudget, number: int, page: Element
) -> list[Heading | RawNode]:
    title, title_frame = _title(page, budget)
    s, e = builder.block(title or f"Slide {number}")
    slide = _Slide(builder, budget, number)
    slide.items.append(Heading(1, s, e, title or f"Slide {number}"))
    for child in page:
        if child is title_frame or child.tag == f"{PRESENTATION}notes":
            continue
        if child.get(f"{PRESENTATION}class") in _FIELDS:
            continue
        slide.text(child, False, 1)
    slide.notes(page)
    return slide.items


def parse_odp(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    budget = budget or ParseBudget(name)
    z = open_package(raw, name, "ODP", budget)  # every member's size checked first
    try:
        check_encrypted(z, name, "ODP")
        body = body_of(z, name, "ODP", "presentation")
        builder = TextBuilder(budget)
        items: list[Heading | RawNode] = []
        pages = body.findall(f"{DRAW}page")
        for number, page in enumerate(pages, start=1):
            items.extend(_slide(builder, budget, number, page))
    except IngestError:
        raise
    except Exception as exc:  # a damaged member (zlib.error, ValueError ...)
        raise broken(name, "ODP", exc) from exc
    if not builder.length:
        raise EmptyFile(f"{name}: the presentation has no slides.", hint="Check the file.")
    text = builder.text
    first = next((it.title for it in items if isinstance(it, Heading)), None)
    meta: dict[str, Any] = {"slides": len(pages)}
    return Extracted(text, nest_sections(text, items), first, meta)


__all__ = ["parse_odp"]
