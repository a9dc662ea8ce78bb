"""PDF ingest (pypdfium2): page locators with boxes, exact excerpts, furniture kept out of
chunks, encrypted/broken/scanned files, and a cited answer that names its page.

Fixtures in tests/fixtures/documents/pdf (licences in SOURCE.md there)."""

from __future__ import annotations

import difflib
import io
import json
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from citewise.config import IngestConfig
from citewise.core.locator import locate, locator_fields, place
from citewise.core.records import ParsedDocument
from citewise.errors import BrokenFile, Encrypted, NeedsOCR
from citewise.ingest.parse import parse_document
from citewise.kb import Home

FIXTURES = Path(__file__).parent / "fixtures" / "documents" / "pdf"


def _parse(name: str, raw: bytes | None = None) -> ParsedDocument:
    data = raw if raw is not None else (FIXTURES / name).read_bytes()
    return parse_document(data, name=name, kb="kb", doc_path=name, config=IngestConfig())


def _page_sizes(raw: bytes) -> list[tuple[float, float]]:
    pdf = pdfium.PdfDocument(raw)
    try:
        return [(pdf[i].get_width(), pdf[i].get_height()) for i in range(len(pdf))]
    finally:
        pdf.close()


def test_every_node_has_an_exact_page_locator_with_boxes_inside_its_page() -> None:
    raw = (FIXTURES / "multicolumn.pdf").read_bytes()
    doc = _parse("multicolumn.pdf")
    sizes = _page_sizes(raw)
    assert doc.format == "pdf" and doc.metadata["pages"] == 3 and doc.metadata["locators"]
    page_base: dict[int, int] = {}
    located = [n for n in doc.nodes if "locator" in n.attrs]
    assert len(located) >= 10
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text  # excerpt == extracted text
    for n in located:
        loc = n.attrs["locator"]
        assert 1 <= loc["page"] <= 3
        # one page offset per page: page ranges are the document ranges shifted
        base = page_base.setdefault(loc["page"], n.char_start - loc["page_char_start"])
        assert n.char_start - loc["page_char_start"] == base
        assert loc["page_char_end"] - loc["page_char_start"] == len(n.text)
        width, height = sizes[loc["page"] - 1]
        assert loc["boxes"]
        for x0, y0, x1, y1 in loc["boxes"]:
            assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
    assert sorted(page_base) == [1, 2, 3] and page_base[1] < page_base[2] < page_base[3]
    # the page numbers at the foot of every page are running furniture
    furniture = [(n.text, n.attrs["furniture"]) for n in doc.nodes if n.kind == "page_furniture"]
    assert furniture == [("1", "footer"), ("2", "footer"), ("3", "footer")]


def test_reading_order_hyphenation_and_search_form() -> None:
    doc = _parse("multicolumn.pdf")
    # the left column's first paragraph is read before the right column's text
    assert doc.text.index("Lorem ipsum dolor sit amet") < doc.text.index("Nam dui ligula")
    para = next(n for n in doc.nodes if n.kind == "paragraph" and "adip-\niscing" in n.text)
    assert "adipiscing" in para.search_text and "adip-" not in para.search_text


def test_running_furniture_is_stored_but_never_chunked() -> None:
    doc = _parse("dmca.pdf")  # encrypted with an empty user password: opens
    assert doc.metadata["pages"] == 18
    # a footnote mark raised above its line does not split the paragraph
    intro = next(n for n in doc.nodes if n.kind == "paragraph" and "signed into law" in n.text)
    assert "President Clinton" in intro.text and "into law by 1 President" in intro.search_text
    furniture = [n for n in doc.nodes if n.kind == "page_furniture"]
    assert len(furniture) >= 10
    assert all(n.attrs["furniture"] in ("header", "footer") for n in furniture)
    chunked = {nid for c in doc.chunks for nid in c.node_ids}
    assert not chunked & {n.id for n in furniture}
    assert chunked  # the body is chunked


