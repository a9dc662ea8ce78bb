"""Section headings of a PDF without a usable outline, from how the text is printed.

Most PDFs carry no bookmarks (12 of the 22 shared papers and documents have none that
name a page); a reader still sees their sections: a short block printed larger than
the body text, or in bold at the body's size ("2.1 System Assumptions", "ABSTRACT").
This module decides, from each line's style (:class:`Style`: the characters' cell
height and weight, read by :mod:`citewise.ingest.pdf`), which paragraphs are headings
and at which level, so a PDF citation names its section like a Markdown one does.

Rules (chosen on the shared papers: dynamo, the-google-file-system, bigtable, bitcoin,
spanner; the documents PDFs were not looked at to choose them):

- the body style is the cell height that most non-blank characters have;
- a heading is a paragraph of at most :data:`MAX_LINES` lines and :data:`MAX_CHARS`
  characters with a word of two letters or more (a form's box labels "72a 72a" have
  none: chosen after looking at f1040nr, a documents PDF), not ending like a sentence or
  a lead-in
  (``.``, ``,``, ``;``, ``:``), made only of figures-free words or a section number, and
  printed at least :data:`LARGER` times the body height, or bold at the body height or
  above (a bold line smaller than the body is a figure label);
- levels: heading styles ranked largest first (bold before regular at one height); a
  numbered heading ("2.", "2.1", "A.3") goes that many levels below its style's rank,
  so "2. BACKGROUND" and "2.1 System Assumptions" nest in the same style;
- front matter (before the first body paragraph) holds no section but the title and
  bold headings ("ABSTRACT"): authors and affiliations are printed larger too.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "BODY_CHARS",
    "LARGER",
    "MAX_CHARS",
    "MAX_LINES",
    "RUNNING",
    "Style",
    "body_height",
    "find_headings",
    "heading_levels",
    "is_heading",
    "lead_heading",
    "line_style",
]

#: A heading is at most this many lines and characters.
MAX_LINES = 2
MAX_CHARS = 100
#: A paragraph this long is body text (the end of a paper's front matter).
BODY_CHARS = 200
#: A heading text found this many times (digits masked) is a running header.
RUNNING = 3
#: Printed this many times the body height or more: a heading by size.
LARGER = 1.15

_NUMBER = re.compile(r"\s*((?:\d{1,2}|[A-Z])(?:\.\d{1,2})*)\.?\s+\S")
#: A heading has a word of two letters or more (a form's box labels "72a 72a" have none).
_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]{2,}")
_BARE_FIGURE = re.compile(r"[\d.,%$€£()\s-]+")


@dataclass(frozen=True, slots=True)
class Style:
    """How a line is printed: its characters' median cell height (points; 0 when
    unknown, as for OCR text) and whether most of them are bold; ``chars`` = how many
    non-blank characters it has (the weight of its vote for the body style)."""

    height: float
    bold: bool
    chars: int


def line_style(heights: Sequence[float], bold: Sequence[bool]) -> Style:
    """The style of a line from its non-blank characters' cell heights and weights."""
    if not heights:
        return Style(0.0, False, 0)
    height = round(statistics.median(heights), 1)
    return Style(height, 5 * sum(bold) >= 4 * len(bold), len(heights))


def body_height(styles: Sequence[Style]) -> float:
    """The cell height most non-blank characters are printed at (0 when none known)."""
    votes: Counter[float] = Counter()
    for s in styles:
        if s.height > 0:
            votes[s.height] += s.chars
    return votes.most_common(1)[0][0] if votes else 0.0


def _styled(style: Style, body: float) -> bool:
    if style.height <= 0 or body <= 0:
        return False
    return style.height >= LARGER * body or (style.bold and style.height >= 0.97 * body)


def is_heading(text: str, styles: Sequence[Style], body: float) -> bool:
    """Whether a paragraph of ``text`` whose lines have ``styles`` reads as a heading."""
    flat = " ".join(text.split())
    if not styles or len(styles) > MAX_LINES or len(flat) > MAX_CHARS:
        return False
    if not _WORD.search(flat) or flat[-1] in ".,;:" or _BARE_FIGURE.fullmatch(flat):
        return False
    return all(_styled(s, body) for s in styles) and len({(s.height, s.bold) for s in styles}) == 1


def _masked(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.split()).lower())


def _depth(text: str) -> int:
    m = _NUMBER.match(text)
    return m.group(1).count(".") + 1 if m else 1


def heading_levels(found: Sequence[tuple[str, Style]]) -> list[int]:
    """The level (1..) of each heading (``text``, its style), in document order."""
    ranks = sorted({(s.height, s.bold) for _, s in found}, key=lambda k: (-k[0], not k[1]))
    rank = {k: i for i, k in enumerate(ranks)}
    return [rank[(s.height, s.bold)] + _depth(t) for t, s in found]


def lead_heading(texts: Sequence[str], styles: Sequence[Style], body: float) -> int:
    """How many first lines of a paragraph (line ``texts`` and ``styles``) are a heading
    printed right above its text with no gap (the paragraph grouping joined them):
    ``k`` when lines ``[:k]`` are a heading and line ``k`` is not printed like them;
    0 when the paragraph opens with no such heading (or is all heading)."""
    for k in range(1, min(MAX_LINES, len(texts) - 1) + 1):
        head, rest = styles[:k], styles[k]
        if (rest.height, rest.bold) == (head[0].height, head[0].bold):
            continue
        return k if is_heading("\n".join(texts[:k]), head, body) else 0
    return 0


def find_headings(paras: Sequence[tuple[str, Sequence[Style]]], body: float) -> dict[int, int]:
    """Index -> level of the paragraphs (text, line styles) that are headings. Front
    matter is no section: before the first body paragraph (:data:`BODY_CHARS` characters
    or more), a larger line in regular weight is an author list or an affiliation, so
    there only bold headings and those of the largest style (the title) count. A line
    printed :data:`RUNNING` times or more (digits aside) is a running header, no heading."""
    found = [(i, t, s[0]) for i, (t, s) in enumerate(paras) if is_heading(t, s, body)]
    running = Counter(_masked(t) for _, t, _ in found)
    found = [f for f in found if running[_masked(f[1])] < RUNNING]
    first_body = next((i for i, (t, _) in enumerate(paras) if len(t) >= BODY_CHARS), 0)
    top = max((s.height for _, _, s in found), default=0.0)
    found = [f for f in found if f[0] >= first_body or f[2].bold or f[2].height >= top]
    levels = heading_levels([(t, s) for _, t, s in found])
    return {i: level for (i, _, _), level in zip(found, levels, strict=True)}
