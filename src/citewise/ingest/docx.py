"""DOCX -> extracted text + :class:`RawNode` tree, with python-docx.

The body is read in order (paragraphs and tables). Each body paragraph becomes a block of
the extracted text and carries ``locator = {"paragraph": i}`` (0-based index among the
body's paragraphs, tables' paragraphs not counted). ``Heading N`` / ``Title`` styles
start sections; numbered or ``List`` paragraphs are ``list_item`` nodes. A table is a
``table`` node (``{"table": t}``) whose first row is the header and whose other rows are
``table_row`` nodes with the header mapping (``{"table": t, "row": r}``, 0-based; row 0
is the header); a merged cell repeats its text in every column it spans (so the mapping
stays aligned) and is shown once in the row's line.

Footnotes and endnotes (python-docx has no API for them) are read from their package parts
with defusedxml and placed right after the paragraph that references them, as a paragraph
``[footnote 2] text`` with ``locator = {"paragraph": i, "footnote": "2"}`` (or
``endnote``).

Pictures: with OCR available, the text Tesseract reads in a paragraph's picture becomes a
paragraph node after it with ``locator = {"paragraph": i, "image": k, "ocr": true, ...}``
(image_text.py).
"""

from __future__ import annotations

import io
import re
from typing import Any
from xml.etree.ElementTree import Element

from citewise.config import ParseLimits
from citewise.core.records import NodeKind
from citewise.errors import EmptyFile, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.image_text import picture_locator, read_picture
from citewise.ingest.limits import ParseBudget, limit_error
from citewise.ingest.office import (
    TextBuilder,
    broken,
    check_container,
    one_line,
    parse_xml_part,
    table_node,
)
from citewise.ingest.tree import Heading, RawNode, nest_sections
from citewise.ingest.zipbudget import open_package

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_HEADING = re.compile(r"^heading\s*(\d)$", re.I)
_NOTE_KINDS = ("footnote", "endnote")


def _notes(document: Any) -> dict[tuple[str, str], str]:
    """``(kind, id) -> text`` of the footnotes and endnotes parts."""
    out: dict[tuple[str, str], str] = {}
    for rel in document.part.rels.values():
        kind = next((k for k in _NOTE_KINDS if rel.reltype.endswith(f"/{k}s")), None)
        if kind is None or rel.is_external:
            continue
        root = parse_xml_part(rel.target_part.blob)
        if root is None:
            continue
        for note in root.iter(f"{W}{kind}"):
            note_id = note.get(f"{W}id", "")
            if note.get(f"{W}type") in ("separator", "continuationSeparator"):
                continue
            text = one_line(
                " ".join("".join(t.text or "" for t in p.iter(f"{W}t")) for p in note.iter(f"{W}p"))
            )
            if text:
                out[(kind, note_id)] = text
    return out


def _refs(p: Element) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for el in p.iter():
        for kind in _NOTE_KINDS:
            if el.tag == f"{W}{kind}Reference":
                found.append((kind, el.get(f"{W}id", "")))
    return found


def _style_level(paragraph: Any) -> int | None:
    name = paragraph.style.name if paragraph.style is not None else ""
    if name == "Title":
        return 1
    m = _HEADING.match(name or "")
    return int(m.group(1)) if m else None


def _is_list(paragraph: Any) -> bool:
    ppr = paragraph._p.pPr
    name = paragraph.style.name if paragraph.style is not None else ""
    return (ppr is not None and ppr.numPr is not None) or (name or "").startswith("List")


def _check_table(tbl: Element, index: int, name: str, budget: ParseBudget | None) -> None:
    """python-docx repeats a cell once per grid column it spans (``w:gridSpan``), so a
    table's cells are counted from its XML, spans included, against ``max_sheet_cells``
    before they are asked for (a one-cell table may declare a span of millions)."""
    cap = (budget.limits if budget is not None else ParseLimits()).max_sheet_cells
    cells = 0
    for tr in tbl.iter(f"{W}tr"):
        for tc in tr.findall(f"{W}tc"):
            span = tc.find(f"{W}tcPr/{W}gridSpan")
            value = span.get(f"{W}val", "1") if span is not None else "1"
            cells += int(value) if value.isdigit() else 1
        if cells > cap:
            raise limit_error(
                name,
                f"table {index} (more than {cap:,} cells, spans counted)",
                "max_sheet_cells",
                cap,
            )


