"""PDF: text per page with character boxes (pypdfium2), as an :class:`Extracted`.

The extracted text is the pages' text in order, page after page separated by a blank
line; a page's text is its paragraphs (from line geometry, see :mod:`pdf_layout`)
separated by blank lines, lines by ``\\n``. A paragraph never crosses a page.

Every paragraph carries ``attrs["locator"]`` = ``{"page", "page_char_start",
"page_char_end", "boxes"}`` (1-based page, character range in that page's text, one box
per line in PDF page coordinates) and ``attrs["line_boxes"]`` = ``[[start, end, x0, y0,
x1, y1], ...]`` (document offsets of each line and its box) and ``attrs["line_x"]`` (each
line's character edges, :mod:`citewise.core.char_edges`), from which a citation of part
of a paragraph gets one box per line around exactly the cited characters. Running
headers and footers become ``page_furniture`` nodes (stored, never chunked, so never in
answers). Pages without a text layer are listed in ``metadata["needs_ocr"]``.

Budgets (``ingest.limits``): a PDF of more than ``max_pages`` pages fails before any
per-page work; a scanned page is rendered for OCR within ``max_render_pixels`` (at a
lowered dpi, its locators degraded, when 300 dpi would not fit); OCR time is bounded per
page and per file (:meth:`ParseBudget.ocr_allowance`).
"""

from __future__ import annotations

import ctypes
import re
import threading
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from citewise.core import char_edges
from citewise.core.records import NodeKind
from citewise.errors import BrokenFile, Encrypted, NeedsOCR
from citewise.ingest import pdf_headings as heads
from citewise.ingest import pdf_layout as lay
from citewise.ingest import pdf_ocr, pdf_table
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget, limit_error
from citewise.ingest.pdf_recheck import PageChecker
from citewise.ingest.tree import Heading, RawNode, nest_sections

#: Held around every PDFium call (parse, OCR rendering, page images): PDFium must never
#: be entered from two threads at once, and the server parses and renders in threads.
PDFIUM_LOCK = threading.RLock()

PAGE_SEPARATOR = "\n\n"
#: A /Title that is only a file name (what some producers write there).
_FILE_NAME = re.compile(r"\S+\.[A-Za-z0-9]{2,4}")
PARAGRAPH_SEPARATOR = "\n\n"
#: A font weight of at least this is bold (CSS weights: 400 regular, 700 bold).
_BOLD = 600
#: The font's height and weight are read on every this-many-th character (a line's style
#: is their median; reading all costs two more PDFium calls per character).
_STYLE_EVERY = 3
#: A line taller than this many of its characters' median height runs over several rows.
_ROWS = 1.8
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibd", re.IGNORECASE)


@dataclass(slots=True)
class _Para:
    page: int  # 1-based
    start: int  # document offsets
    end: int
    page_start: int  # page offsets
    lines: list[tuple[int, int, lay.Box]]  # document offsets and page-space box per line
    furniture: str = ""  # "header" / "footer"
    ocr: float | None = None  # mean OCR word confidence (0..1) when the text is OCR output
    ocr_dpi: int | None = None  # set when OCR read the page below 300 dpi (pixel cap)


def _opens_without_pages(raw: bytes) -> bool:
    """True when PDFium loads ``raw`` but finds no page: an empty page tree, or one that
    declares more pages than PDFium accepts (about a million). PDFium then leaves its
    last error as it was, so that error may belong to another, earlier file."""
    handle = pdfium_c.FPDF_LoadMemDocument64(raw, len(raw), None)
    if not handle:
        return False
    pdfium_c.FPDF_CloseDocument(handle)
    return True


def open_pdf(raw: bytes, name: str) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(raw, password="")
    except pdfium.PdfiumError as exc:
        if _opens_without_pages(raw):
            raise BrokenFile(
                f"{name}: the PDF has no page PDFium can read (an empty page tree, or one "
                "declaring more pages than PDFium accepts).",
                hint="Check that the file is a complete PDF (re-export or re-download it).",
            ) from exc
        if pdfium_c.FPDF_GetLastError() == pdfium_c.FPDF_ERR_PASSWORD or "password" in str(exc):
            raise Encrypted(
                f"{name}: the PDF is encrypted and does not open with an empty password.",
                hint="Save an unencrypted copy (or remove the password) and add that file.",
            ) from exc
        raise BrokenFile(
            f"{name}: not a readable PDF ({exc}).",
            hint="Check that the file is a complete PDF (re-export or re-download it).",
        ) from exc


