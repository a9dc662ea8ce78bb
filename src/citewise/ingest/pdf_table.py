"""Tables in PDF text: a paragraph of figure rows, with its caption (issue 15).

A PDF has no table structure; a statistics page prints one line per row ("Texas 21,550
56,941 ... 146,982") and puts the table's title where the layout wants it, often after
the rows in reading order ("NICS Firearm Background Checks" / "November - 2015 ..."). As
one paragraph, a row is lost inside a 57-line "sentence" and its month and year are in
another node. So a paragraph is a ``table`` node when most of its lines are figure rows
(:func:`is_table`): its first line is the header when it holds no figure, every other
line is a ``table_row`` child with its own page box, and the short paragraphs right
before and after it on its page are its caption (``attrs["caption"]``). The caption and
header are added to the search text of the table and of each row (what recall reads);
the stored text, offsets and lines do not change, so citations stay exact, and an answer
reads the caption as the row's context (:mod:`citewise.answer.admission`).

Where the characters' edges are known, the table's columns are found from where its
figures stand (:mod:`citewise.ingest.pdf_columns`), and each row gets the header
mapping Markdown and DOCX rows get (``attrs["header"]``, ``["cells"]``, ``["row"]``;
search text ``State / Territory: Alabama; Permit: 18,870; ...``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citewise.core import char_edges
from citewise.ingest import pdf_columns as cols
from citewise.ingest.markdown import unique_headers
from citewise.ingest.tree import RawNode

__all__ = ["CAPTION_CHARS", "MIN_ROWS", "caption_of", "is_table", "table_node"]

#: A table has at least this many figure rows.
MIN_ROWS = 3
#: A line with at least this many figures is a figure row.
ROW_FIGURES = 3
#: The paragraph right above a table is read for column headers when it has at most
#: this many lines.
HEAD_LINES = 4
#: Text whose bottom is at most this many row heights above the table's first figure
#: row is read as its column headers (a group header over a two-line header).
HEAD_ROWS = 4.0
#: A caption paragraph is at most this long (and two lines).
CAPTION_CHARS = 160

_FIGURE = re.compile(r"(?<![\w.])[$€£]?\d[\d,.]*%?(?![\w])")


_YEAR = re.compile(r"(?:19|20)\d\d")
_WORD = re.compile(r"[^\W\d_]{2,}")


def _figures(line: str) -> int:
    return len(_FIGURE.findall(line))


def year_labels(line: str) -> bool:
    """Whether ``line`` is a row of year column labels ("Charge 2013 edition 2016
    edition", "FY 2013 FY 2014 FY 2015"): every figure a year and at least one word per
    year. Such a line names columns (editions, fiscal years), it holds no data."""
    found = _FIGURE.findall(line)
    return (
        bool(found)
        and all(_YEAR.fullmatch(f) for f in found)
        and (len(_WORD.findall(line)) >= len(found))
    )


def _figure_row(line: str) -> bool:
    """A line of :data:`ROW_FIGURES` figures or more that is no row of year labels."""
    return _figures(line) >= ROW_FIGURES and not year_labels(line)


def is_table(lines: Sequence[str]) -> bool:
    """Whether a paragraph's ``lines`` are a table: at least :data:`MIN_ROWS` lines with
    :data:`ROW_FIGURES` figures or more, and such lines are at least four in five of the
    lines after a header line (a first line without figures)."""
    body = lines[_lead(lines) :]
    rows = sum(1 for ln in body if _figure_row(ln))
    return rows >= MIN_ROWS and rows * 5 >= 4 * len(body)


def _lead(lines: Sequence[str]) -> int:
    """How many first lines are header lines: the first line when it holds no figure,
    and up to :data:`HEAD_LINES` lines with fewer than :data:`ROW_FIGURES` figures
    ("FY 2014" / "Berth Actual") before the first figure row."""
    n = 0
    while n < min(HEAD_LINES, len(lines)) and not _figure_row(lines[n]):
        n += 1
    if n < len(lines) and _figure_row(lines[n]):
        return n
    return 1 if lines and (_figures(lines[0]) == 0 or year_labels(lines[0])) else 0


def caption_of(texts: Sequence[str]) -> str:
    """The caption lines among the paragraphs next to a table (``texts``: the one before
    it, then those after it): short ones (:data:`CAPTION_CHARS`, two lines at most)
    that are no table themselves; up to two, nearest first."""
    out = []
    for t in texts:
        flat = " ".join(t.split())
        if not flat or len(flat) > CAPTION_CHARS or t.count("\n") > 1 or flat.endswith(":"):
            continue
        out.append(flat)
        if len(out) == 2:
            break
    return " / ".join(out)


def table_node(
    text: str,
    paras: Sequence[Any],
    i: int,
    raw_node: Callable[..., RawNode],
    edges: Mapping[int, str] | None = None,
) -> RawNode | None:
    """``paras[i]`` as a table node with its rows, or None when it is no table.
    ``raw_node(text, para, kind)`` builds one node with its page locator; ``edges``
    (line start -> its characters' edges, :mod:`citewise.core.char_edges`) give the
    columns and each row's header mapping (:mod:`citewise.ingest.pdf_columns`)."""
    p = paras[i]
    lines = [text[s:e] for s, e, _ in p.lines]
    if not is_table(lines):
        return None
    page = [q for q in paras if q.page == p.page and not q.furniture]
    k = next(n for n, q in enumerate(page) if q is p)
    near = [page[k - 1]] if k > 0 else []
    near += page[k + 1 : k + 3]
    caption = caption_of([text[q.start : q.end] for q in near])
    lead = _lead(lines)
    header = " ".join(lines[:lead])
    context = "; ".join(x for x in (caption, header) if x)
    table = raw_node(text, p, "table")
    table.search_text = f"{context}\n{table.search_text}" if context else table.search_text
    table.attrs.update(caption=caption, header_line=header)
    first = lead
    grid = _grid(text, page, p, edges or {})
    if grid is not None:
        table.attrs["header"] = grid.names
    for n in range(first, len(p.lines)):
        s, e, box = p.lines[n]
        one = type(p)(p.page, s, e, p.page_start, [(s, e, box)], ocr=p.ocr)
        row = raw_node(text, one, "table_row")
        mapped = grid.row(n) if grid is not None else None
        if mapped is not None and grid is not None:  # the header is in the mapping
            row.search_text = "; ".join(f"{a}: {b}" for a, b in mapped.items() if b)
            row.attrs.update(header=grid.names, cells=list(mapped.values()), row=mapped)
            row.search_text = f"{caption}: {row.search_text}" if caption else row.search_text
        else:
            row.search_text = f"{context}: {row.search_text}" if context else row.search_text
        row.attrs.update(caption=caption)
        table.children.append(row)
    return table


def _line_cells(
    text: str, line: Sequence[Any], edges: Mapping[int, str], window: tuple[float, float] | None
) -> list[tuple[float, cols.Cell]]:
    """The cells of one printed line with their bottoms; with ``window`` (bottom, top),
    only of the characters whose bottom lies in it (a line PDFium joined over several
    rows keeps each character's vertical edges; else the line's box decides)."""
    code = edges.get(int(line[0]), "")
    try:
        x_code, _, y_code = code.partition("|")
        xs, ys = char_edges.decode(x_code), char_edges.decode(y_code) if y_code else None
    except ValueError:
        return []
    chars = text[line[0] : line[1]]
    bottoms = [y[0] for y in ys] if ys else [float(line[2][1])] * len(chars)
    if len(bottoms) != len(chars) or len(xs) != len(chars):
        return []
    if window is not None:
        low, high = window
        chars = "".join(c if low <= y <= high else " " for c, y in zip(chars, bottoms, strict=True))
    out = []
    for a, b in cols.cell_ranges(chars, xs):  # a cell sits on its lowest glyph ("*" is high)
        low = min(bottoms[i] for i in range(a, b + 1) if not chars[i].isspace())
        out.append((low, (chars[a : b + 1], xs[a][0], max(x[1] for x in xs[a : b + 1]))))
    return out


def _head_rows(found: list[tuple[float, cols.Cell]], height: float) -> list[list[cols.Cell]]:
    """Header cells grouped into printed rows (bottoms within half a line height), top
    row first, each row's cells left to right."""
    rows: list[tuple[float, list[cols.Cell]]] = []
    for bottom, cell in sorted(found, key=lambda t: -t[0]):
        if rows and abs(rows[-1][0] - bottom) <= height / 2:
            rows[-1][1].append(cell)
        else:
            rows.append((bottom, [cell]))
    return [sorted(r, key=lambda c: c[1]) for _, r in rows]


@dataclass(frozen=True)
class _Grid:
    """A table's columns: header names (the label column first) and each line's cells."""

    names: list[str]
    spans: list[tuple[float, float]]
    lines: list[list[cols.Cell]]

    def row(self, n: int) -> dict[str, str] | None:
        label, values = cols.row_cells(self.lines[n], self.spans)
        if not any(values):
            return None
        return dict(zip(self.names, [label, *values], strict=True))


def _grid(text: str, page: Sequence[Any], p: Any, edges: Mapping[int, str]) -> _Grid | None:
    """The columns of table paragraph ``p`` with their headers: the text of the page's
    paragraphs (``page``, ``p`` among them) printed within :data:`HEAD_ROWS` line
    heights above its first figure row (column headers are often separate paragraphs
    in reading order), or None when fewer than two columns are found."""
    lines = [[c for _, c in _line_cells(text, ln, edges, None)] for ln in p.lines]
    rows = [n for n, ln in enumerate(p.lines) if _figure_row(text[ln[0] : ln[1]])]
    spans = cols.columns([lines[n] for n in rows])
    if len(spans) < 2 or not rows:
        return None
    box = p.lines[rows[0]][2]
    height = box[3] - box[1]
    window = (box[3] - 0.2 * height, box[3] + HEAD_ROWS * height)
    found = [
        cell
        for q in page
        if q is p or len(q.lines) <= HEAD_LINES
        for ln in q.lines
        if ln[2][1] <= window[1] and ln[2][3] >= window[0]
        for cell in _line_cells(text, ln, edges, window)
    ]
    names = cols.headers(_head_rows(found, height), spans)
    label = names[-1] or "row"
    return _Grid(unique_headers([label, *names[:-1]]), spans, lines)
