"""Tables on one spreadsheet sheet (XLSX and ODS alike), from its written cells.

A sheet often holds several tables side by side or one above another. The cells are
split into blocks before any header is chosen:

- **defined tables** (Excel's ``ws.tables``; an area the author named) are blocks as
  declared, their first row the header when the table declares one;
- the remaining cells are cut recursively at **blank rows and blank columns** (an X-Y
  cut: a band of rows with no written cell between two groups of rows splits them, then
  each part is cut at blank columns, and so on). A part below a blank spacer row that
  has exactly the columns of the part above and starts with a number (data, not a
  header) is joined back to it: a spacer inside one table does not make two.

Each block is then read like a table: leading rows holding one distinct value while the
block has several columns are title rows (paragraphs, "Stanley Cups" merged over the
table); the next row is the header; a header cell merged across columns is a group over
the sub-headers in the row below (``Group / Sub``). Every later non-empty row is a
``table_row`` with the header mapping, as CSV and Markdown rows have (see
:func:`citewise.ingest.office.table_node`).

Merged cells are read once: the value belongs to the range's top-left cell, the text
shows it once (on the top-left cell's row), ``attrs["merged"]`` records the range by
column name (``{"Region": "B7:B9"}``) and the cell's ``cell_refs`` entry names the
top-left cell; the header mapping of each row the range covers still carries the value
(a row's cells keep their column header and their row label).

Locators: a row's ``{"sheet", "row" (1-based), "cells": "Sheet1!A7:D7"}`` plus
``attrs["cell_refs"]`` (``{"Price": "Sheet1!C7"}``) and ``attrs["cell_spans"]`` (each
cell's range in the extracted text), from which :mod:`citewise.core.locator` names the
cells a citation touches (``cells: "Sheet1!C7"``); a table's locator spans the block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from citewise.ingest.delimited import column_letter
from citewise.ingest.limits import ParseBudget
from citewise.ingest.office import TextBuilder, table_node
from citewise.ingest.tree import Heading, RawNode

_PLAIN_SHEET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NUMBER = re.compile(r"^[-+(]?[$€£¥]?\d[\d,.\s]*%?\)?$")

#: (first row, first column, last row, last column), 0-based and inclusive.
Area = tuple[int, int, int, int]


@dataclass(slots=True)
class Sheet:
    """One sheet's written cells (0-based ``(row, col) -> text``, merged ranges' values
    at their top-left cell only), its merged areas and its defined tables
    ``(name, area, header rows)``."""

    name: str
    cells: dict[tuple[int, int], str]  # non-empty texts only
    merges: list[Area] = field(default_factory=list)
    defined: list[tuple[str, Area, int]] = field(default_factory=list)


def quoted(sheet: str) -> str:
    """The sheet name as a reference writes it (quoted when it is not a plain name)."""
    return sheet if _PLAIN_SHEET.match(sheet) else "'" + sheet.replace("'", "''") + "'"


def ref(
    sheet: str, row: int, first_col: int, last_col: int | None = None, last_row: int = -1
) -> str:
    """``Sheet1!C7`` or ``Sheet1!A7:D7`` from 0-based indexes."""
    a = f"{column_letter(first_col)}{row + 1}"
    lc = first_col if last_col is None else last_col
    lr = row if last_row < 0 else last_row
    b = f"{column_letter(lc)}{lr + 1}"
    return f"{quoted(sheet)}!{a}" if a == b else f"{quoted(sheet)}!{a}:{b}"


def _split(cells: set[tuple[int, int]], axis: int) -> list[set[tuple[int, int]]]:
    """Groups of ``cells`` separated by at least one empty row (axis 0) or column (1)."""
    keys = sorted({c[axis] for c in cells})
    group_of: dict[int, int] = {}
    group = 0
    for prev, key in zip([keys[0], *keys], keys, strict=False):
        group += key > prev + 1
        group_of[key] = group
    out: list[set[tuple[int, int]]] = [set() for _ in range(group + 1)]
    for c in cells:
        out[group_of[c[axis]]].add(c)
    return out


def _xy_cut(cells: set[tuple[int, int]], depth: int = 0) -> Iterator[set[tuple[int, int]]]:
    """Blocks of cells separated by blank rows, then blank columns, recursively (the
    depth is bounded: each level splits at least one group in two)."""
    rows = _split(cells, 0)
    parts = rows if len(rows) > 1 else _split(cells, 1)
    if len(parts) == 1 or depth > 64:
        yield cells
        return
    for part in parts:
        yield from _xy_cut(part, depth + 1)


def _area(cells: set[tuple[int, int]]) -> Area:
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return min(rows), min(cols), max(rows), max(cols)


Part = tuple[Area, set[tuple[int, int]]]
#: Defined tables read per sheet (each costs a pass over the sheet's cells; real
#: workbooks name a handful, a hostile one could name thousands).
MAX_DEFINED = 200


def _join_spacers(parts: list[Part], text: dict[tuple[int, int], str]) -> list[Part]:
    """Rejoin a block split off by a blank spacer row: same columns as the block above,
    and its first row holds a number (data rows, not a new header)."""
    out: list[Part] = []
    for b, cells in sorted(parts, key=lambda p: p[0]):
        prev = out[-1][0] if out else None
        first = [text.get((b[0], c), "") for c in range(b[1], b[3] + 1)]
        if (
            prev is not None
            and (prev[1], prev[3]) == (b[1], b[3])
            and prev[2] < b[0]
            and any(_NUMBER.match(v) for v in first if v)
        ):
            out[-1] = ((prev[0], prev[1], b[2], prev[3]), out[-1][1] | cells)
        else:
            out.append((b, cells))
    return out


def blocks(
    sheet: Sheet, budget: ParseBudget | None = None
) -> list[tuple[Area, int, str | None, set[tuple[int, int]]]]:
    """The sheet's tables in reading order: ``(area, header rows (-1: find them),
    defined table name, the written cells it holds)``. Each cell is a step of
    ``budget`` (its time limit), its defined tables looked through at most
    :data:`MAX_DEFINED` apiece."""
    defined = sheet.defined[:MAX_DEFINED]
    members: list[set[tuple[int, int]]] = [set() for _ in defined]
    covered: set[tuple[int, int]] = set()
    for r, c in sheet.cells:
        if budget is not None:
            budget.step()
        at = next((i for i, d in enumerate(defined) if _holds(d[1], r, c)), -1)
        (members[at] if at >= 0 else covered).add((r, c))
    found: list[tuple[Area, int, str | None, set[tuple[int, int]]]] = [
        (a, h, n, m) for (n, a, h), m in zip(defined, members, strict=True)
    ]
    spread = set(covered)
    for r0, c0, r1, c1 in sheet.merges:  # a merged area joins what it spans
        if (r0, c0) in covered:
            spread.update((r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
    parts = [(_area(p), p & covered) for p in _xy_cut(spread)] if spread else []
    found += [(a, -1, None, m) for a, m in _join_spacers(parts, sheet.cells) if m]
    return sorted(found, key=lambda t: (t[0][0], t[0][1]))


def _holds(area: Area, r: int, c: int) -> bool:
    return area[0] <= r <= area[2] and area[1] <= c <= area[3]


def _filled(
    sheet: Sheet, area: Area, members: set[tuple[int, int]], merges: dict[tuple[int, int], Area]
) -> tuple[dict[int, dict[int, str]], dict[tuple[int, int], Area]]:
    """Rows of the block with merged values filled in (within its area), and each
    filled cell's merge."""
    grid: dict[int, dict[int, str]] = {}
    owner: dict[tuple[int, int], Area] = {}
    for r, c in members:
        value = sheet.cells[(r, c)]
        grid.setdefault(r, {})[c] = value
        m = merges.get((r, c))
        if m is None:
            continue
        for rr in range(r, min(m[2], area[2]) + 1):
            for cc in range(c, min(m[3], area[3]) + 1):
                grid.setdefault(rr, {})[cc] = value
                owner[(rr, cc)] = m
    return grid, owner


