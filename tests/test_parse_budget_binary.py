"""Binary parsers get the file's parse budget, and OCR runs on its own per-page allowance
outside the PDFium lock: a scanned PDF of many pages ingests instead of failing with
PARSE_LIMIT, while one page that OCR cannot finish in time still fails with a clear error.

The OCR engine is faked at its boundary (``pdf_ocr.read``) for the scheduling tests; the
tests with the real Tesseract are marked slow and skip (saying why) without it."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from citewise.config import IngestConfig, ParseLimits, limits_from_env
from citewise.core.records import ParsedDocument
from citewise.errors import ParseLimitExceeded
from citewise.ingest import formats, pdf_ocr
from citewise.ingest.limits import ParseBudget
from citewise.ingest.parse import parse_document
from citewise.ingest.pdf import PDFIUM_LOCK
from citewise.ingest.pdf_layout import Char, Line
from tests.test_formats_ebook import _epub, _odt

DOCS = Path(__file__).parent / "fixtures" / "documents"


class _Clock:
    """A clock the test moves by hand (reads do not advance it)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_time_set_aside_is_not_charged_to_the_file_deadline() -> None:
    clock = _Clock()
    budget = ParseBudget("a.pdf", ParseLimits(max_seconds=60), clock)
    with budget.set_aside():
        clock.now += 500  # e.g. OCR of a page, on its own allowance
    budget.check_time()  # 500 s passed, none of it charged
    clock.now += 61
    with pytest.raises(ParseLimitExceeded, match="max_seconds"):
        budget.check_time()


def _binary_samples() -> list[tuple[str, bytes]]:
    return [
        ("word_tables.docx", (DOCS / "office" / "word_tables.docx").read_bytes()),
        ("stanley-cups.xlsx", (DOCS / "office" / "stanley-cups.xlsx").read_bytes()),
        ("powerpoint_sample.pptx", (DOCS / "office" / "powerpoint_sample.pptx").read_bytes()),
        ("text_document_01.odt", (DOCS / "office" / "text_document_01.odt").read_bytes()),
        ("tales.epub", _epub()),
        ("odt-inline.odt", _odt()),
        ("multicolumn.pdf", (DOCS / "pdf" / "multicolumn.pdf").read_bytes()),
    ]


@pytest.mark.parametrize(("name", "raw"), _binary_samples(), ids=lambda v: str(v)[:24])
def test_every_binary_parser_reports_to_the_file_budget(name: str, raw: bytes) -> None:
    spec = formats.format_for(name)
    assert spec.parse_bytes is not None
    budget = ParseBudget(name)
    spec.parse_bytes(raw, name, budget)
    assert budget.steps > 0


