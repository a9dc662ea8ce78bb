"""Locators: where cited characters are in the original file (page, slide, cell, ...).

A binary format's parser puts ``attrs["locator"]`` (a dict; schema in
docs/architecture.md, "Formats") on the nodes it can place. :func:`locate` turns the
nodes of a document version and a cited character range into the citation's locator:

- the locators of the deepest located nodes that the range touches, in document order;
- PDF parts (``page``) are narrowed to the cited characters: ``page_char_start``/
  ``page_char_end`` shift with the range, ``boxes`` are one per line the range touches
  (from ``attrs["line_boxes"]``), narrowed to exactly the cited characters where the
  node keeps their edges (``attrs["line_x"]``, :mod:`citewise.core.char_edges`), and
  parts on the same page merge;
- one part is the locator itself; several become ``{...first part, "parts": [...]}``;
- ``degraded`` (a reason) and ``ocr``/``confidence`` carry over from any part.

Text formats have no locator (``None``): their ``line_start``/``line_end`` and character
offsets already point into the file itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citewise.core.char_edges import cited_boxes
from citewise.core.records import Node


def _located(nodes: Sequence[Node], start: int, end: int) -> list[Node]:
    """Nodes with a locator overlapping [start, end) that contain no other such node."""
    hit = [
        n
        for n in nodes
        if isinstance(n.attrs.get("locator"), dict)
        and n.char_start < max(end, start + 1)
        and start < n.char_end
    ]
    ids = {n.id for n in hit}
    parents = {n.parent_id for n in hit if n.parent_id in ids}
    return sorted((n for n in hit if n.id not in parents), key=lambda n: n.char_start)


def _narrow_cells(node: Node, loc: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """A table row with per-cell ranges (``cell_spans``, ``cell_refs`` by column name):
    the cells the range touches, when it does not cover the whole row."""
    spans, refs = node.attrs["cell_spans"], node.attrs.get("cell_refs") or {}
    names = list(refs)
    hit = [i for i, (s, e) in enumerate(spans) if s < max(end, start + 1) and start < e]
    if not hit or len(hit) == len(spans) or hit[-1] >= len(names):
        return loc
    first, last = refs[names[hit[0]]], refs[names[hit[-1]]]
    loc["cells"] = first if first == last else f"{first}:{last}"
    loc["columns"] = [names[i] for i in hit]
    return loc


def _narrow(node: Node, start: int, end: int) -> dict[str, Any]:
    loc = dict(node.attrs["locator"])
    if "page" not in loc and node.attrs.get("cell_spans"):
        return _narrow_cells(node, loc, start, end)
    if "page" not in loc or "page_char_start" not in loc:
        return loc
    s, e = max(start, node.char_start), min(end, node.char_end)
    base = int(loc["page_char_start"]) - node.char_start
    loc["page_char_start"], loc["page_char_end"] = s + base, e + base
    lines = node.attrs.get("line_boxes")
    if isinstance(lines, list) and lines:
        codes = node.attrs.get("line_x")
        loc["boxes"] = cited_boxes(lines, codes, node.text, node.char_start, s, e)
    return loc


def _merge(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in parts:
        last = out[-1] if out else None
        if last is not None and "page" in p and last.get("page") == p["page"]:
            last["page_char_end"] = p.get("page_char_end", last.get("page_char_end"))
            last["boxes"] = [*last.get("boxes", []), *p.get("boxes", [])]
        elif last is None or last != p:
            out.append(p)
    return out


def locate(nodes: Sequence[Node], start: int, end: int) -> dict[str, Any] | None:
    """The locator of characters [start, end) of a version whose nodes are ``nodes``."""
    parts = _merge([_narrow(n, start, end) for n in _located(nodes, start, end)])
    if not parts:
        return None
    loc = dict(parts[0])
    if len(parts) > 1:
        loc["parts"] = parts
    reasons = sorted({str(p["degraded"]) for p in parts if p.get("degraded")})
    if reasons:
        loc["degraded"] = "; ".join(reasons)
    if any(p.get("ocr") for p in parts):
        loc["ocr"] = True
        confidences = [float(p["confidence"]) for p in parts if "confidence" in p]
        if confidences:
            loc["confidence"] = min(confidences)
    return loc


def locator_fields(locator: dict[str, Any] | None) -> dict[str, Any]:
    """The JSON fields every citation carries: ``locator`` (null for text formats) and,
    when the locator cannot be exact, ``locator_degraded: true`` with the reason."""
    out: dict[str, Any] = {"locator": locator}
    if locator and locator.get("degraded"):
        out["locator_degraded"] = True
        out["locator_degraded_reason"] = str(locator["degraded"])
    return out


def place(locator: dict[str, Any] | None) -> str:
    """A short human label of a locator (``p. 3``, ``slide 2``, ``Sheet1!A7:D7``); empty
    when there is none. CLI and web show it next to the path. Paragraph, table, row and
    cell indexes are shown from 1, as :func:`describe` shows them (the JSON keeps the
    parser's 0-based indexes)."""
    if not locator:
        return ""
    parts = locator.get("parts") or [locator]
    labels: list[str] = []
    for p in parts:
        if "page" in p:
            label = f"p. {p['page']}"
        elif "slide" in p:
            label = f"slide {p['slide']}" + (" notes" if p.get("notes") else "")
        elif "cells" in p:
            label = str(p["cells"])
        elif "sheet" in p:
            label = f"{p['sheet']}" + (f" row {p['row']}" if "row" in p else "")
        elif "table" in p:  # counted from 1 as a reader counts (as in describe())
            label = f"table {int(p['table']) + 1}" + "".join(
                f" {key} {int(p[key]) + 1}" for key in ("row", "cell") if key in p
            )
        elif "paragraph" in p:
            label = f"paragraph {int(p['paragraph']) + 1}"
        elif "chapter" in p:
            label = f"chapter {p['chapter']}"
        else:
            continue
        if label not in labels:
            labels.append(label)
    text = ", ".join(labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
    if locator.get("ocr"):
        text += " (OCR)"
    if locator.get("degraded"):
        text += f" (approximate: {locator['degraded']})"
    return text


def _cells_only(cells: str) -> str:
    """``'Stanley Cups'!A5:C5`` -> ``A5:C5`` (the sheet is named separately)."""
    return cells.rsplit("!", 1)[-1]


def _part_words(p: dict[str, Any]) -> str:
    """One locator part in words; indexes a reader counts (paragraph, table, table row)
    are 1-based here (the JSON keeps the parser's 0-based ``paragraph``/``table``)."""
    if "page" in p:
        return f"page {p['page']}"
    if "sheet" in p:
        words = f"Sheet '{p['sheet']}'"
        if "row" in p:
            words += f" row {p['row']}"
        if "cells" in p:
            words += f", cells {_cells_only(str(p['cells']))}"
        if p.get("columns"):
            words += " (" + ", ".join(f'column "{c}"' for c in p["columns"]) + ")"
        return words
    words = ""
    if "slide" in p:
        words = f"slide {p['slide']}" + (" (notes)" if p.get("notes") else "")
    if "table" in p:
        table = f"table {int(p['table']) + 1}"
        if "row" in p:
            table += f", row {int(p['row']) + 1}"
        words = f"{words}, {table}" if words else table
    elif "paragraph" in p and not words:
        words = f"paragraph {int(p['paragraph']) + 1}"
        for note in ("footnote", "endnote"):
            if note in p:
                words = f"{note} {p[note]} (after {words})"
    if "chapter" in p and not words:
        words = f"chapter {p['chapter']}"
    return words


def describe(locator: dict[str, Any] | None) -> str:
    """The locator in words for a reader: ``Sheet 'X' row 5, cells A5:C5``, ``slide 3
    (notes)``, ``paragraph 12``, ``page 4``; several parts joined by ``; ``; OCR and an
    approximate locator said last. Empty when there is none."""
    if not locator:
        return ""
    words: list[str] = []
    for p in locator.get("parts") or [locator]:
        w = _part_words(p)
        if w and w not in words:
            words.append(w)
    text = "; ".join(words)
    if locator.get("ocr"):
        text += " (OCR)"
    if locator.get("degraded"):
        text += f" (approximate: {locator['degraded']})"
    return text