@dataclass(slots=True)
class _Block:
    sheet: Sheet
    area: Area
    header_rows: int
    name: str | None
    members: set[tuple[int, int]]
    merges: dict[tuple[int, int], Area]
    grid: dict[int, dict[int, str]] = field(default_factory=dict)
    owner: dict[tuple[int, int], Area] = field(default_factory=dict)

    cols: list[int] = field(default_factory=list)

    def row_ref(self, r: int) -> str:
        return ref(self.sheet.name, r, self.cols[0], self.cols[-1])


def _title_rows(b: _Block, used: list[int]) -> int:
    if b.header_rows >= 0 or len(b.cols) < 2:
        return 0
    k = 0
    while k < len(used) - 1 and len(set(b.grid[used[k]].values())) <= 1:
        k += 1
    return k


def _header(b: _Block, header_row: int) -> tuple[list[str], int]:
    """Column names and the first body row (after a sub-header row)."""
    header = [b.grid.get(header_row, {}).get(c, "") for c in b.cols]
    wide = any(m[0] == header_row and m[3] > m[1] for m in b.owner.values())
    if b.header_rows < 0 and wide and header_row + 1 <= b.area[2]:
        sub = [b.grid.get(header_row + 1, {}).get(c, "") for c in b.cols]
        header = [
            h if not s or s == h else (f"{h} / {s}" if h else s)
            for h, s in zip(header, sub, strict=True)
        ]
        return header, header_row + 2
    return header, header_row + 1


