"""Office formats (DOCX, XLSX, PPTX): exact excerpts into the extracted text, locators
(paragraph, table row, sheet cells, slide), header mapping, footnotes and notes, bad files
failing with their named error, and `ask` citing the right place."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from citewise.config import IngestConfig
from citewise.core.records import Node, ParsedDocument
from citewise.errors import BrokenFile, Encrypted
from citewise.ingest.parse import parse_document
from citewise.kb import Home

FIXTURES = Path(__file__).parent / "fixtures" / "documents" / "office"


def _parse(name: str, raw: bytes | None = None) -> ParsedDocument:
    data = raw if raw is not None else (FIXTURES / name).read_bytes()
    doc = parse_document(data, name=name, kb="kb", doc_path=name, config=IngestConfig())
    for n in doc.nodes:  # every excerpt is the extracted text at its offsets
        assert doc.text[n.char_start : n.char_end] == n.text
    return doc


def _loc(n: Node) -> dict[str, object]:
    loc = n.attrs.get("locator")
    assert isinstance(loc, dict), n
    return loc


def test_docx_tables_rows_map_headers_and_merged_cells() -> None:
    doc = _parse("word_tables.docx")
    assert doc.format == "docx" and doc.title == "Test with tables"
    para = next(n for n in doc.nodes if n.text == "A uniform table")
    assert _loc(para) == {"paragraph": 1}
    assert para.heading_path == ("Test with tables",)
    tables = [n for n in doc.nodes if n.kind == "table"]
    assert _loc(tables[0]) == {"table": 0}
    rows = [n for n in doc.nodes if n.kind == "table_row" and n.parent_id == tables[0].id]
    assert rows[0].text == "Cell 1.0 | Cell 1.1 | Cell 1.2"
    assert _loc(rows[0]) == {"table": 0, "row": 1}
    assert rows[0].attrs["row"] == {
        "Header 0.0": "Cell 1.0",
        "Header 0.1": "Cell 1.1",
        "Header 0.2": "Cell 1.2",
    }
    assert rows[0].search_text.startswith("Header 0.0: Cell 1.0; Header 0.1: Cell 1.1")
    # horizontal merge: shown once in the line, mapped to every column it spans
    merged = next(n for n in doc.nodes if n.text == "Cell 1.0 | Merged Cell 1.1 1.2")
    assert merged.attrs["row"]["Header 0.2"] == "Merged Cell 1.1 1.2"
    # vertical merge: the continuation row carries the merged value too
    below = next(n for n in doc.nodes if n.text == "Cell 2.0 | Merged Cell 1.1 2.1 | Cell 2.2")
    assert below.attrs["row"]["Header 0.1"] == "Merged Cell 1.1 2.1"


def test_docx_footnotes_and_endnotes_follow_their_reference() -> None:
    doc = _parse("docx2python-example-small.docx")
    texts = [n.text for n in doc.nodes if n.kind == "paragraph"]
    at = texts.index("Reference footnote 1")
    assert texts[at + 1] == "[footnote 1] First footnote"
    note = next(n for n in doc.nodes if n.text == "[endnote 2] Second endnote")
    ref = next(n for n in doc.nodes if n.text == "Reference endnote 2")
    assert _loc(note) == {"paragraph": _loc(ref)["paragraph"], "endnote": "2"}
    assert note.search_text == "Second endnote"
    assert {n.heading_path[-1] for n in doc.nodes if n.kind == "section"} == {
        "Heading 1",
        "Heading 2",
    }


def test_xlsx_title_rows_header_mapping_and_cell_addresses() -> None:
    doc = _parse("stanley-cups.xlsx")
    assert doc.format == "xlsx" and doc.metadata["sheets"] == [
        "Stanley Cups",
        "Stanley Cups Since 67",
    ]
    title = next(n for n in doc.nodes if n.kind == "paragraph")
    assert _loc(title) == {"sheet": "Stanley Cups", "row": 1, "cells": "'Stanley Cups'!A1:C1"}
    leafs = [n for n in doc.nodes if n.kind == "table_row" and n.text.startswith("Maple Leafs")]
    assert [n.heading_path for n in leafs] == [("Stanley Cups",), ("Stanley Cups Since 67",)]
    assert leafs[0].text == "Maple Leafs | TOR | 13"
    assert leafs[0].search_text == "Team: Maple Leafs; Location: TOR; Stanley Cups: 13"
    assert _loc(leafs[1]) == {
        "sheet": "Stanley Cups Since 67",
        "row": 5,
        "cells": "'Stanley Cups Since 67'!A5:C5",
    }


def test_xlsx_merged_group_header_combines_with_sub_headers() -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Fleet"
    ws.append(["Harbor fleet 2026"])
    ws.merge_cells("A1:C1")
    ws.append(["Vessel", "Tonnage", None])
    ws.merge_cells("B2:C2")
    ws.append([None, "gross", "net"])
    ws.append(["Aurora", 5100, 3200])
    buf = io.BytesIO()
    wb.save(buf)
    doc = _parse("fleet.xlsx", buf.getvalue())
    (row,) = [n for n in doc.nodes if n.kind == "table_row"]
    assert row.attrs["row"] == {
        "Vessel": "Aurora",
        "Tonnage / gross": "5100",
        "Tonnage / net": "3200",
    }
    assert _loc(row) == {"sheet": "Fleet", "row": 4, "cells": "Fleet!A4:C4"}


def test_bad_office_files_fail_with_their_named_error() -> None:
    with pytest.raises(BrokenFile, match=r"bad\.docx.*not a readable DOCX"):
        _parse("bad.docx", b"PK\x03\x04 truncated")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("hello.txt", "not an office file")
    with pytest.raises(BrokenFile, match=r"x\.xlsx: the XLSX file could not be read"):
        _parse("x.xlsx", zipped.getvalue())
    # an encrypted Office file is an OLE container with an EncryptionInfo stream
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500 + "EncryptionInfo".encode("utf-16-le")
    with pytest.raises(Encrypted) as err:
        _parse("secret.docx", ole)
    assert err.value.code == "ENCRYPTED" and "password" in str(err.value)
    with pytest.raises(BrokenFile, match="old binary Office file"):
        _parse("old.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500)


def test_ask_cites_the_docx_row_and_the_xlsx_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(FIXTURES / "stanley-cups.xlsx", corpus / "stanley-cups.xlsx")
    shutil.copy(FIXTURES / "word_tables.docx", corpus / "word_tables.docx")
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        report = kb.add([corpus])
        assert report.ok, report.files
        hit = kb.search("Maple Leafs TOR", mode="lexical").hits[0]
        assert hit.locator is not None and hit.locator["sheet"] in (
            "Stanley Cups",
            "Stanley Cups Since 67",
        )
        answer = kb.ask("Which location are the Maple Leafs in?")
        assert answer.outcome == "answered", answer.answer
        cited = answer.to_json()["citations"]
        docx_answer = kb.ask("What does the uniform table hold in Cell 2.1?")
        assert docx_answer.outcome == "answered", docx_answer.answer
        docx_cited = docx_answer.to_json()["citations"]
        for c in [*cited, *docx_cited]:
            stored = kb.store.get_document_text("default", c["doc_id"], c["version_id"])
            assert stored[c["char_start"] : c["char_end"]] == c["excerpt"]
            assert h.resolve(c["id"]).text == c["excerpt"]
        leafs = [c for c in cited if c["excerpt"].startswith("Maple Leafs | TOR")]
        assert {c["locator"]["cells"] for c in leafs} == {
            "'Stanley Cups'!A5:C5",
            "'Stanley Cups Since 67'!A5:C5",
        }
        rows = [c["locator"] for c in docx_cited if "Cell 2.1" in c["excerpt"]]
        assert rows and all("table" in loc and "row" in loc for loc in rows)
        json.dumps([*cited, *docx_cited])


def test_pptx_slides_titles_tables_and_speaker_notes() -> None:
    doc = _parse("powerpoint_sample.pptx")
    assert doc.format == "pptx" and doc.title == "Test Table Slide"
    assert doc.metadata["slides"] == 3
    sections = [n.text.split("\n")[0] for n in doc.nodes if n.kind == "section"]
    assert sections == ["Test Table Slide", "Second slide title", "Slide 3"]
    notes = [n for n in doc.nodes if n.attrs.get("notes")]
    assert (_loc(notes[0]), notes[0].heading_path) == (
        {"slide": 2, "notes": True},
        ("Second slide title",),
    )
    assert notes[0].text == "Some notes on the second slide."
    assert all(_loc(n) == {"slide": 3, "notes": True} for n in notes[1:])
    rect = next(n for n in doc.nodes if n.text == "A rectangle shape with this text inside.")
    assert _loc(rect) == {"slide": 2, "notes": False}
    row = next(n for n in doc.nodes if n.kind == "table_row" and n.text.startswith("R1 |"))
    assert _loc(row) == {"slide": 1, "notes": False, "table": 0, "row": 2}
    # a merged header cell names every column it spans
    assert row.attrs["header"][1:4] == ["Class1", "Class1 (3)", "Class1 (4)"]
