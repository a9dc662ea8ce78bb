"""Cells per XLSX sheet, counted from the sheet XML before openpyxl loads it.

openpyxl in full mode (needed for merged ranges) makes one object per cell a merged
range covers, and one per cell a hyperlink range names, so a 1.5 KB sheet with
``<mergeCell ref="A1:XFD1048576"/>`` asks it for 17 billion cells. Each worksheet part
is therefore streamed through expat first (in chunks, from the already size-checked
package) and its written cells plus the area of its merged and hyperlink ranges are
held to ``max_sheet_cells``. Entity declarations are refused, as everywhere.
"""

from __future__ import annotations

import re
import zipfile
from xml.parsers import expat

from citewise.errors import BrokenFile
from citewise.ingest.limits import ParseBudget, limit_error
from citewise.ingest.zipbudget import CHUNK

_REF = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d{1,7})$")
_AREA_TAGS = frozenset({"mergeCell", "hyperlink"})


def _cell(ref: str) -> tuple[int, int] | None:
    m = _REF.match(ref.strip())
    if m is None:
        return None
    col = 0
    for ch in m.group(1).upper():
        col = col * 26 + (ord(ch) - 64)
    return col, int(m.group(2))


def range_area(ref: str) -> int:
    """Cells a range such as ``A1:C4`` covers (1 for one cell; 0 if unreadable)."""
    first, _, last = ref.partition(":")
    a = _cell(first)
    b = _cell(last) if last else a
    if a is None or b is None:
        return 0
    return (abs(b[0] - a[0]) + 1) * (abs(b[1] - a[1]) + 1)


class _Counter:
    def __init__(self, name: str, part: str, budget: ParseBudget) -> None:
        self.name, self.part, self.budget = name, part, budget
        self.cells = 0

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        local = tag.rpartition(":")[2]
        if local == "c":
            self.cells += 1
        elif local in _AREA_TAGS and attrs.get("ref"):
            self.cells += range_area(attrs["ref"])
        else:
            return
        cap = self.budget.limits.max_sheet_cells
        if self.cells > cap:
            raise limit_error(
                self.name,
                f"sheet part {self.part!r} (more than {cap:,} cells, merged ranges counted "
                "by area)",
                "max_sheet_cells",
                cap,
            )
        self.budget.step()


def _refuse_entities(*_: object) -> None:
    raise ValueError("entity declarations are not allowed")


def check_sheet(z: zipfile.ZipFile, part: str, name: str, budget: ParseBudget) -> int:
    """The sheet part's cells (merged and hyperlink ranges by area); raises past the cap."""
    counter = _Counter(name, part, budget)
    parser = expat.ParserCreate()
    parser.StartElementHandler = counter.start
    parser.EntityDeclHandler = _refuse_entities
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        with z.open(part) as stream:
            while chunk := stream.read(CHUNK):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except (expat.ExpatError, ValueError) as exc:
        raise BrokenFile(
            f"{name}: the XLSX sheet {part!r} is not well-formed XML ({type(exc).__name__}).",
            hint="Check the file opens in a spreadsheet program, re-save it, add it again.",
        ) from exc
    return counter.cells


def _is_xml(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    with z.open(info) as stream:
        head = stream.read(64)
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def check_sheets(z: zipfile.ZipFile, name: str, budget: ParseBudget) -> None:
    """Every XML part of the package within ``max_sheet_cells`` (the workbook's
    relationships may put a worksheet at any part name, so none is assumed)."""
    for info in z.infolist():
        if not info.is_dir() and not info.flag_bits & 0x1 and _is_xml(z, info):
            check_sheet(z, info.filename, name, budget)


__all__ = ["check_sheet", "check_sheets", "range_area"]