def _table_rows(table: Any) -> list[tuple[list[str], list[str]]]:
    """Per row: the text per grid column (merged cells repeated) and per distinct cell."""
    rows: list[tuple[list[str], list[str]]] = []
    for row in table.rows:
        grid: list[str] = []
        shown: list[str] = []
        last: Any = None
        for cell in row.cells:
            text = one_line(cell.text)
            grid.append(text)
            if cell._tc is not last:
                shown.append(text)
            last = cell._tc
        rows.append((grid, shown))
    return rows


def _pictures(
    p: Element,
    document: Any,
    index: int,
    builder: TextBuilder,
    name: str,
    budget: ParseBudget | None,
) -> list[RawNode]:
    """The text OCR reads in the pictures of paragraph ``index`` (image_text.py), one
    node each, placed after the paragraph; none without OCR."""
    out: list[RawNode] = []
    blips = [b.get(f"{R}embed", "") for b in p.iter(f"{A}blip")]
    for k, rid in enumerate(b for b in blips if b):
        part = document.part.related_parts.get(rid)
        found = read_picture(part.blob, name, budget) if part is not None else None
        if found is None:
            continue
        s, e = builder.block(found.text)
        loc = picture_locator({"paragraph": index}, k, found)
        out.append(RawNode("paragraph", s, e, found.text, attrs={"locator": loc, "image": k}))
    return out


def parse_docx(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    check_container(raw, name, "DOCX")
    open_package(raw, name, "DOCX", budget)  # sizes checked before python-docx reads it
    try:
        from docx import Document
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        document = Document(io.BytesIO(raw))
        notes = _notes(document)
        return _build(document, notes, Paragraph, Table, name, budget)
    except IngestError:
        raise
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors ...
        raise broken(name, "DOCX", exc) from exc


def _build(
    document: Any,
    notes: dict[tuple[str, str], str],
    paragraph_cls: Any,
    table_cls: Any,
    name: str,
    budget: ParseBudget | None,
) -> Extracted:
    builder = TextBuilder(budget)
    items: list[Heading | RawNode] = []
    title: str | None = None
    p_index = t_index = 0
    for child in document.element.body.iterchildren():
        if child.tag == f"{W}p":
            paragraph = paragraph_cls(child, document)
            text = one_line(paragraph.text)
            index, p_index = p_index, p_index + 1
            if not text:
                items.extend(_pictures(child, document, index, builder, name, budget))
                continue
            start, end = builder.block(text)
            locator = {"paragraph": index}
            level = _style_level(paragraph)
            if level is not None:
                items.append(Heading(level, start, end, text))
                title = title or text
            else:
                kind: NodeKind = "list_item" if _is_list(paragraph) else "paragraph"
                items.append(RawNode(kind, start, end, text, attrs={"locator": locator}))
            for kind_, note_id in _refs(child):
                body = notes.get((kind_, note_id))
                if body is None:
                    continue
                s, e = builder.block(f"[{kind_} {note_id}] {body}")
                loc = {"paragraph": index, kind_: note_id}
                items.append(
                    RawNode("paragraph", s, e, body, attrs={"locator": loc, "note": kind_})
                )
            items.extend(_pictures(child, document, index, builder, name, budget))
        elif child.tag == f"{W}tbl":
            _check_table(child, t_index, name, budget)
            table = table_cls(child, document)
            rows = _table_rows(table)
            index, t_index = t_index, t_index + 1
            if not rows:
                continue
            header = rows[0][0]
            body_rows = [grid for grid, _ in rows[1:]]
            node = table_node(
                builder,
                header,
                body_rows,
                {"table": index},
                [{"table": index, "row": r} for r in range(1, len(rows))],
                [shown for _, shown in rows],
            )
            if node is not None:
                items.append(node)
    if not builder.length:
        raise EmptyFile(f"{name}: the DOCX file has no text.", hint="Check it is not only images.")
    text = builder.text
    return Extracted(
        text, nest_sections(text, items), title, {"paragraphs": p_index, "tables": t_index}
    )