def test_citation_locator_narrows_to_the_cited_lines() -> None:
    doc = _parse("multicolumn.pdf")
    para = next(n for n in doc.nodes if n.kind == "paragraph" and n.text.count("\n") >= 3)
    lines = para.attrs["line_boxes"]
    start, end = lines[1][0], lines[1][1]  # exactly the second line
    loc = locate(doc.nodes, start, end)
    assert loc is not None
    assert loc["boxes"] == [lines[1][2:6]]
    assert loc["page_char_end"] - loc["page_char_start"] == end - start
    # a range over two pages has one part per page
    first = next(n for n in doc.nodes if n.attrs.get("locator", {}).get("page") == 1)
    last = next(n for n in doc.nodes if n.attrs.get("locator", {}).get("page") == 2)
    both = locate(doc.nodes, first.char_start, last.char_end)
    assert both is not None and [p["page"] for p in both["parts"]] == [1, 2]


def test_encrypted_broken_and_scanned_files_fail_with_their_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CITEWISE_OCR", "off")  # as on a machine without Tesseract
    with pytest.raises(Encrypted, match="empty password") as enc:
        _parse("libreoffice-writer-password.pdf")
    assert enc.value.code == "ENCRYPTED"
    with pytest.raises(BrokenFile, match="not a readable PDF") as broken:
        _parse("invalid.pdf")
    assert broken.value.code == "BROKEN_FILE"
    with pytest.raises(NeedsOCR, match="no page has a text layer") as scanned:
        _parse("linn.pdf")
    assert scanned.value.code == "NEEDS_OCR"


def _with_scanned_page() -> bytes:
    """Page 1 of multicolumn.pdf plus a page holding only an image (no text layer)."""
    src = pdfium.PdfDocument((FIXTURES / "multicolumn.pdf").read_bytes())
    pdf = pdfium.PdfDocument.new()
    pdf.import_pages(src, [0])
    page = pdf.new_page(200, 200)
    image = pdfium.PdfImage.new(pdf)
    bitmap = pdfium.PdfBitmap.new_native(20, 20, pdfium.raw.FPDFBitmap_BGR)
    bitmap.fill_rect((0, 0, 0, 255), 0, 0, 20, 20)
    image.set_bitmap(bitmap)
    image.set_matrix(pdfium.PdfMatrix().scale(100, 100))
    page.insert_obj(image)
    page.gen_content()
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def test_pages_without_text_layer_are_reported_as_needs_ocr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_OCR", "off")  # as on a machine without Tesseract
    doc = _parse("mixed.pdf", _with_scanned_page())
    assert doc.metadata["needs_ocr"] == [2]
    assert {n.attrs["locator"]["page"] for n in doc.nodes if "locator" in n.attrs} == {1}

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "mixed.pdf").write_bytes(_with_scanned_page())
    for name in ("invalid.pdf", "libreoffice-writer-password.pdf"):
        shutil.copy(FIXTURES / name, corpus / name)
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        report = h.kb().add([corpus])
        got = {f.path: (f.status, f.code) for f in report.files}
        assert got == {
            "invalid.pdf": ("failed", "BROKEN_FILE"),
            "libreoffice-writer-password.pdf": ("failed", "ENCRYPTED"),
            "mixed.pdf": ("added", "NEEDS_OCR"),
        }
        mixed = next(f for f in report.files if f.path == "mixed.pdf")
        assert "pages 2 have no text layer" in mixed.message
        (info,) = h.kb().documents()
        assert info.metadata["needs_ocr"] == [2]


