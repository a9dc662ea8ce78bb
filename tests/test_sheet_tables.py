"""Spreadsheet tables (issue 36): several tables per sheet (blank-row/column gaps,
Excel defined tables), header mapping, merged cells read once, per-cell locators that a
citation narrows to the cited cell."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.config import IngestConfig
from citewise.core.locator import locate, place
from citewise.core.records import Node, ParsedDocument
from citewise.ingest.parse import parse_document
from citewise.ingest.sheet_tables import Sheet, blocks, ref

FIXTURES = Path(__file__).parent / "fixtures" / "documents" / "office"


def _parse(name: str, raw: bytes | None = None) -> ParsedDocument:
    data = raw if raw is not None else (FIXTURES / name).read_bytes()
    doc = parse_document(data, name=name, kb="kb", doc_path=name, config=IngestConfig())
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text
    return doc


def _tables(doc: ParsedDocument, sheet: str) -> list[Node]:
    return [n for n in doc.nodes if n.kind == "table" and n.attrs["locator"]["sheet"] == sheet]


def _rows(doc: ParsedDocument, table: Node) -> list[Node]:
    return [n for n in doc.nodes if n.kind == "table_row" and n.parent_id == table.id]


def test_tables_side_by_side_and_below_are_separate() -> None:
    doc = _parse("xlsx_01.xlsx")
    cells = [t.attrs["locator"]["cells"] for t in _tables(doc, "Sheet2")]
    assert cells == ["Sheet2!A1:D9", "Sheet2!G5:I9", "Sheet2!C14:E18"]
    right = _rows(doc, _tables(doc, "Sheet2")[1])
    assert right[0].attrs["row"] == {"col-1": "1", "col-2": "2", "col-3": "3"}
    assert right[0].attrs["cell_refs"] == {
        "col-1": "Sheet2!G6",
        "col-2": "Sheet2!H6",
        "col-3": "Sheet2!I6",
    }
    assert len(_tables(doc, "Sheet3")) == 2


def test_a_citation_of_one_cell_names_that_cell() -> None:
    doc = _parse("xlsx_01.xlsx")
    row = _rows(doc, _tables(doc, "Sheet2")[1])[2]  # 3 | 6 | 9 at G8:I8
    assert row.text == "3 | 6 | 9"
    at = row.char_start + row.text.index("6")
    loc = locate(doc.nodes, at, at + 1)
    assert loc is not None and loc["cells"] == "Sheet2!H8" and loc["columns"] == ["col-2"]
    assert place(loc) == "Sheet2!H8"
    whole = locate(doc.nodes, row.char_start, row.char_end)
    assert whole is not None and whole["cells"] == "Sheet2!G8:I8"


def _workbook() -> bytes:
    from openpyxl import Workbook
    from openpyxl.worksheet.table import Table

    wb = Workbook()
    ws = wb.active
    ws.title = "Fleet 2024"
    for row in [
        ["Region", "Port", "Ships"],
        ["North", "Bergen", 12],
        [None, "Tromsø", 7],
        ["South", "Kristiansand", 5],
    ]:
        ws.append(row)
    ws.merge_cells("A2:A3")  # the region labels two rows
    ws.append([])
    ws.append(["South", "Arendal", 4])  # after a spacer row: the same table goes on
    # a defined table right beside it, no blank column between
    for r, values in enumerate([["Class", "Tonnage"], ["Ferry", 9000], ["Tug", 300]], start=1):
        for c, v in enumerate(values, start=4):
            ws.cell(row=r, column=c, value=v)
    ws.add_table(Table(displayName="Classes", ref="D1:E3"))
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_defined_tables_spacers_and_merged_cells() -> None:
    doc = _parse("fleet.xlsx", _workbook())
    tables = _tables(doc, "Fleet 2024")
    assert [t.attrs["locator"]["cells"] for t in tables] == [
        "'Fleet 2024'!A1:C6",
        "'Fleet 2024'!D1:E3",
    ]
    assert tables[1].attrs["locator"]["table_name"] == "Classes"
    assert [r.attrs["row"] for r in _rows(doc, tables[1])] == [
        {"Class": "Ferry", "Tonnage": "9000"},
        {"Class": "Tug", "Tonnage": "300"},
    ]
    rows = _rows(doc, tables[0])
    assert [r.text for r in rows] == [
        "North | Bergen | 12",
        " | Tromsø | 7",  # the merged label is read once, on its top-left cell
        "South | Kristiansand | 5",
        "South | Arendal | 4",
    ]
    # the row below still maps the label, and names the merged cell it comes from
    assert rows[1].attrs["row"]["Region"] == "North"
    assert rows[1].attrs["cell_refs"]["Region"] == "'Fleet 2024'!A2"
    assert rows[1].attrs["merged"] == {"Region": "'Fleet 2024'!A2:A3"}
    assert rows[3].attrs["locator"] == {
        "sheet": "Fleet 2024",
        "row": 6,
        "cells": "'Fleet 2024'!A6:C6",
    }
    at = rows[1].char_start + rows[1].text.index("Tromsø")
    loc = locate(doc.nodes, at, at + len("Tromsø"))
    assert loc is not None and loc["cells"] == "'Fleet 2024'!B3"


def test_ref_quotes_sheet_names_as_excel_does() -> None:
    assert ref("Sheet1", 6, 2) == "Sheet1!C7"
    assert ref("Q1 'north'", 0, 0, 3) == "'Q1 ''north'''!A1:D1"
    assert ref("S", 0, 0, 1, 4) == "S!A1:B5"


_cells = st.dictionaries(
    st.tuples(st.integers(0, 30), st.integers(0, 12)),
    st.sampled_from(["a", "1", "x y"]),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(_cells)
def test_every_written_cell_is_in_exactly_one_block(cells: dict[tuple[int, int], str]) -> None:
    found = blocks(Sheet("S", cells))
    seen = [c for *_, members in found for c in members]
    assert sorted(seen) == sorted(cells)
    for area, _, _, members in found:
        assert all(area[0] <= r <= area[2] and area[1] <= c <= area[3] for r, c in members)


def test_many_defined_tables_over_many_cells_stop_at_the_parse_time() -> None:
    """Each cell is looked up in the defined tables as a step of the budget: a sheet of
    hundreds of declared tables and a million cells fails on ``max_seconds``."""
    from citewise.config import ParseLimits
    from citewise.errors import ParseLimitExceeded
    from citewise.ingest.limits import ParseBudget

    defined = [(f"T{i}", (0, 1000 + i, 0, 1000 + i), 1) for i in range(500)]
    cells = {(r, c): "1" for r in range(1000) for c in range(1000)}
    budget = ParseBudget("many.xlsx", ParseLimits(max_seconds=0.3))
    started = time.monotonic()
    with pytest.raises(ParseLimitExceeded, match="max_seconds"):
        blocks(Sheet("S", cells, [], defined), budget)
    assert time.monotonic() - started < 10
