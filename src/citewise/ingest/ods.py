"""ODS -> extracted text + :class:`RawNode` tree, with the same table logic as XLSX.

An ODS file is a zip whose ``content.xml`` holds one ``table:table`` per sheet; it is read
with defusedxml (no entity expansion, no external references) like ODT. Each sheet
becomes a :class:`~citewise.ingest.sheet_tables.Sheet` (written cells by 0-based row
and column, merged areas from ``number-columns-spanned``/``number-rows-spanned``) and
is read by :func:`~citewise.ingest.sheet_tables.read_sheet`: a section per sheet, tables
found at blank rows and columns, title rows, header mapping, merged cells read once, and
locators ``{"sheet", "row", "cells": "Sheet1!A7:D7"}`` with per-cell ``cell_refs``.

A cell's text is what the sheet shows (its ``text:p`` paragraphs), else its
``office:value``. Budget: ODF compresses runs with ``number-rows-repeated`` and
``number-columns-repeated`` (a blank row repeated a million times to the sheet's end is
normal); blank repeats only move the position, while a repeated *written* cell counts as
many cells as it repeats, and a merged area by its size, against ``max_sheet_cells`` (as
``xlsx_scan`` counts an XLSX sheet). Cell text is walked with an explicit stack held to
``max_depth``. A password-protected file is ``ENCRYPTED``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import Any
from xml.etree.ElementTree import Element

from citewise.errors import BrokenFile, EmptyFile, Encrypted, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget, limit_error
from citewise.ingest.office import TextBuilder, broken, one_line, parse_xml_part
from citewise.ingest.sheet_tables import Area, Sheet, read_sheet
from citewise.ingest.tree import Heading, RawNode, nest_sections
from citewise.ingest.zipbudget import open_package

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
_ROW_GROUPS = frozenset(
    {f"{TABLE}table-header-rows", f"{TABLE}table-rows", f"{TABLE}table-row-group"}
)
_DRAW_NS = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_CELLS = (f"{TABLE}table-cell", f"{TABLE}covered-table-cell")


def text_of(el: Element, budget: ParseBudget, drawings: bool = True) -> str:
    """The text of an ODF element, paragraphs joined by a space (``text:s`` is one
    space, tabs and line breaks are spaces; notes' bodies are left out, and shapes
    inside it unless ``drawings``: a chart anchored in a cell is not the cell's value).
    Walked with an explicit stack, its depth told to the budget (``max_depth``)."""
    parts: list[str] = []
    stack: list[tuple[Element | str, int]] = [(el, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):  # a tail queued after its element's children
            parts.append(node)
            continue
        budget.step()
        budget.depth(depth)
        tag = node.tag
        if tag == f"{TEXT}s" or tag in (f"{TEXT}tab", f"{TEXT}line-break"):
            parts.append(" ")
        elif tag == f"{TEXT}note" or (depth and not drawings and tag.startswith(_DRAW_NS)):
            pass
        else:
            if tag in (f"{TEXT}p", f"{TEXT}h"):
                parts.append(" ")
            parts.append(node.text or "")
            for child in reversed(list(node)):
                if child.tail:
                    stack.append((child.tail, depth))
                stack.append((child, depth + 1))
    return one_line("".join(parts))


def _int(el: Element, attr: str) -> int:
    return max(1, int(el.get(f"{TABLE}{attr}", "1")))


def _rows(el: Element) -> Iterator[Element]:
    """A table's rows in order, through header-row, row and row-group wrappers."""
    for child in el:
        if child.tag == f"{TABLE}table-row":
            yield child
        elif child.tag in _ROW_GROUPS:
            yield from _rows(child)


class _SheetReader:
    def __init__(self, name: str, budget: ParseBudget) -> None:
        self.name, self.budget = name, budget
        self.count = 0

    def charge(self, cells: int, sheet: str) -> None:
        self.count += cells
        cap = self.budget.limits.max_sheet_cells
        if self.count > cap:
            raise limit_error(
                self.name,
                f"sheet {sheet!r} (more than {cap:,} cells, repeated and merged cells "
                "counted by area)",
                "max_sheet_cells",
                cap,
            )

    def sheet(self, table: Element) -> Sheet:
        name = table.get(f"{TABLE}name") or "Sheet"
        self.count = 0
        cells: dict[tuple[int, int], str] = {}
        merges: list[Area] = []
        r = 0
        for row in _rows(table):
            rows = _int(row, "number-rows-repeated")
            c = 0
            for cell in row:
                if cell.tag not in _CELLS:
                    continue
                cols = _int(cell, "number-columns-repeated")
                text = self.value(cell) if cell.tag == _CELLS[0] else ""
                if text:
                    self.charge(rows * cols, name)
                    span_c = _int(cell, "number-columns-spanned")
                    span_r = _int(cell, "number-rows-spanned")
                    for rr in range(r, r + rows):
                        for cc in range(c, c + cols):
                            cells[(rr, cc)] = text
                            if span_c > 1 or span_r > 1:
                                self.charge(span_c * span_r, name)
                                merges.append((rr, cc, rr + span_r - 1, cc + span_c - 1))
                c += cols
            r += rows
        return Sheet(name, cells, merges)

    def value(self, cell: Element) -> str:
        text = text_of(cell, self.budget, drawings=False)
        if text:
            return text
        for attr in ("value", "date-value", "time-value", "boolean-value", "string-value"):
            found = cell.get(f"{OFFICE}{attr}")
            if found:
                return one_line(found)
        return ""


def check_encrypted(z: zipfile.ZipFile, name: str, kind: str) -> None:
    """``ENCRYPTED`` when the manifest declares encryption data (a password)."""
    if "META-INF/manifest.xml" not in z.namelist():
        return
    manifest = parse_xml_part(z.read("META-INF/manifest.xml"))
    if manifest is not None and manifest.find(f".//{MANIFEST}encryption-data") is not None:
        raise Encrypted(
            f"{name}: the {kind} file is password-protected (encrypted).",
            hint="Save a copy without a password and add that copy.",
        )


def body_of(z: zipfile.ZipFile, name: str, kind: str, part: str) -> Element:
    """``office:body/office:<part>`` of ``content.xml``; ``BROKEN_FILE`` if missing."""
    root = parse_xml_part(z.read("content.xml")) if "content.xml" in z.namelist() else None
    body = root.find(f"{OFFICE}body/{OFFICE}{part}") if root is not None else None
    if body is None:
        raise BrokenFile(
            f"{name}: the {kind} file has no readable {part} (content.xml).",
            hint=f"Check the file opens in an office suite, re-save it as {kind}, add it again.",
        )
    return body


def parse_ods(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    budget = budget or ParseBudget(name)
    z = open_package(raw, name, "ODS", budget)  # every member's size checked first
    try:
        check_encrypted(z, name, "ODS")
        body = body_of(z, name, "ODS", "spreadsheet")
        builder = TextBuilder(budget)
        reader = _SheetReader(name, budget)
        items: list[Heading | RawNode] = []
        sheets: list[str] = []
        for table in body.findall(f"{TABLE}table"):
            sheet = reader.sheet(table)
            sheets.append(sheet.name)
            items.extend(read_sheet(builder, sheet))
    except IngestError:
        raise
    except Exception as exc:  # a damaged member (zlib.error, ValueError ...)
        raise broken(name, "ODS", exc) from exc
    if not builder.length:
        raise EmptyFile(f"{name}: every sheet of the workbook is empty.", hint="Check the file.")
    text = builder.text
    meta: dict[str, Any] = {"sheets": sheets}
    return Extracted(text, nest_sections(text, items), None, meta)


__all__ = ["body_of", "check_encrypted", "parse_ods", "text_of"]
