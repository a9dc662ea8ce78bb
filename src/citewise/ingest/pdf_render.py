"""One PDF page rendered to PNG with the cited boxes highlighted (the web page's view).

Boxes are in PDF page coordinates (points, origin bottom-left, before ``/Rotate``);
PDFium renders the page as a viewer shows it (``/Rotate`` applied), so each box is turned
with the page (:func:`citewise.ingest.pdf_layout.to_display`) and flipped to pixel rows.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from citewise.errors import UsageError
from citewise.ingest.pdf import PDFIUM_LOCK, open_pdf
from citewise.ingest.pdf_layout import Box, to_display

#: Pixels per point (72 points per inch: 1.5 -> 108 dpi).
SCALE = 1.5
_FILL = (255, 214, 0, 90)
_EDGE = (200, 120, 0, 255)


def pixel_boxes(
    boxes: Sequence[Sequence[float]], rotation: int, width: float, height: float, scale: float
) -> list[tuple[int, int, int, int]]:
    """Page-space boxes -> pixel rectangles (left, top, right, bottom) of the rendered
    page. ``width``/``height`` are the page's unrotated size in points."""
    shown_h = width if rotation in (90, 270) else height
    out = []
    for b in boxes:
        box: Box = (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
        x0, y0, x1, y1 = to_display(box, rotation, width, height)
        out.append(
            (
                round(x0 * scale),
                round((shown_h - y1) * scale),
                round(x1 * scale),
                round((shown_h - y0) * scale),
            )
        )
    return out


def _render(
    raw: bytes, name: str, page: int, scale: float
) -> tuple[Image.Image, int, float, float]:
    """The rendered page (a copy owned by Pillow), its /Rotate and unrotated size.
    Call with :data:`PDFIUM_LOCK` held."""
    pdf = open_pdf(raw, name)
    try:
        if not 1 <= page <= len(pdf):
            raise UsageError(
                f"{name} has no page {page} (it has {len(pdf)}).",
                hint="Use the page number from the citation's locator.",
            )
        p = pdf[page - 1]
        try:
            rotation = p.get_rotation()
            width, height = p.get_width(), p.get_height()  # as shown (rotated)
            if rotation in (90, 270):
                width, height = height, width
            bitmap = p.render(scale=scale)
            try:
                image = bitmap.to_pil().convert("RGBA")  # a copy: the bitmap can go
            finally:
                bitmap.close()
        finally:
            p.close()
    finally:
        pdf.close()
    return image, rotation, width, height


def render_page(
    raw: bytes, name: str, page: int, boxes: Sequence[Sequence[float]], scale: float = SCALE
) -> bytes:
    """PNG of 1-based ``page`` of the PDF ``raw`` with ``boxes`` highlighted."""
    with PDFIUM_LOCK:
        image, rotation, width, height = _render(raw, name, page, scale)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for left, top, right, bottom in pixel_boxes(boxes, rotation, width, height, scale):
        draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=_FILL, outline=_EDGE)
    out = io.BytesIO()
    Image.alpha_composite(image, overlay).convert("RGB").save(out, format="PNG")
    return out.getvalue()


__all__ = ["SCALE", "pixel_boxes", "render_page"]