def _row_attrs(b: _Block, r: int, names: list[str]) -> dict[str, Any]:
    refs: dict[str, str] = {}
    merged: dict[str, str] = {}
    for name, c in zip(names, b.cols, strict=False):
        m = b.owner.get((r, c))
        if m is None:
            refs[name] = ref(b.sheet.name, r, c)
        else:
            refs[name] = ref(b.sheet.name, m[0], m[1])
            merged[name] = ref(b.sheet.name, m[0], m[1], m[3], m[2])
    return {"cell_refs": refs, "merged": merged} if merged else {"cell_refs": refs}


def _shown(b: _Block, r: int) -> list[str]:
    """A row as the text shows it: a merged value on its top-left cell only."""
    out = []
    for c in b.cols:
        m = b.owner.get((r, c))
        out.append("" if m is not None and (m[0], m[1]) != (r, c) else b.grid.get(r, {}).get(c, ""))
    return out


def _spans(start: int, cells: list[str]) -> list[list[int]]:
    spans, at = [], start
    for cell in cells:
        spans.append([at, at + len(cell)])
        at += len(cell) + 3  # " | "
    return spans


def read_block(builder: TextBuilder, b: _Block) -> list[RawNode]:
    """The block's title paragraphs and its table node (see the module docstring)."""
    b.grid, b.owner = _filled(b.sheet, b.area, b.members, b.merges)
    used = sorted(r for r, row in b.grid.items() if row)
    if not used:
        return []
    # the columns holding a value of their own (a title merged wider adds none)
    own = [c for _, c in b.members]
    b.cols = list(range(min(own), max(own) + 1))
    out: list[RawNode] = []
    k = _title_rows(b, used)
    if b.header_rows < 0 and len(used) == 1:  # one row on its own: a caption or a note
        k = 1
    for r in used[:k]:
        text = " ".join(dict.fromkeys(b.grid[r][c] for c in sorted(b.grid[r])))
        s, e = builder.block(text)
        loc = {"sheet": b.sheet.name, "row": r + 1, "cells": b.row_ref(r)}
        out.append(RawNode("paragraph", s, e, text, attrs={"locator": loc}))
    if k >= len(used):
        return out
    has_header = b.header_rows != 0
    header, body_from = _header(b, used[k]) if has_header else ([], used[k])
    body = [r for r in used[k:] if r >= body_from]
    if not body and not has_header:
        return out
    rows = [[b.grid[r].get(c, "") for c in b.cols] for r in body]
    shown = [_shown(b, r) for r in body]
    locs = [{"sheet": b.sheet.name, "row": r + 1, "cells": b.row_ref(r)} for r in body]
    table_loc = {
        "sheet": b.sheet.name,
        "row": used[k] + 1,
        "cells": ref(b.sheet.name, used[k], b.cols[0], b.cols[-1], used[-1]),
    }
    if b.name:
        table_loc["table_name"] = b.name
    display = [header, *shown] if has_header else shown
    node = table_node(builder, header if has_header else None, rows, table_loc, locs, display)
    if node is None:
        return out
    for child, r, cells in zip(node.children, body, shown, strict=True):  # no empty rows
        child.attrs.update(_row_attrs(b, r, list(child.attrs["header"])))
        child.attrs["cell_spans"] = _spans(child.char_start, cells)
    out.append(node)
    return out


def read_sheet(builder: TextBuilder, sheet: Sheet) -> list[Heading | RawNode]:
    """A sheet section (headed by its name) holding each of its tables in order."""
    if not any(sheet.cells.values()):
        return []
    s, e = builder.block(sheet.name)
    items: list[Heading | RawNode] = [Heading(1, s, e, sheet.name)]
    merges = {(m[0], m[1]): m for m in sheet.merges}
    for area, header_rows, name, members in blocks(sheet, builder.budget):
        items.extend(read_block(builder, _Block(sheet, area, header_rows, name, members, merges)))
    return items


__all__ = ["Area", "Sheet", "blocks", "quoted", "read_block", "read_sheet", "ref"]
