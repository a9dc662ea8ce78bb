"""ODS and ODP (issue 36): sheets read with the XLSX table logic (tables per sheet,
header mapping, merged cells once, per-cell locators), slides like PPTX (a section per
slide, ``slide N`` locators, notes), and hostile files stopped by the parse budgets
(zip bomb, repeated and spanned cells past ``max_sheet_cells``, deep XML)."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.config import IngestConfig, ParseLimits
from citewise.core.locator import locate, place
from citewise.core.records import Node, ParsedDocument
from citewise.errors import Encrypted, ParseLimitExceeded
from citewise.ingest.parse import parse_document

FIXTURES = Path(__file__).parent / "fixtures" / "converted"
NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"'
)


def _parse(
    name: str, raw: bytes | None = None, limits: ParseLimits | None = None
) -> ParsedDocument:
    data = raw if raw is not None else (FIXTURES / name).read_bytes()
    config = IngestConfig(limits=limits) if limits is not None else IngestConfig()
    doc = parse_document(data, name=name, kb="kb", doc_path=name, config=config)
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text
    return doc


def _package(kind: str, body: str, manifest: str = "") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), f"application/vnd.oasis.opendocument.{kind}")
        z.writestr("META-INF/manifest.xml", manifest or "<manifest/>")
        part = "spreadsheet" if kind == "spreadsheet" else "presentation"
        z.writestr(
            "content.xml",
            f'<?xml version="1.0"?><office:document-content {NS}><office:body>'
            f"<office:{part}>{body}</office:{part}></office:body></office:document-content>",
        )
    return buf.getvalue()


def _sheet(rows: str, name: str = "Data") -> bytes:
    return _package("spreadsheet", f'<table:table table:name="{name}">{rows}</table:table>')


def _row(*cells: str, repeat: int = 1) -> str:
    inner = "".join(f"<table:table-cell><text:p>{c}</text:p></table:table-cell>" for c in cells)
    return f'<table:table-row table:number-rows-repeated="{repeat}">{inner}</table:table-row>'


# -- ODS -----------------------------------------------------------------------------------
def test_ods_title_row_header_mapping_and_cell_locator() -> None:
    doc = _parse("stanley-cups.ods")
    assert doc.format == "ods" and doc.metadata["sheets"] == [
        "Stanley Cups",
        "Stanley Cups Since 67",
    ]
    title = next(n for n in doc.nodes if n.kind == "paragraph")
    assert title.text == "Stanley Cups" and title.attrs["locator"]["row"] == 1
    row = next(n for n in doc.nodes if n.kind == "table_row" and n.text == "Maple Leafs | TOR | 13")
    assert row.attrs["row"] == {"Team": "Maple Leafs", "Location": "TOR", "Stanley Cups": "13"}
    assert row.heading_path == ("Stanley Cups",)
    at = row.char_start + row.text.index("13")
    loc = locate(doc.nodes, at, at + 2)
    assert loc is not None and place(loc) == "'Stanley Cups'!C5"
    assert loc["columns"] == ["Stanley Cups"]


def test_ods_finds_the_same_tables_as_the_xlsx_it_was_saved_from() -> None:
    ods = _parse("xlsx_01.ods")
    xlsx = _parse(
        "xlsx_01.xlsx", (FIXTURES.parent / "documents" / "office" / "xlsx_01.xlsx").read_bytes()
    )

    def areas(doc: ParsedDocument) -> list[str]:
        return [n.attrs["locator"]["cells"] for n in doc.nodes if n.kind == "table"]

    assert areas(ods) == areas(xlsx)
    assert "Chart type" not in ods.text  # a chart anchored in a cell is not its value
    merged = [n for n in ods.nodes if n.kind == "table_row" and n.attrs.get("merged")]
    assert merged and all(n.attrs["locator"]["sheet"] == "Sheet3" for n in merged)


def test_ods_repeated_blank_rows_cost_nothing_and_values_keep_their_address() -> None:
    rows = _row("Port", "Ships") + '<table:table-row table:number-rows-repeated="1048570"/>'
    rows += _row("Bergen", "12")
    started = time.monotonic()
    doc = _parse("far.ods", _sheet(rows))
    assert time.monotonic() - started < 5
    row = next(n for n in doc.nodes if n.kind == "table_row")
    assert row.attrs["locator"]["cells"] == "Data!A1048572:B1048572"


def test_ods_repeated_written_cells_are_counted_against_the_sheet_cap() -> None:
    rows = _row("Port", "Ships") + _row("x", "1", repeat=1_000_000)
    with pytest.raises(ParseLimitExceeded, match="max_sheet_cells"):
        _parse("rep.ods", _sheet(rows), ParseLimits(max_sheet_cells=10_000))


def test_ods_a_huge_merged_area_is_counted_by_its_size() -> None:
    cell = (
        '<table:table-cell table:number-columns-spanned="16384" '
        'table:number-rows-spanned="1048576"><text:p>all</text:p></table:table-cell>'
    )
    with pytest.raises(ParseLimitExceeded, match="max_sheet_cells"):
        _parse("span.ods", _sheet(f"<table:table-row>{cell}</table:table-row>"))


def test_ods_deep_xml_in_a_cell_stops_at_the_depth_limit() -> None:
    deep = "<text:span>" * 5000 + "x" + "</text:span>" * 5000
    with pytest.raises(ParseLimitExceeded, match="max_depth"):
        _parse("deep.ods", _sheet(_row("Head") + _row(deep)))


def test_ods_zip_bomb_is_refused_before_parsing() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", b"<a>" + b" " * (300 * 1024 * 1024) + b"</a>")
    with pytest.raises(ParseLimitExceeded, match="max_zip"):
        _parse("bomb.ods", buf.getvalue())


def test_ods_encrypted_is_refused() -> None:
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        "<manifest:file-entry><manifest:encryption-data/></manifest:file-entry></manifest:manifest>"
    )
    raw = _package("spreadsheet", '<table:table table:name="S"/>', manifest)
    with pytest.raises(Encrypted):
        _parse("secret.ods", raw)


# -- ODP -----------------------------------------------------------------------------------
def _slides(doc: ParsedDocument) -> list[Node]:
    return [n for n in doc.nodes if n.kind == "section"]


def test_odp_slides_titles_lists_tables_and_notes() -> None:
    doc = _parse("powerpoint_sample.odp")
    assert doc.format == "odp" and doc.metadata["slides"] == 3
    assert [s.heading_path[-1] for s in _slides(doc)] == [
        "Test Table Slide",
        "Second slide title",
        "Slide 3",
    ]
    item = next(n for n in doc.nodes if n.text == "With foo")
    assert item.kind == "list_item" and item.attrs["locator"] == {"slide": 2, "notes": False}
    assert place(item.attrs["locator"]) == "slide 2"
    notes = [n for n in doc.nodes if n.attrs.get("notes")]
    assert [n.search_text for n in notes] == [
        "Some notes on the second slide.",
        "Final notes on the third slide. Second line of notes.",
    ]
    assert notes[0].attrs["locator"] == {"slide": 2, "notes": True}
    row = next(n for n in doc.nodes if n.kind == "table_row" and n.text.startswith("R1 |"))
    assert row.attrs["row"]["Class1"] == "True" and row.attrs["locator"]["slide"] == 1


def test_odp_deeply_nested_groups_stop_at_the_depth_limit() -> None:
    deep = (
        "<draw:g>" * 3000
        + "<draw:frame><draw:text-box><text:p>x</text:p></draw:text-box></draw:frame>"
        + "</draw:g>" * 3000
    )
    raw = _package("presentation", f'<draw:page draw:name="p1">{deep}</draw:page>')
    with pytest.raises(ParseLimitExceeded, match="max_depth"):
        _parse("deep.odp", raw)


def test_odp_slide_without_title_is_named_by_number() -> None:
    text = "<text:p>Pilots board at the buoy.</text:p>"
    frame = f"<draw:frame><draw:text-box>{text}</draw:text-box></draw:frame>"
    doc = _parse("one.odp", _package("presentation", f"<draw:page>{frame}</draw:page>"))
    assert doc.title == "Slide 1"
    para = next(n for n in doc.nodes if n.kind == "paragraph")
    assert para.text == "Pilots board at the buoy." and para.heading_path == ("Slide 1",)


# -- property: any grid of cells reads back at its addresses --------------------------------
def _grid_ods(cells: dict[tuple[int, int], str]) -> bytes:
    from xml.sax.saxutils import escape

    rows: list[str] = []
    last_row = -1
    for r in sorted({r for r, _ in cells}):
        if r > last_row + 1:  # blank rows between, compressed as ODF does
            rows.append(f'<table:table-row table:number-rows-repeated="{r - last_row - 1}"/>')
        inner, col = [], 0
        for c in sorted(c for rr, c in cells if rr == r):
            if c > col:
                inner.append(f'<table:table-cell table:number-columns-repeated="{c - col}"/>')
            inner.append(
                f"<table:table-cell><text:p>{escape(cells[(r, c)])}</text:p></table:table-cell>"
            )
            col = c + 1
        rows.append(f"<table:table-row>{''.join(inner)}</table:table-row>")
        last_row = r
    return _sheet("".join(rows))


def _address(ref: str) -> tuple[int, int]:
    from citewise.ingest.xlsx_scan import _cell

    found = _cell(ref.rsplit("!", 1)[-1])
    assert found is not None
    return found[1] - 1, found[0] - 1


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.tuples(st.integers(0, 12), st.integers(0, 6)),
        st.text(alphabet="ab1 <&>", min_size=1, max_size=4)
        .map(lambda s: " ".join(s.split()))
        .filter(bool),  # ODF collapses spaces
        min_size=1,
        max_size=30,
    )
)
def test_any_grid_reads_back_at_its_cell_addresses(cells: dict[tuple[int, int], str]) -> None:
    from citewise.ingest.ods import parse_ods

    ex = parse_ods(_grid_ods(cells), "grid.ods")
    for value in cells.values():
        assert value in ex.text

    def rows(nodes: list[Any]) -> Iterator[Any]:
        for n in nodes:
            if n.kind == "table_row":
                yield n
            yield from rows(n.children)

    for row in rows(ex.nodes):
        for name, ref in row.attrs["cell_refs"].items():
            value = row.attrs["row"].get(name, "")
            assert cells.get(_address(ref), "") == value