def test_a_binary_parse_past_its_time_is_stopped_inside_the_parser() -> None:
    """A clock that jumps an hour per read: the XLSX parser itself stops (parse_bytes is
    called directly, so nothing after the parser could)."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["Pier", "Vessel", "Tonnage"])
    for i in range(600):
        ws.append([f"P{i}", f"Vessel {i}", i * 10])
    out = io.BytesIO()
    wb.save(out)
    clock = _Clock()

    def jump() -> float:
        clock.now += 3600
        return clock.now

    budget = ParseBudget("berths.xlsx", ParseLimits(max_seconds=60), jump)
    spec = formats.format_for("berths.xlsx")
    assert spec.parse_bytes is not None
    with pytest.raises(ParseLimitExceeded, match="parse time"):
        spec.parse_bytes(out.getvalue(), "berths.xlsx", budget)


def _scanned(pages: int) -> bytes:
    """A PDF of ``pages`` pages that each hold only an image (no text layer)."""
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
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
    pdf.close()
    return out.getvalue()


def _lock_is_free() -> bool:
    """True when another thread can take the PDFium lock now."""
    got: list[bool] = []

    def probe() -> None:
        ok = PDFIUM_LOCK.acquire(timeout=0)
        if ok:
            PDFIUM_LOCK.release()
        got.append(ok)

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return got[0]


def _parse(
    name: str, raw: bytes, limits: ParseLimits, clock: _Clock | None = None
) -> ParsedDocument:
    return parse_document(
        raw, name=name, kb="kb", doc_path=name, config=IngestConfig(limits=limits), clock=clock
    )


def test_ocr_pages_run_on_their_own_allowance_outside_the_pdfium_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = _Clock()
    calls: list[tuple[float, bool]] = []

    def fake_read(page: pdf_ocr.PageImage, timeout: float) -> list[pdf_ocr.OcrParagraph]:
        calls.append((timeout, _lock_is_free()))
        clock.now += 100  # each page takes longer than the whole file's max_seconds
        word = "harbor"
        line = Line([Char(ch, (10.0, 10.0, 60.0, 20.0)) for ch in word], (10.0, 10.0, 60.0, 20.0))
        return [pdf_ocr.OcrParagraph([line], 0.9)]

    monkeypatch.setattr(pdf_ocr, "available", lambda: True)
    monkeypatch.setattr(pdf_ocr, "read", fake_read)
    limits = ParseLimits(max_seconds=60, ocr_seconds_per_page=150)
    doc = _parse("scan.pdf", _scanned(5), limits, clock)
    assert doc.metadata["ocr_pages"] == [1, 2, 3, 4, 5] and "needs_ocr" not in doc.metadata
    assert calls == [(150, True)] * 5  # the allowance per page; the lock free meanwhile
    assert doc.text.count("harbor") == 5


def test_a_page_ocr_cannot_finish_in_its_allowance_fails_with_a_named_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def too_slow(page: pdf_ocr.PageImage, timeout: float) -> list[pdf_ocr.OcrParagraph]:
        raise pdf_ocr.OcrTimeout("Tesseract process timeout")

    monkeypatch.setattr(pdf_ocr, "available", lambda: True)
    monkeypatch.setattr(pdf_ocr, "read", too_slow)
    with pytest.raises(ParseLimitExceeded) as err:
        _parse("scan.pdf", _scanned(2), ParseLimits(ocr_seconds_per_page=30))
    message = str(err.value) + str(err.value.hint)
    assert "OCR of page 1" in message and "ocr_seconds_per_page = 30" in message
    assert "CITEWISE_PARSE_OCR_SECONDS_PER_PAGE" in message
    assert _lock_is_free()


def test_the_ocr_allowance_is_set_from_the_environment() -> None:
    env = {"CITEWISE_PARSE_OCR_SECONDS_PER_PAGE": "240.5"}
    assert limits_from_env(env).ocr_seconds_per_page == 240.5


def _need_tesseract(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEWISE_OCR", raising=False)
    if not pdf_ocr.available():
        reason = "OCR test skipped: tesseract (apt-get install tesseract-ocr) or pytesseract absent"
        print(reason)
        pytest.skip(reason)


def _linn_pages(pages: int) -> bytes:
    src = pdfium.PdfDocument((DOCS / "pdf" / "linn.pdf").read_bytes())
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.import_pages(src, [0])
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


@pytest.mark.slow
def test_a_scanned_document_longer_than_the_file_limit_ingests_with_tesseract(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _need_tesseract(monkeypatch)
    # Tesseract takes several seconds per page here: far past a 2 s file limit.
    doc = _parse("linn2.pdf", _linn_pages(2), ParseLimits(max_seconds=2))
    assert doc.metadata["ocr_pages"] == [1, 2]
    assert sum(1 for n in doc.nodes if n.attrs.get("locator", {}).get("ocr")) > 2


@pytest.mark.slow
def test_real_tesseract_is_stopped_at_the_page_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    _need_tesseract(monkeypatch)
    with pytest.raises(ParseLimitExceeded, match="OCR of page 1"):
        _parse("linn.pdf", _linn_pages(1), ParseLimits(ocr_seconds_per_page=0.05))
