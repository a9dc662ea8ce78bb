"""One PDF page rendered to PNG with the cited boxes highlighted (the web page's view).

Boxes are in PDF page coordinates (points, origin bottom-left, before ``/Rotate``);
PDFium renders the page as a viewer shows it (``/Rotate`` applied), so each box is turned
with the page (:func:`citewise.ingest.pdf_layout.to_display`) and flipped to pixel rows.

The page is rendered within ``ingest.limits.max_render_pixels`` (:mod:`pdf_pixels`): a
page too large for the requested scale is rendered smaller, the boxes placed at the scale
used, and :class:`RenderedPage` says so (the server sends it as a response header).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from citewise.config import ParseLimits
from citewise.errors import UsageError
from citewise.ingest.limits import limit_error
from citewise.ingest.pdf import PDFIUM_LOCK, open_pdf
from citewise.ingest.pdf_layout import Box, to_display
from citewise.ingest.pdf_pixels import render_capped

#: Pixels per point (72 points per inch: 1.5 -> 108 dpi).
SCALE = 1.5
_FILL = (255, 214, 0, 90)
_EDGE = (200, 120, 0, 255)


@dataclass(frozen=True, slots=True)
class RenderedPage:
    """A page image: PNG bytes, the pixels per point used and the ones asked for."""

    png: bytes
    scale: float
    requested_scale: float

    @property
    def lowered(self) -> bool:
        """True when the page was rendered smaller than asked to fit the pixel cap."""
        return self.scale < self.requested_scale


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
    raw: bytes, name: str, page: int, scale: float, max_pixels: int
) -> tuple[Image.Image, float, int, float, float]:
    """The rendered page (RGB, owned by Pillow), the scale used, its /Rotate and unrotated
    size. Call with :data:`PDFIUM_LOCK` held."""
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
            image, used = render_capped(p, scale, max_pixels)
        finally:
            p.close()
    finally:
        pdf.close()
    return image, used, rotation, width, height


def render(
    raw: bytes,
    name: str,
    page: int,
    boxes: Sequence[Sequence[float]],
    scale: float = SCALE,
    max_pixels: int | None = None,
) -> RenderedPage:
    """1-based ``page`` of the PDF ``raw`` with ``boxes`` highlighted, at ``scale`` or
    the largest scale below it whose image has at most ``max_pixels`` pixels (default
    the ``max_render_pixels`` limit)."""
    cap = ParseLimits().max_render_pixels if max_pixels is None else max_pixels
    try:
        with PDFIUM_LOCK:
            image, used, rotation, width, height = _render(raw, name, page, scale, cap)
        # Boxes are blended into the page itself: no second full-page layer in memory.
        draw = ImageDraw.Draw(image, "RGBA")
        for left, top, right, bottom in pixel_boxes(boxes, rotation, width, height, used):
            draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=_FILL, outline=_EDGE)
        out = io.BytesIO()
        image.save(out, format="PNG")
    except MemoryError:  # a page the cap lets through that still does not fit this process
        raise limit_error(name, f"page {page}'s image", "max_render_pixels", cap) from None
    return RenderedPage(out.getvalue(), used, scale)


def render_page(
    raw: bytes, name: str, page: int, boxes: Sequence[Sequence[float]], scale: float = SCALE
) -> bytes:
    """PNG of 1-based ``page`` of the PDF ``raw`` with ``boxes`` highlighted (within the
    default pixel cap; :func:`render` says which scale was used)."""
    return render(raw, name, page, boxes, scale).png


__all__ = ["SCALE", "RenderedPage", "pixel_boxes", "render", "render_page"]