def test_ask_about_a_pdf_cites_its_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(FIXTURES / "dmca.pdf", corpus / "dmca.pdf")
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        kb.add([corpus])
        hit = kb.search("WIPO treaties technical amendments", mode="lexical").hits[0]
        assert hit.locator is not None and hit.locator["page"] >= 1
        answer = kb.ask("What does Title I of the DMCA implement?")
        assert answer.outcome == "answered", answer.answer
        cited = answer.to_json()["citations"]
        assert cited
        stored = kb.store.get_document_text("default", hit.doc_id, hit.version_id)
        for c in cited:
            loc = c["locator"]
            assert loc["page"] >= 1 and loc["boxes"]
            assert stored[c["char_start"] : c["char_end"]] == c["excerpt"]
            assert "locator_degraded" not in c
            # the cited text is the one `cite resolve` returns, forever (hash-checked)
            assert h.resolve(c["id"]).text == c["excerpt"]
        json.dumps(cited)  # plain JSON


def test_rotated_page_boxes_land_on_the_cited_text_in_the_rendered_page() -> None:
    from PIL import Image

    from citewise.ingest.pdf_render import pixel_boxes, render_page

    raw = (FIXTURES / "nics-background-checks-2015-11-rotated.pdf").read_bytes()
    doc = _parse("nics.pdf", raw)  # /Rotate 90: the table is shown turned a quarter
    header = next(n for n in doc.nodes if "Pre-Pawn" in n.text and n.kind == "paragraph")
    _start, _end, *box = next(
        lb for lb in header.attrs["line_boxes"] if "Pre-Pawn" in doc.text[lb[0] : lb[1]]
    )
    plain = Image.open(io.BytesIO(render_page(raw, "nics.pdf", 1, [], scale=1.0))).convert("L")
    assert plain.size == (612, 1008)  # rendered as the viewer shows it (portrait)
    ((left, top, right, bottom),) = pixel_boxes([box], 90, 1008, 612, 1.0)
    assert bottom - top > 5 * (right - left)  # a horizontal text line is shown vertical
    ink = [plain.getpixel((x, y)) < 128 for x in range(left, right) for y in range(top, bottom, 3)]
    assert sum(ink) / len(ink) > 0.05  # the box sits on printed text
    ((left2, top2, right2, bottom2),) = pixel_boxes([box], 0, 1008, 612, 1.0)
    assert right2 - left2 > 5 * (bottom2 - top2)  # unrotated, the same box is a row


