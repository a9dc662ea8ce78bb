"""OCR of PDF pages without a text layer: Tesseract (Debian ``tesseract-ocr``) through
pytesseract, when both are installed and ``CITEWISE_OCR`` is not ``off``.

The page is rendered at 300 dpi, or lower when that bitmap would pass
``ingest.limits.max_render_pixels`` (:mod:`pdf_pixels`; the page's locators then say
``degraded: "ocr at N dpi"``), as the viewer shows it (:func:`render`, under the
process-wide PDFium lock) and read by Tesseract (:func:`read`, outside the lock, so other
threads' PDFium work goes on meanwhile, and bounded by the per-page OCR allowance);
Tesseract's words (with their block/paragraph/line numbers, pixel boxes and confidence)
become :class:`Line` objects whose word boxes are turned back into PDF page
coordinates, grouped into Tesseract's paragraphs. The text is OCR output, so its
locator says ``ocr: true``, the mean word confidence (0..1) and ``degraded: "ocr"``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
from PIL import Image

from citewise.ingest.pdf_layout import Box, Char, Line, union
from citewise.ingest.pdf_pixels import render_capped
from citewise.switches import env_switch

DPI = 300
SCALE = DPI / 72


@dataclass(frozen=True, slots=True)
class OcrParagraph:
    lines: list[Line]
    confidence: float  # mean word confidence, 0..1


def available() -> bool:
    """True when OCR may run: not switched off, the binary and the binding present."""
    if not env_switch("CITEWISE_OCR", True):
        return False
    if shutil.which("tesseract") is None:
        return False
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return False
    return True


def from_display(box: Box, rotation: int, width: float, height: float) -> Box:
    """Inverse of :func:`~citewise.ingest.pdf_layout.to_display` (unrotated size)."""
    x0, y0, x1, y1 = box
    if rotation == 90:
        pts = ((width - y0, x0), (width - y1, x1))
    elif rotation == 180:
        pts = ((width - x0, height - y0), (width - x1, height - y1))
    elif rotation == 270:
        pts = ((y0, height - x0), (y1, height - x1))
    else:
        return box
    (a, b), (c, d) = pts
    return (min(a, c), min(b, d), max(a, c), max(b, d))


@dataclass(frozen=True, slots=True)
class PageImage:
    """A page rendered for OCR (owned by Pillow, no PDFium object) and its geometry."""

    image: Image.Image
    rotation: int
    width: float  # unrotated size, points
    height: float
    shown_h: float  # height as shown (rotated), points
    scale: float = SCALE  # pixels per point used (below SCALE when the pixel cap lowered it)

    @property
    def dpi(self) -> int:
        return round(self.scale * 72)

    @property
    def lowered(self) -> bool:
        """True when the page was rendered below :data:`DPI` to fit the pixel cap."""
        return self.scale < SCALE


class OcrTimeout(Exception):
    """Tesseract ran past its per-page allowance (the process was stopped)."""


def render(page: pdfium.PdfPage, max_pixels: int) -> PageImage:
    """``page`` at :data:`DPI`, or lower to fit ``max_pixels``, as the viewer shows it.
    The caller holds ``PDFIUM_LOCK``."""
    rotation = page.get_rotation()
    shown_w, shown_h = page.get_width(), page.get_height()
    width, height = (shown_h, shown_w) if rotation in (90, 270) else (shown_w, shown_h)
    image, scale = render_capped(page, SCALE, max_pixels)
    return PageImage(image, rotation, width, height, shown_h, scale)


def read(page: PageImage, timeout: float) -> list[OcrParagraph]:
    """Tesseract's paragraphs of a rendered page (empty when it finds no words). No
    PDFium call: run it without ``PDFIUM_LOCK``. Past ``timeout`` seconds Tesseract is
    stopped and :class:`OcrTimeout` raised."""
    import pytesseract

    rotation, width, height, shown_h = page.rotation, page.width, page.height, page.shown_h
    scale = page.scale
    try:
        data: dict[str, list[Any]] = pytesseract.image_to_data(
            page.image, output_type=pytesseract.Output.DICT, timeout=timeout
        )
    except RuntimeError as exc:  # pytesseract's "Tesseract process timeout"
        if "timeout" not in str(exc).lower():
            raise
        raise OcrTimeout(str(exc)) from exc
    groups: dict[tuple[int, int], dict[int, list[tuple[str, Box, float]]]] = {}
    for i, word in enumerate(data["text"]):
        text = str(word).strip()
        conf = float(data["conf"][i])
        if not text or conf < 0:
            continue
        left, top = data["left"][i] / scale, data["top"][i] / scale
        right = left + data["width"][i] / scale
        bottom = top + data["height"][i] / scale
        shown: Box = (left, shown_h - bottom, right, shown_h - top)
        box = from_display(shown, rotation, width, height)
        box = tuple(round(v, 2) for v in box)  # type: ignore[assignment]
        key = (int(data["block_num"][i]), int(data["par_num"][i]))
        groups.setdefault(key, {}).setdefault(int(data["line_num"][i]), []).append(
            (text, box, conf)
        )
    out: list[OcrParagraph] = []
    for key in sorted(groups):
        lines: list[Line] = []
        confs: list[float] = []
        for line_no in sorted(groups[key]):
            chars: list[Char] = []
            for n, (text, box, conf) in enumerate(groups[key][line_no]):
                if n:
                    chars.append(Char(" ", None))
                chars.extend(Char(ch, box) for ch in text)
                confs.append(conf)
            boxes = [c.box for c in chars if c.box is not None]
            lines.append(Line(chars, union(boxes)))
        out.append(OcrParagraph(lines, round(sum(confs) / len(confs) / 100, 3)))
    return out
