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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from citewise.ingest.tree import RawNode

__all__ = ["CAPTION_CHARS", "MIN_ROWS", "caption_of", "is_table", "table_node"]

#: A table has at least this many figure rows.
MIN_ROWS = 3
#: A line with at least this many figures is a figure row.
ROW_FIGURES = 3
#: A caption paragraph is at most this long (and two lines).
CAPTION_CHARS = 160

_FIGURE = re.compile(r"(?<![\w.])[$€£]?\d[\d,.]*%?(?![\w])")


def _figures(line: str) -> int:
    return len(_FIGURE.findall(line))


def is_table(lines: Sequence[str]) -> bool:
    """Whether a paragraph's ``lines`` are a table: at least :data:`MIN_ROWS` lines with
    :data:`ROW_FIGURES` figures or more, and such lines are at least four in five of the
    lines after a header line (a first line without figures)."""
    body = lines[1:] if lines and _figures(lines[0]) == 0 else lines
    rows = sum(1 for ln in body if _figures(ln) >= ROW_FIGURES)
    return rows >= MIN_ROWS and rows * 5 >= 4 * len(body)


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
    text: str, paras: Sequence[Any], i: int, raw_node: Callable[..., RawNode]
) -> RawNode | None:
    """``paras[i]`` as a table node with its rows, or None when it is no table.
    ``raw_node(text, para, kind)`` builds one node with its page locator."""
    p = paras[i]
    lines = [text[s:e] for s, e, _ in p.lines]
    if not is_table(lines):
        return None
    page = [q for q in paras if q.page == p.page and not q.furniture]
    k = next(n for n, q in enumerate(page) if q is p)
    near = [page[k - 1]] if k > 0 else []
    near += page[k + 1 : k + 3]
    caption = caption_of([text[q.start : q.end] for q in near])
    header = lines[0] if _figures(lines[0]) == 0 else ""
    context = "; ".join(x for x in (caption, header) if x)
    table = raw_node(text, p, "table")
    table.search_text = f"{context}\n{table.search_text}" if context else table.search_text
    table.attrs.update(caption=caption, header_line=header)
    first = 1 if header else 0
    for n in range(first, len(p.lines)):
        s, e, box = p.lines[n]
        one = type(p)(p.page, s, e, p.page_start, [(s, e, box)], ocr=p.ocr)
        row = raw_node(text, one, "table_row")
        row.search_text = f"{context}: {row.search_text}" if context else row.search_text
        row.attrs.update(caption=caption)
        table.children.append(row)
    return table
