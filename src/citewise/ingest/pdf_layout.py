"""Pure layout logic for PDF pages: characters -> lines -> paragraphs, running furniture.

Input is what :mod:`citewise.ingest.pdf` reads from pdfium: the page's characters in
pdfium's order, each with its box in PDF page coordinates (points, origin bottom-left).
Layout decisions (line breaks, paragraph gaps, columns) are made in *display*
coordinates (the page as a viewer shows it after ``/Rotate``); the boxes kept for
locators stay in page coordinates.
"""

from __future__ import annotations

import itertools
import re
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass

Box = tuple[float, float, float, float]  # x0, y0, x1, y1

#: pdfium's marker for a hyphen it found at a line end (the line break is implied).
SOFT_HYPHEN_MARK = "\ufffe"
_HYPHEN_BREAK = re.compile(r"(\w)-\n(?=[a-zäöüßà-ÿ])")
_DIGITS = re.compile(r"\d+")
_WS = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Char:
    text: str
    box: Box | None  # page coordinates; None for generated characters (line breaks)
    height: float = 0.0  # the character's cell height (font size in page space); 0 unknown
    bold: bool = False


@dataclass(slots=True)
class Line:
    """One text line: its characters (no line break) and display-space bounds."""

    chars: list[Char]
    display: Box

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.chars)


def to_display(box: Box, rotation: int, width: float, height: float) -> Box:
    """``box`` in page coordinates -> the viewer's coordinates after a clockwise
    ``/Rotate`` of 0, 90, 180 or 270 degrees (``width``/``height`` unrotated)."""
    x0, y0, x1, y1 = box
    if rotation == 90:
        pts = ((y0, width - x0), (y1, width - x1))
    elif rotation == 180:
        pts = ((width - x0, height - y0), (width - x1, height - y1))
    elif rotation == 270:
        pts = ((height - y0, x0), (height - y1, x1))
    else:
        return box
    (a, b), (c, d) = pts
    return (min(a, c), min(b, d), max(a, c), max(b, d))


