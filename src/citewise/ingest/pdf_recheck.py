"""A PDF page whose text fails the glyph check (:mod:`pdf_glyphs`) is read again by a
second extractor, pypdf, and whichever text passes is kept.

PDFium and pypdf read a font's Unicode map with separate code, so a map one of them
misreads the other often reads right. The second text is used in one of two ways:

- **aligned**: it has as many non-blank characters as PDFium's lines (the same glyphs,
  other code points). Each of PDFium's characters takes the other's code point and
  keeps its own box, so the locator stays exact;
- **without boxes**: otherwise its lines replace the page's. pypdf gives no character
  boxes, so each line is placed in the page's text area (for paragraph grouping only)
  and the page's nodes get that area as their box, marked ``degraded``.

Either way the page's locators record ``extractor: pypdf``. When the second text fails
too (both extractors read the same broken map), PDFium's text is kept and the page is
listed in ``metadata["text_suspect"]`` with the reason. ``metadata["text_check"]``
counts pages checked, pages re-extracted and characters changed.
"""

from __future__ import annotations

import difflib
import functools
import io
from dataclasses import dataclass, field
from typing import Any

from citewise.ingest import pdf_layout as lay
from citewise.ingest.pdf_glyphs import GlyphScore, score_text
from citewise.ingest.tree import RawNode

SECOND = "pypdf"
DEGRADED = "text re-extracted with pypdf, which gives no character boxes: boxes cover the page"


@functools.lru_cache(maxsize=2)
def _reader(raw: bytes) -> Any:
    import pypdf  # loaded only when a page fails the check

    reader = pypdf.PdfReader(io.BytesIO(raw))
    if reader.is_encrypted:
        reader.decrypt("")
    return reader


def second_page_text(raw: bytes, index: int) -> str:
    """The page's text as pypdf reads it (empty password tried on an encrypted file);
    the file is opened once for all its failing pages."""
    return str(_reader(raw).pages[index].extract_text() or "")


def _dense(text: str) -> str:
    return "".join(text.split())


def aligned(lines: list[lay.Line], other: str) -> list[lay.Line] | None:
    """PDFium's lines with the other text's code points, when both have the same
    non-blank characters count (else None)."""
    dense = _dense(other)
    mine = [c for line in lines for c in line.chars if not c.text.isspace()]
    if len(mine) != len(dense) or not dense:
        return None
    swap = {id(c): ch for c, ch in zip(mine, dense, strict=True)}
    return [
        lay.Line(
            [lay.Char(swap.get(id(c), c.text), c.box, c.height, c.bold) for c in line.chars],
            line.display,
        )
        for line in lines
    ]


def boxless(other: str, area: lay.Box) -> list[lay.Line]:
    """The other text's lines laid top-down in ``area``; a blank line leaves a gap, so
    paragraph grouping splits there. Boxes are placeholders (see the module doc)."""
    rows = other.splitlines()
    x0, y0, x1, y1 = area
    step = (y1 - y0) / max(2 * len(rows), 1)
    out: list[lay.Line] = []
    slot = 0
    for row in rows:
        slot += 1 if row.strip() else 3
        if row.strip():
            top = y1 - slot * step
            box = (x0, top - step, x1, top)
            out.append(lay.Line([lay.Char(ch, box) for ch in row.strip()], box))
    return out


def _changed(before: str, after: str) -> int:
    a, b = _dense(before), _dense(after)
    if len(a) == len(b):
        return sum(1 for x, y in zip(a, b, strict=True) if x != y)
    same = sum(
        m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    )
    return max(len(a), len(b)) - same


@dataclass
class PageChecker:
    """Checks each page's lines as the parse reads them; see the module doc."""

    raw: bytes
    checked: int = 0
    changed: int = 0
    replaced: dict[int, lay.Box | None] = field(default_factory=dict)  # page -> area if boxless
    suspect: list[dict[str, Any]] = field(default_factory=list)

    def check(self, index: int, lines: list[lay.Line]) -> list[lay.Line]:
        """The page's lines to use (``index`` 0-based)."""
        text = "\n".join(line.text for line in lines)
        score = score_text(text)
        self.checked += 1
        if score.passes:
            return lines
        try:
            other = second_page_text(self.raw, index)
        except Exception as exc:  # pypdf raises many types on a damaged file
            self._suspect(index, score, f"pypdf could not read the page ({exc})")
            return lines
        second = score_text(other)
        if not second.passes or not _dense(other):
            self._suspect(index, score, f"pypdf's text is suspect too: {second.reason()}")
            return lines
        self.changed += _changed(text, other)
        fixed = aligned(lines, other)
        if fixed is not None:
            self.replaced[index + 1] = None
            return fixed
        area = lay.union([line.display for line in lines]) if lines else (0.0, 0.0, 612.0, 792.0)
        self.replaced[index + 1] = area
        return boxless(other, area)

    def _suspect(self, index: int, score: GlyphScore, why: str) -> None:
        self.suspect.append({"page": index + 1, "reason": f"{score.reason()}; {why}"})

    def annotate(self, nodes: list[RawNode]) -> None:
        """Record the extractor (and the degraded boxes) on the re-extracted pages' nodes."""
        for node in nodes:
            loc = node.attrs.get("locator")
            if isinstance(loc, dict) and loc.get("page") in self.replaced:
                loc["extractor"] = SECOND
                area = self.replaced[loc["page"]]
                if area is not None:
                    loc["boxes"] = [list(area)]
                    loc["degraded"] = DEGRADED
                    node.attrs["line_boxes"] = [
                        [s, e, *area] for s, e, *_ in node.attrs.get("line_boxes", [])
                    ]
                    node.attrs.pop("line_x", None)  # placeholder boxes: no edges
            self.annotate(node.children)

    def metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text_check": {
                "pages_checked": self.checked,
                "pages_reextracted": sorted(self.replaced),
                "chars_changed": self.changed,
            }
        }
        if self.suspect:
            out["text_suspect"] = self.suspect
        return out


__all__ = ["DEGRADED", "SECOND", "PageChecker", "aligned", "boxless", "second_page_text"]