def _chars(page: pdfium.PdfPage) -> list[lay.Char]:
    tp = page.get_textpage()
    names = ctypes.create_string_buffer(128)
    try:
        n = tp.count_chars()
        text = tp.get_text_range(0, n) if n else ""
        if len(text) != n:  # characters outside the BMP: read one by one
            text = "".join(tp.get_text_range(i, 1) or "\ufffd" for i in range(n))
        out = []
        for i, ch in enumerate(text):
            if ch in "\r\n":
                out.append(lay.Char(ch, None))
                continue
            x0, y0, x1, y1 = tp.get_charbox(i)
            box = (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2))
            if i % _STYLE_EVERY:  # style read on every few characters (a line's median)
                out.append(lay.Char(ch, box))
                continue
            cell = tp.get_charbox(i, loose=True)  # the font's height: headings (pdf_headings)
            out.append(lay.Char(ch, box, round(cell[3] - cell[1], 1), _bold(tp, i, names)))
        return out
    finally:
        tp.close()


def _bold(tp: pdfium.PdfTextPage, i: int, buffer: ctypes.Array[ctypes.c_char]) -> bool:
    """Whether character ``i`` is set in a bold face: its font's weight, or (a font
    without a descriptor, such as the standard 14, has weight 0) a bold word in its
    name ("Helvetica-Bold", "Arial-BoldMT", "NimbusSans-Black")."""
    weight = pdfium_c.FPDFText_GetFontWeight(tp.raw, i)
    if weight > 0:
        return bool(weight >= _BOLD)
    size = pdfium_c.FPDFText_GetFontInfo(tp.raw, i, buffer, len(buffer), None)
    name = buffer.value.decode("latin-1", "replace") if 0 < size <= len(buffer) else ""
    return _BOLD_NAME.search(name) is not None


def _has_images(page: pdfium.PdfPage) -> bool:
    return any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2))


def _outline(pdf: pdfium.PdfDocument) -> list[tuple[int, str, int]]:
    """(level 1.., title, 1-based page) of every bookmark that names a page."""
    out = []
    try:
        for item in pdf.get_toc(max_depth=6):
            title = " ".join((item.get_title() or "").split())
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            if title and index is not None:
                out.append((item.level + 1, title, index + 1))
    except pdfium.PdfiumError:
        return []
    return out


