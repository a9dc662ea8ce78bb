"""A PDF page rendered within a pixel budget (``ingest.limits.max_render_pixels``).

A page box is a few bytes of the file but its bitmap grows with its area: a page of
10,000 points square is 225 million pixels at 1.5 px per point. Every render (the page
image of the web view, the page read by OCR) goes through :func:`render_capped`, which
lowers the scale until the bitmap fits the budget and says by how much; the caller keeps
the scale actually used to place boxes or read coordinates back.
"""

from __future__ import annotations

import math

import pypdfium2 as pdfium
from PIL import Image

#: A scale is lowered in steps of this factor until the rounded-up bitmap fits.
_SHRINK = 0.999


def bitmap_size(width: float, height: float, scale: float) -> tuple[int, int]:
    """Pixels PDFium allocates for a ``width`` x ``height`` point page at ``scale``
    (it rounds each side up)."""
    return math.ceil(width * scale), math.ceil(height * scale)


def fit_scale(width: float, height: float, scale: float, max_pixels: int) -> float:
    """``scale``, or the largest scale below it at which the page's bitmap has at most
    ``max_pixels`` pixels. A degenerate page (no area) keeps ``scale``: PDFium refuses it
    on its own."""
    if width <= 0 or height <= 0 or not math.isfinite(width * height):
        return scale
    w, h = bitmap_size(width, height, scale)
    if w * h <= max_pixels:
        return scale
    fitted = min(scale, math.sqrt(max_pixels / (width * height)))
    while fitted > 0:
        w, h = bitmap_size(width, height, fitted)
        if w * h <= max_pixels:
            break
        fitted *= _SHRINK
    return fitted


def render_capped(page: pdfium.PdfPage, scale: float, max_pixels: int) -> tuple[Image.Image, float]:
    """``page`` as the viewer shows it, as an RGB image owned by Pillow (the PDFium bitmap
    is freed before returning), and the scale used: ``scale`` or less, to fit
    ``max_pixels``. The caller holds ``PDFIUM_LOCK``."""
    used = fit_scale(page.get_width(), page.get_height(), scale, max_pixels)
    # Packed 3-byte pixels: Pillow cannot share that buffer, so to_pil copies it once.
    bitmap = page.render(scale=used, force_bitmap_format=pdfium.raw.FPDFBitmap_BGR)
    try:
        image = bitmap.to_pil()
    finally:
        bitmap.close()
    return image, used


__all__ = ["bitmap_size", "fit_scale", "render_capped"]
