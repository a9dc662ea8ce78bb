"""Columns of a PDF table from where its characters are printed (issue 36).

A table paragraph (:mod:`citewise.ingest.pdf_table`) is a stack of printed lines; its
columns are where the figures stand. Each line is cut into cells at gaps wider than
:data:`CELL_GAP` typical character widths (:func:`cells`); the figure cells of the rows,
overlapping horizontally, make the columns (:func:`columns`); every header cell above
(lines of the table without figures and the short lines printed right above it) is
put over the columns it overlaps, top to bottom, so a header printed on two lines
("FY 2013" over "Actual") reads as one ("FY 2013 Actual") and a group header over
several columns ("Pre-Pawn" over "Handgun", "Long Gun") prefixes each of them
(:func:`headers`). A row then maps each header to its cell (:func:`row_cells`).

Chosen on the NICS statistics PDF and generated tables; the papers' and the other
documents' tables were not used to choose :data:`CELL_GAP`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "CELL_GAP",
    "Cell",
    "cell_ranges",
    "cells",
    "columns",
    "headers",
    "is_figure",
    "row_cells",
]

#: A blank wider than this many typical character widths between two printed
#: characters separates two cells (a word space is about half a character).
CELL_GAP = 1.5

Cell = tuple[str, float, float]  # text, left, right
_FIGURE = re.compile(r"[(\-–]?[$€£]?\d[\d,.]*%?\)?|[-–—]|n/?a", re.IGNORECASE)


def is_figure(text: str) -> bool:
    return _FIGURE.fullmatch(text.strip()) is not None


def cells(text: str, xs: Sequence[tuple[float, float]]) -> list[Cell]:
    """``text`` (one printed line, one ``xs`` edge pair per character) cut at wide gaps."""
    return [_cell(text, xs, a, b) for a, b in cell_ranges(text, xs)]


def cell_ranges(text: str, xs: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """The cells of :func:`cells` as (first, last) character indexes, both inked."""
    inked = [i for i, ch in enumerate(text) if not ch.isspace()]
    if not inked or len(xs) != len(text):
        return []
    widths = sorted(xs[i][1] - xs[i][0] for i in inked)
    limit = CELL_GAP * max(widths[len(widths) // 2], 1.0)
    out: list[tuple[int, int]] = []
    first = prev = inked[0]
    for i in inked[1:]:
        if xs[i][0] - xs[prev][1] > limit:
            out.append((first, prev))
            first = i
        prev = i
    out.append((first, prev))
    return out


def _cell(text: str, xs: Sequence[tuple[float, float]], first: int, last: int) -> Cell:
    return text[first : last + 1], xs[first][0], xs[last][1]


def columns(rows: Sequence[Sequence[Cell]]) -> list[tuple[float, float]]:
    """The columns (left, right) the rows' figure cells stand in, left to right: figure
    cells that overlap horizontally are one column."""
    spans = sorted((c[1], c[2]) for row in rows for c in row if is_figure(c[0]))
    out: list[tuple[float, float]] = []
    for left, right in spans:
        if out and left <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], right))
        else:
            out.append((left, right))
    return out


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return min(a[1], b[1]) - max(a[0], b[0])


def _nearest(cols: Sequence[tuple[float, float]], cell: Cell) -> int:
    middle = (cell[1] + cell[2]) / 2
    return min(range(len(cols)), key=lambda k: abs((cols[k][0] + cols[k][1]) / 2 - middle))


def _territories(line: Sequence[Cell]) -> list[tuple[float, float]]:
    """Each cell's stretch of the line: to halfway to its neighbours (a header is
    centred over the columns it names, often narrower than they are); the end cells
    stretch outwards as far as inwards."""
    out = []
    for k, (_, left, right) in enumerate(line):
        before = (left - line[k - 1][2]) / 2 if k > 0 else None
        after = (line[k + 1][1] - right) / 2 if k + 1 < len(line) else None
        before = after if before is None else before
        after = before if after is None else after
        out.append((left - (before or 0.0), right + (after or 0.0)))
    return out


def headers(head_lines: Sequence[Sequence[Cell]], cols: Sequence[tuple[float, float]]) -> list[str]:
    """One header per column, then the label column's (the cells left of the first
    column) last: each header line names a column by the cell whose stretch
    (:func:`_territories`) holds the column's middle; the names join top to bottom."""
    parts: list[list[str]] = [[] for _ in range(len(cols) + 1)]
    for line in head_lines:
        left_of = [c for c in line if cols and c[2] <= cols[0][0]]
        parts[-1].extend(c[0] for c in left_of)
        rest = [c for c in line if c not in left_of]
        stretch = _territories(rest)
        for k, col in enumerate(cols):
            middle = (col[0] + col[1]) / 2
            hit = [c for c, (a, b) in zip(rest, stretch, strict=True) if a <= middle <= b]
            if hit:
                parts[k].append(hit[0][0])
    return [" ".join(" ".join(p).split()) for p in parts]


def row_cells(row: Sequence[Cell], cols: Sequence[tuple[float, float]]) -> tuple[str, list[str]]:
    """(the row's label: its cells left of the first column, one value per column:
    the figure cells standing in it, "" where none does)."""
    values = [""] * len(cols)
    label: list[str] = []
    for cell in row:
        if cols and cell[2] <= cols[0][0] and not is_figure(cell[0]):
            label.append(cell[0])
            continue
        if not cols:
            continue
        k = _nearest(cols, cell)
        values[k] = f"{values[k]} {cell[0]}".strip()
    return " ".join(label), values
