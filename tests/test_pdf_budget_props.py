"""Property: a small PDF declaring huge page boxes or a huge page count never renders a
bitmap past the pixel cap, never parses past the page cap, and never lets MemoryError
out; it parses, or fails with a citewise error of its own (hypothesis).

The OCR engine is faked at its boundary (``pdf_ocr.read``) and records every page image
it is handed, so the OCR render is checked without Tesseract."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from citewise.config import IngestConfig, ParseLimits
from citewise.errors import CitewiseError
from citewise.ingest import pdf_ocr
from citewise.ingest.parse import parse_document
from citewise.ingest.pdf_layout import Char, Line
from citewise.ingest.pdf_render import render
from tests import hostile_pdf as hostile

EXAMPLES = int(os.environ.get("CITEWISE_FUZZ_EXAMPLES", "30"))
#: Caps small enough that generated pages pass them by orders of magnitude.
CAP = 200_000
LIMITS = ParseLimits(max_pages=500, max_render_pixels=CAP, max_seconds=20.0)
#: What a hostile PDF may fail with: a limit, a file PDFium cannot read, nothing to index.
ALLOWED = {"PARSE_LIMIT", "BROKEN_FILE", "EMPTY_FILE", "NEEDS_OCR"}

PROPS = settings(
    max_examples=EXAMPLES,
    deadline=None,  # time is capped by LIMITS.max_seconds inside the parser
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=EXAMPLES <= 100,  # the quick run is reproducible
)

_SIDE = st.one_of(
    st.floats(min_value=1, max_value=2_000, allow_nan=False),
    st.floats(min_value=2_000, max_value=1e6, allow_nan=False),
)
HOSTILE = st.one_of(
    st.builds(hostile.huge_page, _SIDE, _SIDE, text=st.booleans()),
    st.builds(hostile.scanned_huge_page, _SIDE, st.integers(1, 3), st.integers(1, 16)),
    st.builds(hostile.page_count_bomb, st.integers(1, 300), st.integers(1, 4)),
    st.builds(hostile.many_pages, st.integers(1, 40), _SIDE),
)

_SEEN: list[tuple[int, int]] = []


def _read(page: pdf_ocr.PageImage, timeout: float) -> list[pdf_ocr.OcrParagraph]:
    _SEEN.append(page.image.size)
    box = (1.0, 1.0, 2.0, 2.0)
    return [pdf_ocr.OcrParagraph([Line([Char(c, box) for c in "word"], box)], 0.5)]


@pytest.fixture
def fake_ocr(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(pdf_ocr, "available", lambda: True)
    monkeypatch.setattr(pdf_ocr, "read", _read)
    yield
    _SEEN.clear()


@PROPS
@given(HOSTILE)
def test_hostile_page_boxes_and_counts_stay_within_the_caps(fake_ocr: None, raw: bytes) -> None:
    _SEEN.clear()
    try:
        doc = parse_document(
            raw, name="h.pdf", kb="kb", doc_path="h.pdf", config=IngestConfig(limits=LIMITS)
        )
    except CitewiseError as exc:  # MemoryError or anything else would fail the test
        assert exc.code in ALLOWED, exc
    else:
        assert doc.metadata["pages"] <= LIMITS.max_pages
    assert all(w * h <= CAP for w, h in _SEEN)
    try:
        page = render(raw, "h.pdf", 1, [[0, 0, 10, 10]], max_pixels=CAP)
    except CitewiseError as exc:
        assert exc.code in ALLOWED, exc
    else:
        image = Image.open(io.BytesIO(page.png))
        assert image.width * image.height <= CAP
        assert page.scale <= page.requested_scale
