"""PPTX -> extracted text + :class:`RawNode` tree, with python-pptx.

Each slide is a section headed by its title (``Slide N`` when it has none), in slide
order. Every paragraph of every text frame (group shapes included, in shape order) is a
block: a ``list_item`` when indented (bullet level > 0), else a ``paragraph``. Tables are
``table`` nodes with ``table_row`` children and the header mapping. Speaker notes follow
the slide's content as one paragraph. Locators: ``{"slide": N (1-based), "notes":
false}`` on slide content (plus ``"table"``/``"row"`` on tables), ``{"slide": N,
"notes": true}`` on notes. A picture's text, read by OCR when it is available
(image_text.py), is a paragraph with ``{"slide": N, "notes": false, "image": k, "ocr":
true, ...}``; charts carry no text here.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import Any

from citewise.core.records import NodeKind
from citewise.errors import EmptyFile, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.image_text import picture_locator, read_picture
from citewise.ingest.limits import ParseBudget
from citewise.ingest.office import TextBuilder, broken, check_container, one_line, table_node
from citewise.ingest.tree import Heading, RawNode, nest_sections
from citewise.ingest.zipbudget import open_package

#: python-pptx's ``MSO_SHAPE_TYPE.PICTURE`` (the enum is not imported at module load:
#: python-pptx is read only when a deck is parsed).
_PICTURE = 13


def _shapes(shapes: Any) -> Iterator[Any]:
    for shape in shapes:
        if getattr(shape, "shapes", None) is not None:  # a group shape
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _grid(table: Any) -> list[list[str]]:
    """Cell texts; a merged range's text fills every cell it spans (header mapping)."""
    grid = [[one_line(c.text) for c in row.cells] for row in table.rows]
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            if cell.is_merge_origin:
                for rr in range(r, min(r + cell.span_height, len(grid))):
                    for cc in range(c, min(c + cell.span_width, len(grid[rr]))):
                        grid[rr][cc] = grid[r][c]
    return grid


def _picture(
    builder: TextBuilder,
    shape: Any,
    where: Mapping[str, object],
    k: int,
    name: str,
    budget: ParseBudget | None,
) -> RawNode | None:
    """The text OCR reads in a picture shape (image_text.py), or None."""
    try:
        blob = shape.image.blob
    except Exception:  # a linked picture or a placeholder without an image part
        return None
    found = read_picture(blob, name, budget)
    if found is None:
        return None
    s, e = builder.block(found.text)
    loc = picture_locator(where, k, found)
    return RawNode("paragraph", s, e, found.text, attrs={"locator": loc, "image": k})


def _slide(
    builder: TextBuilder, number: int, slide: Any, name: str = "", budget: ParseBudget | None = None
) -> list[Heading | RawNode]:
    where = {"slide": number, "notes": False}
    title_shape = slide.shapes.title
    title = one_line(title_shape.text_frame.text) if title_shape is not None else ""
    s, e = builder.block(title or f"Slide {number}")
    items: list[Heading | RawNode] = [Heading(1, s, e, title or f"Slide {number}")]
    tables = pictures = 0
    for shape in _shapes(slide.shapes):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if getattr(shape, "shape_type", None) == _PICTURE:
            node = _picture(builder, shape, where, pictures, name, budget)
            pictures += 1
            if node is not None:
                items.append(node)
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            grid = _grid(shape.table)
            if grid:
                loc = {**where, "table": tables}
                rows = [{**loc, "row": r} for r in range(1, len(grid))]
                node = table_node(builder, grid[0], grid[1:], loc, rows)
                if node is not None:
                    items.append(node)
            tables += 1
            continue
        if not getattr(shape, "has_text_frame", False) or not shape.has_text_frame:
            continue
        for para in shape.text_frame.paragraphs:
            text = one_line("".join(r.text for r in para.runs) or para.text)
            if not text:
                continue
            s, e = builder.block(text)
            kind: NodeKind = "list_item" if para.level > 0 else "paragraph"
            items.append(RawNode(kind, s, e, text, attrs={"locator": dict(where)}))
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = frame.text.strip() if frame is not None else ""
        if notes:
            lines = [one_line(line) for line in notes.splitlines() if line.strip()]
            s, e = builder.block("\n".join(lines))
            attrs = {"locator": {"slide": number, "notes": True}, "notes": True}
            items.append(RawNode("paragraph", s, e, " ".join(lines), attrs=attrs))
    return items


def parse_pptx(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    check_container(raw, name, "PPTX")
    open_package(raw, name, "PPTX", budget)  # sizes checked before python-pptx reads it
    try:
        from pptx import Presentation

        deck = Presentation(io.BytesIO(raw))
        builder = TextBuilder(budget)
        items: list[Heading | RawNode] = []
        for number, slide in enumerate(deck.slides, start=1):
            items.extend(_slide(builder, number, slide, name, budget))
        slides = len(deck.slides)
    except IngestError:
        raise
    except Exception as exc:  # python-pptx raises KeyError, ValueError, lxml errors ...
        raise broken(name, "PPTX", exc) from exc
    if not builder.length:
        raise EmptyFile(f"{name}: the presentation has no slides.", hint="Check the file.")
    text = builder.text
    first = next((it.title for it in items if isinstance(it, Heading)), None)
    return Extracted(text, nest_sections(text, items), first, {"slides": slides})
