"""XLSX -> extracted text + :class:`RawNode` tree, with openpyxl.

Each sheet is a section titled with its name, holding the sheet's tables as
:mod:`citewise.ingest.sheet_tables` finds them (Excel defined tables, then blocks cut at
blank rows and columns; title rows, header mapping, merged cells read once, per-cell
locators ``Sheet1!C7``). Cells are read with ``data_only=True`` (the cached values,
never formulas). The workbook is opened in full mode, not ``read_only``: merged-cell
ranges and defined tables are only known there. Full mode makes an object per cell a
merged range covers, so the package is size-checked (``zipbudget``) and each sheet's
cells, merged areas included, counted from its XML (``xlsx_scan``, ``max_sheet_cells``)
before openpyxl sees it; the grid is then read sparsely, written cells only.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

from citewise.errors import EmptyFile, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget
from citewise.ingest.office import TextBuilder, broken, check_container, one_line
from citewise.ingest.sheet_tables import Area, Sheet, read_sheet, ref
from citewise.ingest.tree import Heading, RawNode, nest_sections
from citewise.ingest.xlsx_scan import check_sheets
from citewise.ingest.zipbudget import open_package


def _show(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return one_line(str(value))


def sheet_ref(sheet: str, first_col: int, row: int, last_col: int) -> str:
    """``Sheet1!A7:D7`` from 1-based indexes (the sheet name quoted when it needs it)."""
    return ref(sheet, row - 1, first_col - 1, last_col - 1)


def _area(text: str) -> Area | None:
    """A range such as ``B2:D9`` as a 0-based area (None if unreadable)."""
    from openpyxl.utils.cell import range_boundaries

    try:
        c0, r0, c1, r1 = range_boundaries(text)
    except (ValueError, TypeError):
        return None
    if None in (c0, r0, c1, r1):
        return None
    return int(r0) - 1, int(c0) - 1, int(r1) - 1, int(c1) - 1


def read_ws(ws: Any) -> Sheet:
    """A worksheet's written cells, merged areas and defined tables. Sparse: only
    written cells are visited, never the rectangle between the sheet's corners (cells
    at A1 and XFD1048576 are two cells, not 17 billion)."""
    cells: dict[tuple[int, int], str] = {}
    for (r, c), cell in ws._cells.items():  # openpyxl's own map of written cells
        text = _show(cell.value)
        if text:
            cells[(r - 1, c - 1)] = text
    merges = [
        (m.min_row - 1, m.min_col - 1, m.max_row - 1, m.max_col - 1)
        for m in ws.merged_cells.ranges  # areas held to max_sheet_cells (xlsx_scan)
    ]
    defined: list[tuple[str, Area, int]] = []
    for table in getattr(ws, "tables", {}).values():
        area = _area(str(table.ref))
        if area is not None:
            header = table.headerRowCount
            defined.append(
                (str(table.displayName or table.name), area, 1 if header is None else int(header))
            )
    return Sheet(ws.title, cells, merges, defined)


def parse_xlsx(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    check_container(raw, name, "XLSX")
    budget = budget or ParseBudget(name)
    check_sheets(open_package(raw, name, "XLSX", budget), name, budget)
    try:
        from openpyxl import load_workbook

        wb = load_workbook(io.BytesIO(raw), data_only=True)
        builder = TextBuilder(budget)
        items: list[Heading | RawNode] = []
        sheets = []
        for ws in wb.worksheets:
            sheets.append(ws.title)
            items.extend(read_sheet(builder, read_ws(ws)))
    except IngestError:
        raise
    except Exception as exc:  # openpyxl raises KeyError, ValueError, InvalidFileException ...
        raise broken(name, "XLSX", exc) from exc
    if not builder.length:
        raise EmptyFile(f"{name}: every sheet of the workbook is empty.", hint="Check the file.")
    text = builder.text
    return Extracted(text, nest_sections(text, items), None, {"sheets": sheets})
