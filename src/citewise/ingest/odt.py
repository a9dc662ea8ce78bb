"""ODT -> extracted text + :class:`RawNode` tree (like DOCX), from ``content.xml``.

An ODT file is a zip whose ``content.xml`` holds the body; it is read with defusedxml
(no entity expansion, no external references), which is all reading needs, rather than
through odfpy. ``text:h`` (with its outline level) starts sections; ``text:p`` is a
paragraph and a paragraph inside ``text:list`` a ``list_item``, each with
``locator = {"paragraph": i}`` (0-based over the text's paragraphs and headings outside
tables, in order). Tables are ``table`` nodes (``{"table": t}``) whose header is the
table's declared header rows (``table:table-header-rows``; else columns are ``column N``)
and whose other rows are ``table_row`` nodes with the header mapping
(``{"table": t, "row": r}``, 0-based over non-empty rows); a cell spanning columns
repeats its text in each. Footnotes and endnotes (``text:note``) follow their paragraph
as ``[footnote 1] text`` with ``{"paragraph": i, "footnote": "1"}``. A password-protected
file (``encryption-data`` in the manifest) is ``ENCRYPTED``.
"""

from __future__ import annotations

import zipfile
from typing import Any
from xml.etree.ElementTree import Element

from citewise.core.records import NodeKind
from citewise.errors import BrokenFile, EmptyFile, Encrypted, IngestError
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget
from citewise.ingest.office import TextBuilder, broken, one_line, parse_xml_part, table_node
from citewise.ingest.tree import Heading, RawNode, nest_sections
from citewise.ingest.zipbudget import open_package

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"


def _inline(el: Element, notes: list[tuple[str, str, str]]) -> str:
    """Text of a paragraph; notes are collected, not inlined."""
    parts = [el.text or ""]
    for child in el:
        if child.tag == f"{TEXT}note":
            kind = child.get(f"{TEXT}note-class", "footnote")
            cite = child.find(f"{TEXT}note-citation")
            body = child.find(f"{TEXT}note-body")
            label = one_line("".join(cite.itertext())) if cite is not None else ""
            text = (
                one_line(" ".join(_inline(p, []) for p in body.iter() if p.tag == f"{TEXT}p"))
                if body is not None
                else ""
            )
            notes.append((kind, label, text))
        elif child.tag == f"{TEXT}s":
            # a space run (``text:c`` may declare billions) collapses to one space in
            # every caller (``one_line``), so more than a few are never built
            parts.append(" " * min(int(child.get(f"{TEXT}c", "1")), 8))
        elif child.tag in (f"{TEXT}tab", f"{TEXT}line-break"):
            parts.append(" ")
        else:
            parts.append(_inline(child, notes))
        parts.append(child.tail or "")
    return "".join(parts)


def _row_cells(row: Element) -> list[str]:
    cells: list[str] = []
    for cell in row:
        if cell.tag not in (f"{TABLE}table-cell", f"{TABLE}covered-table-cell"):
            continue
        paras = [p for p in cell.iter() if p.tag in (f"{TEXT}p", f"{TEXT}h")]
        text = one_line(" ".join(_inline(p, []) for p in paras))
        if cell.tag == f"{TABLE}covered-table-cell":
            text = cells[-1] if cells else ""  # covered by the cell spanning from the left
        repeat = int(cell.get(f"{TABLE}number-columns-repeated", "1"))
        cells.extend([text] * min(repeat, 64))
    return cells


def _rows(table: Element) -> tuple[list[Element], int]:
    """The table's own rows (a nested table's are not) and how many are header rows."""
    out: list[Element] = []
    header = 0
    for child in table:
        if child.tag == f"{TABLE}table-row":
            out.append(child)
        elif child.tag in (f"{TABLE}table-header-rows", f"{TABLE}table-rows"):
            found = child.findall(f"{TABLE}table-row")
            out.extend(found)
            if child.tag == f"{TABLE}table-header-rows":
                header += len(found)
    return out, header


