"""CSV/TSV (ingest/delimited.py) and RTF (ingest/rtf.py) behind the format registry."""

from __future__ import annotations

import csv
import io
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.config import IngestConfig, ParseLimits
from citewise.core.locator import describe, locate
from citewise.core.records import Node, ParsedDocument
from citewise.errors import BrokenFile, IngestError, ParseLimitExceeded
from citewise.ingest.delimited import cell_spans, column_letter
from citewise.ingest.formats import format_for
from citewise.ingest.limits import ParseBudget
from citewise.ingest.parse import parse_document
from citewise.ingest.rtf import parse_rtf
from citewise.kb import Home

FIXTURES = Path(__file__).parent / "fixtures" / "formats"


def _parse(name: str, raw: bytes, config: IngestConfig | None = None) -> ParsedDocument:
    return parse_document(raw, name=name, kb="k", doc_path=name, config=config or IngestConfig())


def _rows(doc: ParsedDocument) -> list[Node]:
    return [n for n in doc.nodes if n.kind == "table_row"]


def test_registry_knows_the_new_formats() -> None:
    assert format_for("a.csv").name == "csv" and format_for("b.TSV").name == "csv"
    assert format_for("c.rtf").name == "rtf" and format_for("c.rtf").binary


def test_csv_rows_keep_their_header_mapping() -> None:
    doc = _parse("caps.csv", (FIXTURES / "us-state-capitals-area.csv").read_bytes())
    rows = _rows(doc)
    assert len(rows) == 13
    ga = next(r for r in rows if r.attrs["row"]["State"] == "Georgia")
    assert ga.attrs["row"] == {
        "State": "Georgia",
        "Capital": "Atlanta",
        "Admitted to the Union": "1788-01-02",
        "Land area (sq mi)": "57,513",
    }
    assert "Land area (sq mi): 57,513" in ga.search_text
    assert ga.attrs["locator"] == {"sheet": "caps", "row": 5, "line": 5, "cells": "A5:D5"}
    assert ga.attrs["cell_refs"]["Land area (sq mi)"] == "D5"


def test_csv_locators_slice_the_stored_text() -> None:
    raw = (FIXTURES / "us-state-capitals-area.csv").read_bytes()
    doc = _parse("caps.csv", raw)
    lines = raw.decode().splitlines()
    for row in _rows(doc):
        excerpt = doc.text[row.char_start : row.char_end]
        assert excerpt == lines[row.attrs["locator"]["line"] - 1]
        cells = [doc.text[s:e] for s, e in row.attrs["cell_spans"]]
        assert cells == row.attrs["cells"]


def test_tsv_and_a_quoted_line_break_and_a_sniffed_semicolon() -> None:
    doc = _parse("p.tsv", (FIXTURES / "nasa-planetary-facts.tsv").read_bytes())
    earth = next(r for r in _rows(doc) if r.attrs["row"]["Planet"] == "Earth")
    assert earth.attrs["row"]["Known moons"] == "1"
    raw = b'Item;Note;Price\nTea;"two\nlines";3\nCake;plain;5\n'
    doc = _parse("s.csv", raw)
    rows = _rows(doc)
    assert [r.attrs["row"]["Price"] for r in rows] == ["3", "5"]
    assert doc.text[rows[0].char_start : rows[0].char_end] == 'Tea;"two\nlines";3'
    assert rows[1].attrs["locator"]["line"] == 4 and rows[1].attrs["locator"]["row"] == 3


def test_csv_without_header_names_columns() -> None:
    raw = b"1,2,3\n4,5,6\n7,8,9\n"
    rows = _rows(_parse("n.csv", raw))
    assert rows[0].attrs["row"] == {"column 1": "1", "column 2": "2", "column 3": "3"}


def test_huge_csv_stops_at_the_node_budget_quickly() -> None:
    raw = ("a,b\n" + "1,2\n" * 200_000).encode()
    started = time.monotonic()
    with pytest.raises(ParseLimitExceeded, match="max_nodes"):
        _parse("big.csv", raw)
    assert time.monotonic() - started < 30
    small = IngestConfig(limits=ParseLimits(max_nodes=50))
    with pytest.raises(ParseLimitExceeded):
        _parse("mid.csv", ("a,b\n" + "1,2\n" * 60).encode(), small)


def test_csv_field_over_the_limit_is_a_parse_limit() -> None:
    raw = ('a,b\n"' + "x" * 200_000 + '",1\n').encode()
    with pytest.raises(ParseLimitExceeded, match="over 131,072"):
        _parse("long.csv", raw)


def test_column_letters() -> None:
    assert [column_letter(i) for i in (0, 25, 26, 701, 702)] == ["A", "Z", "AA", "ZZ", "AAA"]