@pytest.mark.slow
def test_scanned_page_is_ocred_with_a_degraded_locator(monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.ingest import pdf_ocr

    monkeypatch.delenv("CITEWISE_OCR", raising=False)
    if not pdf_ocr.available():
        reason = "OCR test skipped: tesseract (apt-get install tesseract-ocr) or pytesseract absent"
        print(reason)
        pytest.skip(reason)
    doc = _parse("linn.pdf")  # one scanned page, no text layer
    assert doc.metadata["ocr_pages"] == [1] and "needs_ocr" not in doc.metadata
    reference = " ".join((FIXTURES / "linn.txt").read_text("utf-8").split())
    got = " ".join(doc.text.split())
    assert difflib.SequenceMatcher(None, got, reference, autojunk=False).ratio() > 0.9
    located = [n for n in doc.nodes if "locator" in n.attrs]
    assert located
    for n in located:
        loc = n.attrs["locator"]
        assert loc["ocr"] is True and loc["degraded"] == "ocr" and 0 < loc["confidence"] <= 1
        assert loc["page"] == 1 and loc["boxes"]
        for x0, y0, x1, y1 in loc["boxes"]:
            assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792
    cited = locate(doc.nodes, located[1].char_start, located[1].char_end)
    assert locator_fields(cited)["locator_degraded"] is True
    assert locator_fields(cited)["locator_degraded_reason"] == "ocr"
    assert place(cited).startswith("p. 1 (OCR)")


def test_outline_bookmarks_become_sections_where_their_title_is_found() -> None:
    from citewise.ingest.pdf import _Para, _tree

    text = "Intro\n\nBody one.\n\nMethods\n\nBody two."
    spans = [(0, 5), (7, 16), (18, 25), (27, 36)]
    paras = [
        _Para(1 if s < 18 else 2, s, e, 0 if s < 18 else 18, [(s, e, (0, 0, 1, 1))])
        for s, e in spans
    ]
    outline = [(1, "Intro", 1), (1, "Methods", 2), (1, "Missing chapter", 2)]
    nodes = _tree(text, paras, outline)
    assert [(n.kind, n.title) for n in nodes] == [("section", "Intro"), ("section", "Methods")]
    assert [text[c.char_start : c.char_end] for c in nodes[1].children] == ["Methods", "Body two."]
    # a bookmark whose title is on no page is left out, never placed by guess
    assert all(n.title != "Missing chapter" for n in nodes)


def test_search_form_unfolds_ligatures_and_joins_line_end_hyphens() -> None:
    from citewise.ingest.pdf_layout import search_form

    assert search_form("the \ufb01rst \ufb02ow, adip-\niscing") == "the first flow, adipiscing"
    # a hyphen before a capital or a digit is kept (a compound or a range, not a split)
    assert search_form("Franco-\nGerman 1998-\n2001") == "Franco- German 1998- 2001"


def test_evidence_never_quotes_running_headers_or_footers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(FIXTURES / "dmca.pdf", corpus / "dmca.pdf")
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        kb.add([corpus])
        nodes = kb.store.nodes_of_version("default", "dmca.pdf", 1)
        furniture = [(n.char_start, n.char_end) for n in nodes if n.kind == "page_furniture"]
        assert furniture
        questions = (
            "What does Title I implement?",
            "What is the online service provider safe harbor?",
            "What are the exemptions for libraries?",
            "What does Title V protect?",
        )
        for q in questions:
            for f in kb.evidence(q).fragments:
                assert f.locator is not None
                overlaps = [r for r in furniture if r[0] < f.char_end and f.char_start < r[1]]
                assert not overlaps, (q, f.role, f.reason, f.text[-120:])


def test_place_labels_name_only_what_the_locator_holds() -> None:
    assert place(None) == ""
    assert place({"page": 3, "page_char_start": 0, "page_char_end": 4, "boxes": []}) == "p. 3"
    assert place({"table": 5, "row": 1}) == "table 6 row 2"  # counted from 1, as describe()
    assert place({"table": 5, "row": 1, "cell": 2}) == "table 6 row 2 cell 3"
    assert place({"sheet": "S", "row": 7, "cells": "S!A7:D7"}) == "S!A7:D7"
    parts = [{"paragraph": n} for n in range(1, 6)]
    assert place({**parts[0], "parts": parts}) == (
        "paragraph 2, paragraph 3, paragraph 4 and 2 more"
    )
    assert place({"page": 1, "ocr": True, "degraded": "ocr"}) == "p. 1 (OCR) (approximate: ocr)"


def test_pdf_title_is_its_info_title_else_the_file_name() -> None:
    assert _parse("dmca.pdf").title == "The Digital Millennium Copyright Act of 1998"
    assert _parse("multicolumn.pdf").title == "multicolumn"  # no /Title
    from citewise.ingest.pdf import _FILE_NAME

    assert _FILE_NAME.fullmatch("Binder1.pdf") and not _FILE_NAME.fullmatch("AMT Handbook")


def test_alternating_even_and_odd_running_headers_are_recognised() -> None:
    from citewise.ingest.pdf_layout import running_keys

    # page 1 is a title page; then even pages carry the book, odd pages the chapter
    tops: list[str | None] = ["harbor almanac, a guide"]
    for n in range(2, 8):
        tops.append("harbor almanac" if n % 2 == 0 else "chapter two: tides")
    bottoms: list[str | None] = [f"body text {n}" for n in range(7)]
    heads, foots = running_keys(tops, bottoms)
    assert heads == {"harbor almanac", "chapter two: tides"}  # 3 of 7 pages each
    assert foots == set()
    # a phrase that starts two pages of different parity is no running header
    assert running_keys(["a", "x", "b", "c", "x", "d", "e"], [None] * 7)[0] == set()