def parse_pdf(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    """The PDF's text, nodes and metadata. PDFium is not thread-safe (not even across
    documents), so every PDFium call of the process runs under :data:`PDFIUM_LOCK`; the
    lock is taken per page, and Tesseract reads a rendered page outside it. OCR time is
    set aside from the file's ``max_seconds`` and bounded per page and per file by
    ``ocr_seconds_per_page`` and ``ocr_seconds_per_file`` instead."""
    budget = budget or ParseBudget(name)
    with PDFIUM_LOCK:
        pdf = open_pdf(raw, name)
    try:
        return _parse_pdf(pdf, name, budget, PageChecker(raw))
    finally:
        with PDFIUM_LOCK:
            pdf.close()


def _read_page(
    pdf: pdfium.PdfDocument, index: int, can_ocr: bool, max_pixels: int
) -> tuple[list[lay.Line], pdf_ocr.PageImage | None, bool]:
    """(text-layer lines, the page rendered for OCR when it needs and may have it,
    whether it is an image-only page). Takes :data:`PDFIUM_LOCK`."""
    with PDFIUM_LOCK:
        page = pdf[index]
        try:
            # Layout runs in page space: text is laid out upright there even when
            # /Rotate turns the page in the viewer (the web view applies /Rotate).
            lines = lay.split_lines(_chars(page), 0, 0.0, 0.0)
            scanned = not lines and _has_images(page)
            image = pdf_ocr.render(page, max_pixels) if scanned and can_ocr else None
            return lines, image, scanned
        finally:
            page.close()


def _ocr(
    image: pdf_ocr.PageImage, name: str, page: int, budget: ParseBudget
) -> list[tuple[list[lay.Line], float | None]]:
    """OCR of one rendered page, outside the lock, on its own time allowance (the smaller
    of the per-page one and what is left of the file's)."""
    allowance, setting = budget.ocr_allowance()
    with budget.ocr():
        try:
            found = pdf_ocr.read(image, allowance)
        except pdf_ocr.OcrTimeout as exc:
            limit = float(getattr(budget.limits, setting))
            raise limit_error(name, f"OCR of page {page}", setting, limit) from exc
    return [(p.lines, p.confidence) for p in found]


def _parse_pdf(
    pdf: pdfium.PdfDocument, name: str, budget: ParseBudget, checker: PageChecker
) -> Extracted:
    parts: list[str] = []
    paras: list[_Para] = []
    needs_ocr: list[int] = []
    ocr_pages: list[int] = []
    edges: dict[int, str] = {}  # line start -> its characters' edges (char_edges)
    styles: dict[int, heads.Style] = {}  # line start -> how it is printed (pdf_headings)
    can_ocr = pdf_ocr.available()
    pos = 0
    with PDFIUM_LOCK:
        count = len(pdf)
    if count > budget.limits.max_pages:  # before any work per page (a page tree's /Count)
        raise limit_error(name, f"{count:,} pages", "max_pages", budget.limits.max_pages)
    max_pixels = budget.limits.max_render_pixels
    for index in range(count):
        budget.check_time()
        lines, image, scanned = _read_page(pdf, index, can_ocr, max_pixels)
        lines = checker.check(index, lines)  # text checked, not trusted (pdf_recheck)
        groups: list[tuple[list[lay.Line], float | None]] = [
            (g, None) for g in lay.paragraphs(lines)
        ]
        ocr_dpi = None
        if image is not None:
            groups = _ocr(image, name, index + 1, budget)
            ocr_pages.append(index + 1)
            ocr_dpi = image.dpi if image.lowered else None
        if scanned and not groups:  # no engine, or OCR found no words: say so
            needs_ocr.append(index + 1)
        if parts:
            parts.append(PAGE_SEPARATOR)
            pos += len(PAGE_SEPARATOR)
        page_start = pos
        for p_no, (group, confidence) in enumerate(groups):
            if p_no:
                parts.append(PARAGRAPH_SEPARATOR)
                pos += len(PARAGRAPH_SEPARATOR)
            start = pos
            spans: list[tuple[int, int, lay.Box]] = []
            for l_no, line in enumerate(group):
                if l_no:
                    parts.append("\n")
                    pos += 1
                text = line.text
                boxes = [c.box for c in line.chars if c.box is not None]
                parts.append(text)
                spans.append((pos, pos + len(text), lay.union(boxes)))
                edges[pos] = _line_code(line, spans[-1][2])
                styles[pos] = _style(line)
                pos += len(text)
            paras.append(
                _Para(index + 1, start, pos, page_start, spans, ocr=confidence, ocr_dpi=ocr_dpi)
            )
            budget.step()
    text = "".join(parts)
    with PDFIUM_LOCK:
        outline = _outline(pdf)
        info_title = _info_title(pdf)
    pages = count
    if not text.strip() and needs_ocr:
        raise NeedsOCR(
            f"{name}: no page has a text layer (scanned pages {_pages(needs_ocr)}) and "
            "no OCR engine is available (or OCR found no text).",
            hint="Install one (apt-get install tesseract-ocr; pip install pytesseract) or run "
            "OCR on the file first (e.g. ocrmypdf) and add the result.",
        )
    _mark_furniture(text, paras)
    paras = _joined(text, paras)
    body = heads.body_height(list(styles.values()))
    paras = _split_heads(text, paras, styles, body)
    metadata: dict[str, Any] = {"pages": pages}
    if ocr_pages:
        metadata["ocr_pages"] = ocr_pages
    if needs_ocr:
        metadata["needs_ocr"] = needs_ocr
    nodes = _tree(text, paras, outline, None, edges)
    if not any(n.kind == "section" for n in nodes):  # no outline, or none of it matched
        found = _style_headings(text, paras, styles, body)
        nodes = _tree(text, paras, [], found, edges) if found else nodes
    _attach_edges(nodes, edges)
    checker.annotate(nodes)
    metadata.update(checker.metadata())
    # The title is /Title, else (None) the file name: a PDF has no document heading of
    # its own, and its first bookmark names a chapter ("1 Topologische Grundbegriffe").
    return Extracted(text, nodes, info_title, metadata)


def _style(line: lay.Line) -> heads.Style:
    inked = [c for c in line.chars if not c.text.isspace() and c.height > 0]
    return heads.line_style([c.height for c in inked], [c.bold for c in inked])


def _split_heads(
    text: str, paras: list[_Para], styles: dict[int, heads.Style], body: float
) -> list[_Para]:
    """Paragraphs with a heading printed right above its text (no gap, so grouped with
    it) split off as a paragraph of its own (:func:`pdf_headings.lead_heading`)."""
    out: list[_Para] = []
    for p in paras:
        k = 0
        if not p.furniture and p.ocr is None:
            texts = [text[s:e] for s, e, _ in p.lines]
            k = heads.lead_heading(texts, [styles[s] for s, _, _ in p.lines], body)
        if not k:
            out.append(p)
            continue
        head, rest = p.lines[:k], p.lines[k:]
        out.append(_Para(p.page, p.start, head[-1][1], p.page_start, head))
        out.append(_Para(p.page, rest[0][0], p.end, p.page_start, rest))
    return out


def _style_headings(
    text: str, paras: list[_Para], styles: dict[int, heads.Style], body: float
) -> dict[int, int]:
    """Start offset -> level of the paragraphs printed as headings (a PDF without an
    outline, :mod:`citewise.ingest.pdf_headings`)."""
    usable = [p for p in paras if not p.furniture and p.ocr is None]
    shown = [(text[p.start : p.end], [styles[s] for s, _, _ in p.lines]) for p in usable]
    return {usable[i].start: lv for i, lv in heads.find_headings(shown, body).items()}


def _line_code(line: lay.Line, box: lay.Box) -> str:
    """The line's character edges (:func:`char_edges.line_code`; with their vertical
    edges when the line is taller than :data:`_ROWS` of its characters: several printed
    rows), or ``""`` when the line is not printed left to right in page space (taller
    than wide: turned text), where horizontal edges say nothing of where a character is."""
    if len(line.chars) > 1 and box[3] - box[1] > box[2] - box[0]:
        return ""
    xs = [(c.box[0], c.box[2]) if c.box else None for c in line.chars]
    heights = sorted(c.box[3] - c.box[1] for c in line.chars if c.box and c.box[3] > c.box[1])
    tall = bool(heights) and box[3] - box[1] > _ROWS * heights[len(heights) // 2]
    ys = [(c.box[1], c.box[3]) if c.box else None for c in line.chars] if tall else None
    return char_edges.line_code(xs, ys)


def _attach_edges(nodes: list[RawNode], edges: dict[int, str]) -> None:
    """``attrs["line_x"]``, parallel to ``attrs["line_boxes"]``, on every node with line
    boxes: a citation of part of a line is boxed around exactly its characters."""
    for node in nodes:
        lines = node.attrs.get("line_boxes")
        if lines:
            node.attrs["line_x"] = [edges.get(int(b[0]), "") for b in lines]
        _attach_edges(node.children, edges)


def _info_title(pdf: pdfium.PdfDocument) -> str | None:
    """The document information dictionary's /Title, whitespace collapsed (None if
    absent, blank or only a file name)."""
    try:
        value = pdf.get_metadata_value("Title")
    except (pdfium.PdfiumError, KeyError):
        return None
    title = " ".join(str(value or "").split())
    if _FILE_NAME.fullmatch(title):  # "Binder1.pdf", "zen_of_python.txt": not a title
        return None
    return title or None


def _pages(pages: list[int]) -> str:
    return ", ".join(str(p) for p in pages)


def _mark_furniture(text: str, paras: list[_Para]) -> None:
    by_page: dict[int, list[_Para]] = {}
    for p in paras:
        by_page.setdefault(p.page, []).append(p)
    ordered = [by_page.get(n, []) for n in range(1, max(by_page, default=0) + 1)]
    tops = [lay.furniture_key(text[ps[0].start : ps[0].end]) if ps else None for ps in ordered]
    bottoms = [lay.furniture_key(text[ps[-1].start : ps[-1].end]) if ps else None for ps in ordered]
    heads, foots = lay.running_keys(tops, bottoms)
    for ps, top, bottom in zip(ordered, tops, bottoms, strict=True):
        if len(ps) > 1 and top in heads:
            ps[0].furniture = "header"
        if len(ps) > 1 and bottom in foots:
            ps[-1].furniture = "footer"


def _joined(text: str, paras: list[_Para]) -> list[_Para]:
    """Paragraphs with each one that only finishes the sentence before it on its page
    (a figure, a fraction or a column cut the sentence, see :func:`pdf_layout.continues`)
    joined to that one: one node spans both, the blank line between them stays in the
    text (offsets and lines do not move)."""
    out: list[_Para] = []
    for p in paras:
        q = out[-1] if out else None
        if (
            q is not None
            and q.page == p.page
            and not (q.furniture or p.furniture)
            and q.ocr is None
            and p.ocr is None
            and lay.continues(text[q.lines[-1][0] : q.lines[-1][1]], text[p.start : p.end])
        ):
            out[-1] = _Para(q.page, q.start, p.end, q.page_start, [*q.lines, *p.lines])
        else:
            out.append(p)
    return out


def _items(text: str, p: _Para) -> list[_Para] | None:
    """A paragraph printed as a numbered or bulleted list, split into its items (each
    with its own lines and boxes), or None when it is not one."""
    if p.furniture:
        return None
    runs = lay.list_runs([text[s:e] for s, e, _ in p.lines])
    if runs is None:
        return None
    return [
        _Para(
            p.page,
            p.lines[a][0],
            p.lines[b - 1][1],
            p.page_start,
            p.lines[a:b],
            p.furniture,
            p.ocr,
            p.ocr_dpi,
        )
        for a, b in runs
    ]


def _raw_node(text: str, p: _Para, kind: NodeKind = "paragraph") -> RawNode:
    locator = {
        "page": p.page,
        "page_char_start": p.start - p.page_start,
        "page_char_end": p.end - p.page_start,
        "boxes": [list(box) for _, _, box in p.lines],
    }
    if p.ocr is not None:
        locator.update(ocr=True, confidence=p.ocr, degraded="ocr")
    if p.ocr_dpi is not None:  # read at a lowered resolution: words and boxes less exact
        locator.update(ocr_dpi=p.ocr_dpi, degraded=f"ocr at {p.ocr_dpi} dpi")
    attrs: dict[str, Any] = {
        "locator": locator,
        "line_boxes": [[s, e, *box] for s, e, box in p.lines],
    }
    if p.furniture:
        attrs["furniture"] = p.furniture
        kind = "page_furniture"
    return RawNode(kind, p.start, p.end, lay.search_form(text[p.start : p.end]), attrs=attrs)


def _tree(
    text: str,
    paras: list[_Para],
    outline: list[tuple[int, str, int]],
    headings: dict[int, int] | None = None,
    edges: dict[int, str] | None = None,
) -> list[RawNode]:
    """Paragraphs, nested under the outline's bookmarks where a bookmark's title is found
    as (the start of) a paragraph on its page (unmatched bookmarks are left out), or
    under the paragraphs printed as headings (``headings``: start -> level). A
    paragraph of figure rows is a table (:mod:`citewise.ingest.pdf_table`)."""
    items: list[Heading | RawNode] = []
    headings = headings or {}
    pending = list(outline)
    for i, p in enumerate(paras):
        table = None if p.furniture else pdf_table.table_node(text, paras, i, _raw_node, edges)
        if table is not None:
            items.append(table)
            continue
        node = _raw_node(text, p)
        if p.start in headings:
            title = " ".join(text[p.start : p.end].split())
            items.extend((Heading(headings[p.start], p.start, p.end, title), node))
            continue
        key = " ".join(text[p.start : p.end].split()).lower()
        match = next((o for o in pending if o[2] == p.page and key.startswith(o[1].lower())), None)
        if match is not None and not p.furniture:
            pending.remove(match)
            items.append(Heading(match[0], p.start, p.end, match[1]))
            items.append(node)
            continue
        listed = _items(text, p)
        if listed is None:
            items.append(node)
        else:  # a list is its items, so a lead-in before it carries them
            items.extend(_raw_node(text, item, "list_item") for item in listed)
    return nest_sections(text, items)
