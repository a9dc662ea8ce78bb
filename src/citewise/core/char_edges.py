"""Span-tight PDF boxes: the horizontal edges of every character of a printed line.

A PDF paragraph node keeps one box per line (``attrs["line_boxes"]``: ``[start, end, x0,
y0, x1, y1]``); a citation of part of a line would highlight the whole line. So the
parser also keeps, per line, each character's left and right edge
(``attrs["line_x"]``, parallel to ``line_boxes``), and a citation's box on a line is the
line's vertical extent over exactly the cited characters' horizontal extent, leading and
trailing blanks left out (:func:`cited_boxes`). A "line" that PDFium read over several
printed rows also keeps each character's bottom and top, so its cited characters are
boxed row by row.

Encoding (compact: a page holds thousands of characters): edges in quarters of a point,
as integers, delta-coded along the line and written as one comma-separated string: ``x0
of the first character, its width, then for every further character the gap from the
previous right edge (may be negative: kerning, overlapping glyphs) and its width``. A
character without a box (generated text) is a zero gap and a zero width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Edges are kept in quarters of a point (0.09 mm): below what a highlight can show.
SCALE = 4

Edges = tuple[float, float]


def encode(edges: Sequence[Edges | None]) -> str:
    """``edges`` (left, right per character, None without a box) -> the line's code."""
    out: list[int] = []
    prev: int | None = None
    for edge in edges:
        if edge is None:
            left = right = prev if prev is not None else 0
        else:
            # rounded outwards: the kept edges always contain the glyph
            left, right = math.floor(edge[0] * SCALE), math.ceil(edge[1] * SCALE)
            right = max(right, left)
        out.extend((left if prev is None else left - prev, right - left))
        prev = right
    return ",".join(map(str, out))


def decode(code: str) -> list[Edges]:
    """The line's code -> (left, right) per character, in points (``ValueError`` when
    it is not a code)."""
    numbers = [int(v) for v in code.split(",")] if code else []
    out: list[Edges] = []
    right = 0
    for i in range(0, len(numbers) - 1, 2):
        left = numbers[i] if i == 0 else right + numbers[i]
        right = left + numbers[i + 1]
        out.append((left / SCALE, right / SCALE))
    return out


#: A gap wider than this many typical character widths between two cited characters of
#: one line splits its box: columns or table cells that one printed line runs across
#: (a justified line's widest word gap stays well below it).
GAP_CHARS = 4.0

#: One box of a cited range: left, right, and bottom, top (None: the line's own).
Span = tuple[float, float, float | None, float | None]


def line_code(xs: Sequence[Edges | None], ys: Sequence[Edges | None] | None = None) -> str:
    """A line's code: its characters' horizontal edges and, for a line that runs over
    several printed rows (PDFium joins rows it reads as one line: interleaved columns,
    form fields), their vertical edges too, after a ``|``."""
    return encode(xs) if ys is None else f"{encode(xs)}|{encode(ys)}"


def span_edges(
    xs: Sequence[Edges], ys: Sequence[Edges] | None, text: str, first: int, last: int
) -> list[Span]:
    """The boxes of characters ``[first, last)`` of a line whose text is ``text`` and
    (decoded) edges ``xs`` (and ``ys`` when kept), blanks left out: one box per run of
    characters on one row without a gap wider than :data:`GAP_CHARS` typical character
    widths; empty when the range holds only blanks."""
    inked = [i for i in range(first, last) if not text[i].isspace()]
    if not inked:
        return []
    widths = sorted(xs[i][1] - xs[i][0] for i in inked)
    limit = GAP_CHARS * max(widths[len(widths) // 2], 1.0)
    runs: list[list[int]] = [[inked[0]]]
    left, right = xs[inked[0]]
    for i in inked[1:]:
        a, b = xs[i]
        other_row = ys is not None and not _overlap(ys[i], ys[runs[-1][-1]])
        if other_row or a - right > limit or b < left - limit:
            runs.append([i])
            left, right = a, b
        else:
            runs[-1].append(i)
            left, right = min(left, a), max(right, b)
    return [_box(run, xs, ys) for run in runs]


def _overlap(a: Edges, b: Edges) -> bool:
    return min(a[1], b[1]) > max(a[0], b[0]) or a[0] == a[1] or b[0] == b[1]


def _box(run: list[int], xs: Sequence[Edges], ys: Sequence[Edges] | None) -> Span:
    left, right = min(xs[i][0] for i in run), max(xs[i][1] for i in run)
    if ys is None:
        return left, right, None, None
    return left, right, min(ys[i][0] for i in run), max(ys[i][1] for i in run)


def cited_boxes(
    lines: Sequence[Sequence[float]],
    codes: Sequence[str] | None,
    text: str,
    base: int,
    start: int,
    end: int,
) -> list[list[float]]:
    """Boxes of document characters ``[start, end)`` of a node whose ``line_boxes`` are
    ``lines``, ``line_x`` ``codes`` (None for nodes stored before edges were kept) and
    text ``text`` starting at document offset ``base``: one box per line the range
    touches, narrowed to the cited characters where the line's edges are known (split
    where the cited characters of one line are far apart or on other rows,
    :func:`span_edges`; else the whole line's box: an empty code marks a line not
    printed left to right, and a code that does not fit its line is not trusted)."""
    out: list[list[float]] = []
    usable = codes is not None and len(codes) == len(lines)
    for n, line in enumerate(lines):
        s, e = int(line[0]), int(line[1])
        if not (s < max(end, start + 1) and start < e):
            continue
        box = [float(v) for v in line[2:6]]
        line_text = text[s - base : e - base]
        xs, ys = _edges(codes[n]) if usable and codes is not None else ([], None)
        if len(xs) == len(line_text) and xs and (ys is None or len(ys) == len(xs)):
            a, b = max(start, s), min(end, e)
            spans = span_edges(xs, ys, line_text, a - s, b - s)  # [] when only blanks
            if start > s or end < e or len(spans) > 1:
                out.extend(_rounded(sp, box) for sp in spans)
                continue
        out.append([round(v, 2) for v in box])
    if not out and usable:  # only blanks cited (an empty range): the lines it touches
        return cited_boxes(lines, None, text, base, start, end)
    return out


def _rounded(span: Span, line: list[float]) -> list[float]:
    x0, x1, y0, y1 = span
    bottom = line[1] if y0 is None else y0
    top = line[3] if y1 is None else y1
    return [round(v, 2) for v in (x0, bottom, x1, top)]


def _edges(code: object) -> tuple[list[Edges], list[Edges] | None]:
    """A stored code decoded (horizontal edges, vertical ones when kept), or ``([],
    None)`` when it is none (a damaged or foreign value)."""
    if not isinstance(code, str):
        return [], None
    try:
        x, _, y = code.partition("|")
        return decode(x), (decode(y) if y else None)
    except ValueError:
        return [], None


__all__ = ["GAP_CHARS", "SCALE", "cited_boxes", "decode", "encode", "line_code", "span_edges"]