def union(boxes: list[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def split_lines(chars: list[Char], rotation: int, width: float, height: float) -> list[Line]:
    """Lines in pdfium's order: a generated ``\\r``/``\\n`` ends a line; pdfium's
    line-end hyphen mark becomes ``-`` and ends the line too. Empty lines are dropped."""
    lines: list[Line] = []
    cur: list[Char] = []

    def close() -> None:
        boxes = [c.box for c in cur if c.box is not None]
        if boxes and "".join(c.text for c in cur).strip():
            disp = union([to_display(b, rotation, width, height) for b in boxes])
            lines.append(Line(list(cur), disp))
        cur.clear()

    for ch in chars:
        if ch.text in "\r\n":
            close()
        elif ch.text == SOFT_HYPHEN_MARK:
            cur.append(Char("-", ch.box, ch.height, ch.bold))
            close()
        else:
            cur.append(ch)
    close()
    for line in lines:  # trailing blanks never end a line's text
        while line.chars and line.chars[-1].text.isspace():
            line.chars.pop()
    return lines


def _same_row(a: Box, b: Box) -> bool:
    """True when the smaller box's vertical middle lies inside the other's range: the
    two are parts of one printed row (a superscript, a fraction, a form field)."""
    small, big = (a, b) if a[3] - a[1] <= b[3] - b[1] else (b, a)
    middle = (small[1] + small[3]) / 2
    return big[1] <= middle <= big[3]


def paragraphs(lines: list[Line]) -> list[list[Line]]:
    """Group consecutive lines into paragraphs by geometry: a new paragraph starts when
    the vertical gap to the previous full-height line exceeds ~0.8 line heights, when the
    next line sits above it (a new column) or does not overlap it horizontally. A line
    on the same printed row as the previous one (superscripts, fractions) continues it."""
    if not lines:
        return []
    heights = [ln.display[3] - ln.display[1] for ln in lines]
    typical = statistics.median(h for h in heights if h > 0) if any(heights) else 10.0
    out: list[list[Line]] = [[lines[0]]]
    anchor = lines[0]  # the last line of ordinary height
    for prev, line in itertools.pairwise(lines):
        if _same_row(prev.display, line.display):
            out[-1].append(line)
        else:
            ref = anchor.display
            gap = ref[1] - line.display[3]  # display y grows upwards
            overlap = min(ref[2], line.display[2]) - max(ref[0], line.display[0])
            new = gap > 0.8 * typical or gap < -0.5 * typical or overlap <= 0
            if new:
                out.append([line])
            else:
                out[-1].append(line)
        if line.display[3] - line.display[1] >= 0.6 * typical:
            anchor = line
    return out


#: Words a printed sentence cannot end with: a paragraph whose last line ends in one
#: was cut by the layout (a figure, a fraction, a column break), not by the author.
_OPEN_WORDS = (
    "a an the of to and or nor but that which who whose is are was were be been has have "
    "had with for from in on at by as than into onto upon its their his her our your"
)
_OPEN_ENDINGS = frozenset(_OPEN_WORDS.split())
_LIST_MARK = re.compile(r"\s*(?:\d{1,3}[.)]|[•●▪◦‣∙·–-])\s+\S")


def continues(before: str, after: str) -> bool:
    """True when the paragraph ``after`` finishes a sentence ``before`` left open: ``before``
    ends without closing punctuation in a lower-case word or a comma, and ``after`` opens
    in lower case, or ``before`` ends in a word no sentence ends with ("... The wing type
    that is" / "the most common ranges ..."), or its last line is running prose ("The FAA
    estimates that this proposed" / "AD affects 73 airplanes"). A list after a lead-in is a
    block of its own."""
    tail, head = before.rstrip(), after.lstrip()
    if not tail or not head or _LIST_MARK.match(head):
        return False
    words = re.findall(r"[A-Za-z]+|\S$", tail)
    last = words[-1] if words else ""
    if not (tail[-1] == "," or (tail[-1].isalpha() and tail[-1].islower())):
        return False
    return head[0].islower() or last.lower() in _OPEN_ENDINGS or _prose_line(tail)


def _prose_line(tail: str) -> bool:
    """The sentence the last line ends in reads as running prose (four words or more, most
    in lower case, a function word among them: "The FAA estimates that this proposed"), not
    a heading ("Costs of Compliance"), a caption ("Flexloc nut Fiber locknut Elastic stop
    nut") or a last word after a full stop ("... collar. This"): the sentence goes on
    whatever the next paragraph opens with."""
    clause = re.split(r"[.!?:;]\s", tail.rsplit("\n", 1)[-1])[-1]
    words = re.findall(r"[A-Za-z][\w'-]*", clause)
    function = any(w in _OPEN_ENDINGS or w in ("this", "these", "those") for w in words)
    return len(words) >= 4 and function and 2 * sum(w[0].islower() for w in words) > len(words)


def list_runs(texts: list[str]) -> list[tuple[int, int]] | None:
    """The items of a paragraph printed as a numbered or bulleted list, as ``[first,
    last)`` line ranges (a line without a marker continues the item before it: "and",
    a wrapped item), or None when the paragraph is not a list (its first line has no
    marker, or fewer than two lines do)."""
    marks = [i for i, t in enumerate(texts) if _LIST_MARK.match(t)]
    if len(marks) < 2 or marks[0] != 0:
        return None
    return [(a, b) for a, b in itertools.pairwise([*marks, len(texts)])]


def search_form(text: str) -> str:
    """The text as search sees it: ligatures unfolded (NFKC: "ﬁ" -> "fi"), words split
    by a line-end hyphen joined, whitespace collapsed. Excerpts keep the exact text."""
    folded = unicodedata.normalize("NFKC", text)
    return _WS.sub(" ", _HYPHEN_BREAK.sub(r"\1", folded)).strip()


def furniture_key(text: str) -> str:
    """Page furniture compares with digits masked (``Page 3`` == ``Page 4``)."""
    return _DIGITS.sub("#", _WS.sub(" ", text).strip().lower())


def running_keys(tops: list[str | None], bottoms: list[str | None]) -> tuple[set[str], set[str]]:
    """Keys of the text that recurs as the first (header) or last (footer) paragraph on
    at least half of the pages, with three pages or more; or on at least half of the odd
    pages or of the even pages (books alternate running headers: the book's title on
    even pages, the chapter's on odd ones), twice at least."""
    pages = len(tops)
    if pages < 3:
        return set(), set()

    def common(keys: list[str | None]) -> set[str]:
        found: set[str] = set()
        for group in (keys, keys[0::2], keys[1::2]):
            counts = Counter(k for k in group if k)
            found |= {k for k, n in counts.items() if n >= max(2, len(group) / 2)}
        return found

    return common(tops), common(bottoms)