@given(
    st.lists(st.lists(st.text(alphabet='ab ,"\n;', max_size=6), min_size=1, max_size=5), min_size=1)
)
def test_cell_spans_match_csv_fields(rows: list[list[str]]) -> None:
    for fields in rows:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow(fields)
        record = buf.getvalue()
        got = [record[s:e].replace('""', '"') for s, e in cell_spans(record, ",")]
        assert got == fields


def test_rtf_paragraphs_and_locators() -> None:
    doc = _parse("c.rtf", (FIXTURES / "constitution-preamble.rtf").read_bytes())
    assert "\\par" not in doc.text and "{" not in doc.text
    paras = [n for n in doc.nodes if n.kind == "paragraph"]
    pre = next(p for p in paras if "We the People" in doc.text[p.char_start : p.char_end])
    excerpt = doc.text[pre.char_start : pre.char_end]
    assert excerpt.startswith("Preamble\nWe the People of the United States")
    assert excerpt.endswith("for the United States of America.")


def test_rtf_escapes_are_decoded() -> None:
    raw = rb"{\rtf1\ansi Caf\'e9 costs 5\u8364? today.\par}"
    assert "Café costs 5€ today." in parse_rtf(raw, "e.rtf").text


def test_deep_rtf_groups_stop_at_the_depth_budget() -> None:
    raw = b"{\\rtf1 " + b"{" * 500_000 + b"x" + b"}" * 500_000 + b"}"
    started = time.monotonic()
    with pytest.raises(ParseLimitExceeded, match="max_depth"):
        parse_rtf(raw, "deep.rtf", ParseBudget("deep.rtf"))
    assert time.monotonic() - started < 10


def test_not_rtf_is_a_broken_file() -> None:
    with pytest.raises(BrokenFile, match="not an RTF file"):
        parse_rtf(b"hello", "x.rtf")


def test_a_citation_of_part_of_a_row_names_its_cells_and_columns() -> None:
    doc = _parse("caps.csv", (FIXTURES / "us-state-capitals-area.csv").read_bytes())
    ga = next(r for r in _rows(doc) if r.attrs["row"]["State"] == "Georgia")
    s, e = ga.attrs["cell_spans"][3]
    loc = locate(doc.nodes, s, e)
    assert loc is not None and loc["cells"] == "D5" and loc["columns"] == ["Land area (sq mi)"]
    assert describe(loc) == "Sheet 'caps' row 5, cells D5 (column \"Land area (sq mi)\")"
    whole = locate(doc.nodes, ga.char_start, ga.char_end)
    assert whole is not None and whole["cells"] == "A5:D5" and "columns" not in whole


def test_search_and_ask_cite_csv_rows_and_rtf_paragraphs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for f in FIXTURES.glob("*.*"):
        if f.suffix != ".md":
            shutil.copy(f, corpus / f.name)
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        report = kb.add([corpus])
        assert report.ok, report.files
        hit = kb.search("Georgia Atlanta land area", mode="lexical").hits[0]
        assert hit.locator is not None  # a chunk of several rows: one part per row
        assert "A5:D5" in {p["cells"] for p in hit.locator.get("parts", [hit.locator])}
        answer = kb.ask("What is the capital of Georgia?")
        assert answer.outcome == "answered", answer.answer
        rtf = kb.ask("How often are Members of the House of Representatives chosen?")
        assert rtf.outcome == "answered", rtf.answer
        cited = answer.to_json()["citations"] + rtf.to_json()["citations"]
        assert any("Atlanta" in c["excerpt"] for c in cited)
        assert any("every second Year" in c["excerpt"] for c in cited)
        for c in cited:
            stored = kb.store.get_document_text("default", c["doc_id"], c["version_id"])
            assert stored[c["char_start"] : c["char_end"]] == c["excerpt"]
            assert h.resolve(c["id"]).text == c["excerpt"]


@given(st.text(alphabet=st.sampled_from(list('ab1 ,;\t|"\n\r{}\\')), max_size=200))
def test_any_text_parses_or_fails_with_an_ingest_error(text: str) -> None:
    for name in ("p.csv", "p.tsv", "p.rtf"):
        raw = (("{\\rtf1 " + text + "}") if name.endswith(".rtf") else text).encode()
        try:
            doc = _parse(name, raw)
        except IngestError:
            continue
        for node in doc.nodes:
            assert 0 <= node.char_start <= node.char_end <= len(doc.text)


def test_rtf_info_title_is_the_document_title() -> None:
    doc = _parse("c.rtf", (FIXTURES / "constitution-preamble.rtf").read_bytes())
    assert doc.title == "The Constitution of the United States: Preamble and Article I"
