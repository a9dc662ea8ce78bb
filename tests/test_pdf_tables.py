"""PDF tables with their columns (issue 36): a row's cells keep their column header, a
header printed on two lines is one header, a group header over several columns
prefixes each, and column headers printed above the table reach its rows."""

from __future__ import annotations

import itertools
import time

from hypothesis import given
from hypothesis import strategies as st

from citewise.config import IngestConfig
from citewise.core.records import Node, ParsedDocument
from citewise.ingest import pdf_columns as cols
from citewise.ingest.limits import ParseBudget
from citewise.ingest.parse import parse_document
from citewise.ingest.pdf import parse_pdf
from tests.pdf_build import Run, text_pdf

X = [72, 200, 270, 340, 410]  # the label column, then four figure columns


def _doc(raw: bytes) -> ParsedDocument:
    return parse_document(raw, name="t.pdf", kb="kb", doc_path="t.pdf", config=IngestConfig())


def _table_pdf() -> bytes:
    runs = [Run(72, 740, "Harbour traffic by berth", 14, bold=True)]
    # a group header over two columns each, then two-line column headers
    runs += [Run(215, 700, "Inbound", 9), Run(355, 700, "Outbound", 9)]
    for x, top, bottom in zip(X[1:], ["FY 2013", "FY 2014"] * 2, ["Actual"] * 4, strict=True):
        runs += [Run(x, 690, top, 9), Run(x, 681, bottom, 9)]
    runs.append(Run(72, 681, "Berth", 9))
    data = [("North quay", 118, 131, 120, 129), ("South quay", 97, 102, 95, 104)]
    data += [("Oil jetty", 41, 38, 40, 37), ("Ferry ramp", 1210, 1288, 1209, 1290)]
    for n, (name, *values) in enumerate(data):
        y = 670 - 11 * n
        runs.append(Run(72, y, name, 9))
        runs += [Run(x, y, f"{v:,}", 9) for x, v in zip(X[1:], values, strict=True)]
    return text_pdf([runs])


def _rows(doc: ParsedDocument) -> list[Node]:
    table = next(n for n in doc.nodes if n.kind == "table")
    return [n for n in doc.nodes if n.parent_id == table.id and n.kind == "table_row"]


def test_rows_map_each_cell_to_its_whole_column_header() -> None:
    doc = _doc(_table_pdf())
    rows = _rows(doc)
    south = next(r for r in rows if r.text.startswith("South quay"))
    assert south.attrs["row"] == {
        "Berth": "South quay",
        "Inbound FY 2013 Actual": "97",
        "Inbound FY 2014 Actual": "102",
        "Outbound FY 2013 Actual": "95",
        "Outbound FY 2014 Actual": "104",
    }
    assert "Outbound FY 2014 Actual: 104" in south.search_text
    ferry = next(r for r in rows if r.text.startswith("Ferry ramp"))
    assert ferry.attrs["row"]["Inbound FY 2014 Actual"] == "1,288"


def test_header_lines_are_not_rows_and_the_table_names_its_columns() -> None:
    doc = _doc(_table_pdf())
    table = next(n for n in doc.nodes if n.kind == "table")
    assert table.attrs["header"][0] == "Berth" and len(table.attrs["header"]) == 5
    assert [r.text.split()[0] for r in _rows(doc)] == ["North", "South", "Oil", "Ferry"]


def test_cells_split_at_wide_gaps_only() -> None:
    text = "Long Gun   1,178"
    xs = [(i * 5.0, i * 5.0 + 4.0) for i in range(len(text))]
    assert [c[0] for c in cols.cells(text, xs)] == ["Long Gun", "1,178"]


_CELL = st.tuples(st.sampled_from(["12", "3,400", "Actual", "FY 2013", "-"]), st.floats(0, 900))


@given(st.lists(st.lists(_CELL.map(lambda c: (c[0], c[1], c[1] + 20)), max_size=6), max_size=6))
def test_columns_never_overlap_and_every_row_maps_into_them(
    rows: list[list[tuple[str, float, float]]],
) -> None:
    spans = cols.columns(rows)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    names = cols.headers(rows[:1], spans)
    assert len(names) == len(spans) + 1
    for row in rows:
        _, values = cols.row_cells(row, spans)
        assert len(values) == len(spans)


def test_a_page_of_hundreds_of_small_tables_parses_under_the_budget() -> None:
    # hostile layout: every table reads the page's other paragraphs for its headers
    runs, y = [], 5000.0
    for _ in range(600):
        for _ in range(3):
            runs.append(Run(20, y, "Row 11 22 33 44", 4))
            y -= 4.5
        y -= 6
    raw = text_pdf([runs], size=(200, 5010))
    started = time.process_time()
    doc = parse_pdf(raw, "h.pdf", ParseBudget("h.pdf"))
    assert time.process_time() - started < 20  # about 0.4 s here
    assert sum(1 for n in doc.nodes if n.kind == "table") == 600