class _Walker:
    def __init__(self, budget: ParseBudget | None = None) -> None:
        self.builder = TextBuilder(budget)
        self.items: list[Heading | RawNode] = []
        self.paragraphs = 0
        self.tables = 0
        self.title: str | None = None

    def paragraph(self, el: Element, kind: NodeKind) -> None:
        notes: list[tuple[str, str, str]] = []
        text = one_line(_inline(el, notes))
        index, self.paragraphs = self.paragraphs, self.paragraphs + 1
        if not text:
            return
        start, end = self.builder.block(text)
        if el.tag == f"{TEXT}h":
            level = int(el.get(f"{TEXT}outline-level", "1") or 1)
            self.items.append(Heading(min(level, 6), start, end, text))
            self.title = self.title or text
        else:
            self.items.append(
                RawNode(kind, start, end, text, attrs={"locator": {"paragraph": index}})
            )
        for note_kind, label, body in notes:
            if body:
                s, e = self.builder.block(f"[{note_kind} {label}] {body}")
                loc = {"paragraph": index, note_kind: label}
                self.items.append(
                    RawNode("paragraph", s, e, body, attrs={"locator": loc, "note": note_kind})
                )

    def table(self, el: Element) -> None:
        elements, header_rows = _rows(el)
        rows = [_row_cells(r) for r in elements]
        index, self.tables = self.tables, self.tables + 1
        has_header = header_rows > 0 and any(rows[0])
        rows = [r for r in rows if any(r)]
        if not rows:
            return
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        while width and not any(r[width - 1] for r in rows):  # trailing empty columns
            width -= 1
        rows = [r[:width] for r in rows]
        first = 1 if has_header else 0
        locs = [{"table": index, "row": r} for r in range(first, len(rows))]
        header = rows[0] if has_header else None
        node = table_node(self.builder, header, rows[first:], {"table": index}, locs)
        if node is not None:
            self.items.append(node)

    def walk(self, el: Element, in_list: bool = False) -> None:
        for child in el:
            if child.tag in (f"{TEXT}p", f"{TEXT}h"):
                self.paragraph(child, "list_item" if in_list else "paragraph")
            elif child.tag == f"{TABLE}table":
                self.table(child)
            elif child.tag == f"{TEXT}list":
                self.walk(child, True)
            else:
                self.walk(child, in_list)


def parse_odt(raw: bytes, name: str, budget: ParseBudget | None = None) -> Extracted:
    z = open_package(raw, name, "ODT", budget)  # every member's size checked first
    names = set(z.namelist())
    try:
        return _parse(z, names, name, budget)
    except IngestError:
        raise
    except Exception as exc:  # a damaged member (zlib.error, ValueError ...)
        raise broken(name, "ODT", exc) from exc


def _parse(z: zipfile.ZipFile, names: set[str], name: str, budget: ParseBudget | None) -> Extracted:
    if "META-INF/manifest.xml" in names:
        manifest = parse_xml_part(z.read("META-INF/manifest.xml"))
        if manifest is not None and manifest.find(f".//{MANIFEST}encryption-data") is not None:
            raise Encrypted(
                f"{name}: the ODT file is password-protected (encrypted).",
                hint="Save a copy without a password and add that copy.",
            )
    root = parse_xml_part(z.read("content.xml")) if "content.xml" in names else None
    body = root.find(f"{OFFICE}body/{OFFICE}text") if root is not None else None
    if body is None:
        raise BrokenFile(
            f"{name}: the ODT file has no readable text body (content.xml).",
            hint="Check the file opens in an office suite, re-save it as ODT, add it again.",
        )
    walker = _Walker(budget)
    walker.walk(body)
    if not walker.builder.length:
        raise EmptyFile(f"{name}: the ODT file has no text.", hint="Check it is not only images.")
    text = walker.builder.text
    meta: dict[str, Any] = {"paragraphs": walker.paragraphs, "tables": walker.tables}
    return Extracted(text, nest_sections(text, walker.items), walker.title, meta)
