"""How tight a citation's highlight is, measured from PDFium's own character boxes,
independently of the parser's layout (shared by tests and bench/pdf_boxes.py).

The cited text is found again on its page among PDFium's characters (blanks ignored),
and two areas are compared on a raster of quarter points:

- ``covered``: the share of the cited glyphs' ink boxes (``get_charbox``) that the
  highlight covers (1.0 = every cited glyph is inside a highlighted box);
- ``outside``: the share of the highlighted area that lies outside the cited
  characters' cells (``get_charbox(loose=True)``: the font's full height over each
  character's advance) and the blanks between neighbouring cited characters of a row
  (PDFium gives many spaces no width: the gap between two words is then no cell).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pypdfium2 as pdfium

Box = Sequence[float]
RES = 4  # raster cells per point


@dataclass(frozen=True)
class Tightness:
    covered: float
    outside: float


def _page_chars(raw: bytes, page: int) -> list[tuple[str, Box, Box]]:
    """(character, ink box, cell box) of every non-generated character of 1-based page."""
    pdf = pdfium.PdfDocument(raw)
    try:
        tp = pdf[page - 1].get_textpage()
        out = []
        for i in range(tp.count_chars()):
            ch = tp.get_text_range(i, 1)
            if ch in ("\r", "\n", ""):
                continue
            out.append((ch, tp.get_charbox(i), tp.get_charbox(i, loose=True)))
        return out
    finally:
        pdf.close()


def _dense(text: str) -> str:
    return "".join(c for c in text if not c.isspace() and c not in "-\ufffe\u00ad")


def cited_chars(raw: bytes, page: int, cited: str) -> list[tuple[str, Box, Box]] | None:
    """The page's characters from the first to the last cited one (blanks between them
    included), when the cited text occurs exactly once on the page; else None."""
    chars = _page_chars(raw, page)
    keep = [i for i, (c, _, _) in enumerate(chars) if _dense(c)]
    dense = "".join(chars[i][0] for i in keep)
    want = _dense(cited)
    at = dense.find(want)
    if not want or at < 0 or dense.find(want, at + 1) >= 0:
        return None
    first, last = keep[at], keep[at + len(want) - 1]
    return chars[first : last + 1]


def _raster(boxes: Sequence[Box], frame: tuple[float, float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = frame
    grid = np.zeros((int((y1 - y0) * RES) + 1, int((x1 - x0) * RES) + 1), dtype=bool)
    for b in boxes:
        if b[2] - b[0] <= 0 or b[3] - b[1] <= 0:
            continue
        c0, c1 = round((b[0] - x0) * RES), round((b[2] - x0) * RES)
        r0, r1 = round((b[1] - y0) * RES), round((b[3] - y0) * RES)
        grid[r0:r1, c0:c1] = True
    return grid


def _with_gaps(cells: list[Box]) -> list[Box]:
    """``cells`` and, between two consecutive ones on one row (their heights overlap) with
    a gap between them, the gap over their common height."""
    out = list(cells)
    solid = [b for b in cells if b[2] > b[0] and b[3] > b[1]]
    for a, b in itertools.pairwise(solid):
        low, high = max(a[1], b[1]), min(a[3], b[3])
        if high > low and b[0] > a[2]:
            out.append((a[2], low, b[0], high))
    return out


def tightness(chars: Sequence[tuple[str, Box, Box]], highlight: Sequence[Box]) -> Tightness:
    ink = [c[1] for c in chars if not c[0].isspace()]
    cells = _with_gaps([c[2] for c in chars])
    every = [*ink, *cells, *highlight]
    frame = (
        min(b[0] for b in every) - 1,
        min(b[1] for b in every) - 1,
        max(b[2] for b in every) + 1,
        max(b[3] for b in every) + 1,
    )
    lit, ink_r, cell_r = (_raster(x, frame) for x in (highlight, ink, cells))
    covered = float((ink_r & lit).sum() / max(ink_r.sum(), 1))
    outside = float((lit & ~cell_r).sum() / max(lit.sum(), 1))
    return Tightness(covered, outside)
