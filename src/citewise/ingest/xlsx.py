"""XLSX -> extracted text + :class:`RawNode` tree, with openpyxl.

Each sheet is a section titled with its name. Cells are read with ``data_only=True``
(the cached values, never formulas). The workbook is opened in full mode, not
``read_only``: merged-cell ranges, needed for merged titles and headers, are only known
there. Full mode makes an object per cell a merged range covers, so the package is
size-checked (``zipbudget``) and each sheet's cells, merged areas included, counted from
its XML (``xlsx_scan``, ``max_sheet_cells``) before openpyxl sees it; the grid is then
read sparsely, written cells only. A merged range's value fills every cell it covers.

Header detection per sheet: leading rows with a single filled cell while the sheet has
several columns (a merged title like "Stanley Cups") are title rows (paragraphs); the next
row is the header. When the header has cells merged across columns (a group header over
sub-headers), the row below holds the sub-headers and the names combine as
``Group / Sub``. Every later non-empty row is a ``table_row`` with its header mapping
(search text ``Header: value; ...``) and ``locator = {"sheet", "row" (1-based),
"cells": "Sheet1!A7:D7"}``.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from typing import Any

from citewise.errors import EmptyFile, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget
from citewise.ingest.office import TextBuilder, broken, check_container, one_line, table_node
from citewise.ingest.tree import Heading, RawNode, nest_sections
from citewise.ingest.xlsx_scan import check_sheets
from citewise.ingest.zipbudget import open_package

_PLAIN_SHEET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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
    """``Sheet1!A7:D7`` (the sheet name quoted as Excel does when it needs it)."""
    from openpyxl.utils import get_column_letter

    name = sheet if _PLAIN_SHEET.match(sheet) else "'" + sheet.replace("'", "''") + "'"
    a, b = get_column_letter(first_col), get_column_letter(last_col)
    return f"{name}!{a}{row}" if a == b else f"{name}!{a}{row}:{b}{row}"


Grid = dict[int, dict[int, str]]


def _grid(ws: Any) -> tuple[Grid, list[int], set[int]]:
    """Filled cells by 0-based row and column (merged ranges filled), the columns with a
    value of their own, and the rows holding a multi-column merge. Sparse: only written
    cells are visited, never the rectangle between the sheet's corners (cells at A1 and
    XFD1048576 are two cells, not 17 billion)."""
    grid: Grid = {}
    for (r, c), cell in ws._cells.items():  # openpyxl's own map of written cells
        text = _show(cell.value)
        if text:
            grid.setdefault(r - 1, {})[c - 1] = text
    cols = sorted({c for row in grid.values() for c in row})
    wide_merge_rows: set[int] = set()
    for rng in ws.merged_cells.ranges:  # areas held to max_sheet_cells (xlsx_scan)
        value = grid.get(rng.min_row - 1, {}).get(rng.min_col - 1, "")
        if rng.max_col > rng.min_col:
            wide_merge_rows.add(rng.min_row - 1)
        for r in range(rng.min_row - 1, rng.max_row):
            row = grid.setdefault(r, {}) if value else grid.get(r, {})
            for c in range(rng.min_col - 1, rng.max_col):
                if value:
                    row[c] = value
                else:
                    row.pop(c, None)
    return {r: row for r, row in grid.items() if row}, cols, wide_merge_rows


def _distinct(row: dict[int, str]) -> int:
    return len(set(row.values()))


def _sheet(builder: TextBuilder, name: str, ws: Any) -> list[Heading | RawNode]:
    grid, cols, wide = _grid(ws)
    used = sorted(grid)
    if not used:
        return []
    first, last = cols[0], cols[-1]
    s, e = builder.block(name)
    items: list[Heading | RawNode] = [Heading(1, s, e, name)]
    k = 0
    # title rows: one distinct filled value while the sheet has several columns
    while k < len(used) and len(cols) > 1 and _distinct(grid[used[k]]) <= 1:
        i = used[k]
        text = next(iter(grid[i].values()))
        s, e = builder.block(text)
        loc = {"sheet": name, "row": i + 1, "cells": sheet_ref(name, first + 1, i + 1, last + 1)}
        items.append(RawNode("paragraph", s, e, text, attrs={"locator": loc}))
        k += 1
    if k >= len(used):
        return items
    header_row = used[k]
    header = [grid[header_row].get(c, "") for c in cols]
    body_rows = used[k + 1 :]
    if header_row in wide and (body_rows or header_row + 1 in grid):
        # group header over sub-headers: the row right below (even an empty one) is read
        sub_row = grid.get(header_row + 1, {})
        sub = [sub_row.get(c, "") for c in cols]
        header = [
            h if not s_ or s_ == h else (f"{h} / {s_}" if h else s_)
            for h, s_ in zip(header, sub, strict=True)
        ]
        body_rows = [r for r in body_rows if r > header_row + 1]
    body: list[list[str]] = []
    locs: list[dict[str, Any]] = []
    for r in body_rows:
        cells = [grid[r].get(c, "") for c in cols]
        if not any(cells):
            continue
        body.append(cells)
        locs.append(
            {"sheet": name, "row": r + 1, "cells": sheet_ref(name, first + 1, r + 1, last + 1)}
        )
    table_loc = {
        "sheet": name,
        "row": header_row + 1,
        "cells": sheet_ref(name, first + 1, header_row + 1, last + 1),
    }
    node = table_node(builder, header, body, table_loc, locs)
    if node is not None:
        items.append(node)
    return items


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
            items.extend(_sheet(builder, ws.title, ws))
    except IngestError:
        raise
    except Exception as exc:  # openpyxl raises KeyError, ValueError, InvalidFileException ...
        raise broken(name, "XLSX", exc) from exc
    if not builder.length:
        raise EmptyFile(f"{name}: every sheet of the workbook is empty.", hint="Check the file.")
    text = builder.text
    return Extracted(text, nest_sections(text, items), None, {"sheets": sheets})
