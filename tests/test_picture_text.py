"""Text inside pictures of DOCX and PPTX files (issue 36, ingest/image_text.py): with OCR,
a picture's words become a node whose locator names the picture and says it is OCR
output; without OCR nothing changes; a picture declaring more pixels than the parse
budget allows is never decoded."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw, ImageFont

from citewise.config import ParseLimits
from citewise.ingest import pdf_ocr
from citewise.ingest.docx import parse_docx
from citewise.ingest.image_text import read_picture
from citewise.ingest.limits import ParseBudget
from citewise.ingest.pptx import parse_pptx
from citewise.ingest.tree import RawNode

SAID = "Backups are kept for 35 days"
#: The OCR tests are marked ``subprocess``: Tesseract runs as a process, which the fast
#: tier refuses.
NO_OCR = "OCR needs Debian tesseract-ocr and pytesseract"


def _picture(text: str = SAID, size: tuple[int, int] = (900, 160)) -> bytes:
    img = Image.new("RGB", size, "white")
    ImageDraw.Draw(img).text((20, 40), text, fill="black", font=ImageFont.load_default(size=48))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _docx(picture: bytes) -> bytes:
    from docx import Document
    from docx.shared import Inches

    doc = Document()
    doc.add_heading("Retention", 1)
    doc.add_paragraph("The policy is shown below.")
    doc.add_picture(io.BytesIO(picture), width=Inches(5))
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def _pptx(picture: bytes) -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = "Retention"
    slide.shapes.add_picture(io.BytesIO(picture), Inches(1), Inches(2), width=Inches(6))
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _nodes(nodes: list[RawNode]) -> list[RawNode]:
    out: list[RawNode] = []
    for n in nodes:
        out.append(n)
        out.extend(_nodes(list(n.children)))
    return out


def _read(nodes: list[RawNode]) -> list[RawNode]:
    return [n for n in _nodes(nodes) if (n.attrs.get("locator") or {}).get("ocr")]


@pytest.mark.subprocess
@pytest.mark.skipif(not pdf_ocr.available(), reason=NO_OCR)
@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_a_picture_s_words_become_a_node_with_an_ocr_locator(kind: str) -> None:
    raw = _docx(_picture()) if kind == "docx" else _pptx(_picture())
    parsed = parse_docx(raw, "r.docx") if kind == "docx" else parse_pptx(raw, "r.pptx")
    [node] = _read(parsed.nodes)
    assert node.search_text == SAID
    assert parsed.text[node.char_start : node.char_end] == SAID  # its range is its text
    loc = node.attrs["locator"]
    where = {"paragraph": 2} if kind == "docx" else {"slide": 1, "notes": False}
    assert {k: loc[k] for k in where} == where
    assert loc["image"] == 0 and loc["degraded"] == "ocr" and 0.6 <= loc["confidence"] <= 1


@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_without_ocr_a_picture_adds_nothing(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_OCR", "off")
    raw = _docx(_picture()) if kind == "docx" else _pptx(_picture())
    parsed = parse_docx(raw, "r.docx") if kind == "docx" else parse_pptx(raw, "r.pptx")
    assert _read(parsed.nodes) == [] and SAID not in parsed.text


@pytest.mark.subprocess
@pytest.mark.skipif(not pdf_ocr.available(), reason=NO_OCR)
def test_a_picture_over_the_pixel_budget_is_not_decoded() -> None:
    budget = ParseBudget("big.docx", ParseLimits(max_render_pixels=100_000))
    assert read_picture(_picture(), "big.docx", budget) is None  # 900 x 160 > 100,000
    assert read_picture(_picture(), "big.docx", None) is not None
    assert read_picture(b"not an image at all", "x.docx", None) is None
    assert read_picture(_picture(size=(20, 20)), "x.docx", None) is None  # an icon
