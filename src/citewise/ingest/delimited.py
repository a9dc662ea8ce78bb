"""CSV / TSV -> one ``table`` node whose rows are ``table_row`` nodes, like Markdown,
DOCX and XLSX tables: each row keeps its header mapping (search text ``Header: value;
...``), so a cell is found with its column's name.

The extracted text is the decoded file itself: a row node's range is the row's record
in the file (quoted line breaks included), so a citation's excerpt is the file's own
text. The dialect comes from :class:`csv.Sniffer` on the first 64 KiB (``,`` ``;``
``|`` or tab; a ``.tsv`` file is tab-separated); the first record is the header unless
the sniffer finds no header, and then columns are named ``column N``.

Locators: a row's ``{"sheet": "prices", "row": 7, "line": 9, "cells": "A7:D7"}``
(``sheet`` is the file's stem, as a spreadsheet program names the one sheet of a CSV;
``row`` the record's number counting the header as row 1, A1-style as that sheet shows
it; ``line`` the file line it starts on), ``attrs["cell_refs"]`` ``{"Price": "C7", ...}``
and ``attrs["cell_spans"]`` each cell's document range (inside any quotes), from which a
citation of part of a row names its cells and columns (``cells: "C7", columns:
["Price"]``, see :mod:`citewise.core.locator`).

Budget: every row is a node (``max_nodes``) and every cell a step (time), so a file of
millions of rows stops with ``PARSE_LIMIT``; a field over :data:`MAX_FIELD` characters
is refused the same way.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from citewise.errors import BrokenFile, EmptyFile, ParseLimitExceeded
from citewise.ingest.extracted import Extracted, TextSource
from citewise.ingest.limits import ParseBudget
from citewise.ingest.markdown import unique_headers
from citewise.ingest.tree import RawNode, collapse_ws

_SNIFF_BYTES = 65_536
#: The longest field read, in characters (csv's own default ``field_size_limit``).
MAX_FIELD = 131_072


def column_letter(index: int) -> str:
    """0 -> ``A``, 25 -> ``Z``, 26 -> ``AA`` (spreadsheet column names)."""
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(65 + rest) + out
    return out


def _dialect(sample: str, tab: bool) -> tuple[type[csv.Dialect] | csv.Dialect, bool]:
    """(dialect, whether the first record is a header)."""
    if tab:
        dialect: type[csv.Dialect] | csv.Dialect = csv.excel_tab
    else:
        try:
            dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        except csv.Error:  # one column, or too little text to tell: plain commas
            dialect = csv.excel
    try:
        header = csv.Sniffer().has_header(sample) if "\n" in sample.strip() else True
    except csv.Error:
        header = True
    return dialect, header


def cell_spans(record: str, delimiter: str, quote: str = '"') -> list[tuple[int, int]]:
    """Each field's range in one record's raw text (inside its quotes when quoted)."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(record)
    while True:
        if i < n and record[i] == quote:
            j = i + 1
            while j < n:
                if record[j] == quote and j + 1 < n and record[j + 1] == quote:
                    j += 2
                elif record[j] == quote:
                    break
                else:
                    j += 1
            spans.append((i + 1, j))
            k = record.find(delimiter, j)
        else:
            k = record.find(delimiter, i)
            spans.append((i, n if k < 0 else k))
        if k < 0:
            return spans
        i = k + 1


def _records(text: str, start: int, dialect: Any) -> Iterator[tuple[int, int, int, list[str]]]:
    """(start, end, first line number, fields) of each record, offsets into ``text``."""
    lines = text[start:].splitlines(keepends=True)
    offsets = [start]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    reader = csv.reader(iter(lines), dialect)
    done = 0
    for fields in reader:
        first, done = done, reader.line_num
        s, e = offsets[first], offsets[done]
        e -= len(text[s:e]) - len(text[s:e].rstrip("\r\n"))
        yield s, e, first + 1, fields


def parse_delimited(src: TextSource, tab: bool = False) -> Extracted:
    budget = src.budget or ParseBudget(src.name)
    text, start = src.text, src.body_offset
    if not text[start:].strip():
        raise EmptyFile(f"{src.name}: the file has no rows.", hint="Check the file.")
    dialect, has_header = _dialect(text[start : start + _SNIFF_BYTES], tab)
    delimiter = str(getattr(dialect, "delimiter", ","))
    try:
        records = [r for r in _counted(_records(text, start, dialect), budget) if any(r[3])]
    except csv.Error as exc:
        if "field larger" in str(exc):  # csv's own field limit (MAX_FIELD, its default)
            raise ParseLimitExceeded(
                f"{src.name}: a field is over {MAX_FIELD:,} characters.",
                hint="Check the quoting (a quote left open swallows the rest of the file) "
                "or split the long field.",
            ) from exc
        raise BrokenFile(
            f"{src.name}: not readable as delimited text ({exc}).",
            hint="Check the quoting (a quote left open swallows the rest of the file).",
        ) from exc
    sheet = PurePosixPath(src.name.replace("\\", "/")).stem
    table = _table(text, records, has_header, delimiter, sheet, budget)
    return Extracted(text, [table], None, {"delimiter": delimiter})


def _counted(
    records: Iterator[tuple[int, int, int, list[str]]], budget: ParseBudget
) -> Iterator[tuple[int, int, int, list[str]]]:
    for rec in records:
        budget.node()
        for _ in rec[3]:
            budget.step()
        yield rec


def _table(
    text: str,
    records: list[tuple[int, int, int, list[str]]],
    has_header: bool,
    delimiter: str,
    sheet: str,
    budget: ParseBudget,
) -> RawNode:
    width = max(len(r[3]) for r in records)
    head = [collapse_ws(c) for c in records[0][3]] if has_header else []
    names = unique_headers(head + [""] * (width - len(head)))
    body = records[1:] if has_header else records
    rows: list[RawNode] = []
    for number, (s, e, line, fields) in enumerate(body, 2 if has_header else 1):
        cells = [collapse_ws(c) for c in fields]
        mapping = dict(zip(names, cells, strict=False))
        refs = {k: f"{column_letter(i)}{number}" for i, k in enumerate(names[: len(cells)])}
        spans = [[s + a, s + b] for a, b in cell_spans(text[s:e], delimiter)]
        loc = {
            "sheet": sheet,
            "row": number,
            "line": line,
            "cells": f"A{number}:{column_letter(width - 1)}{number}",
        }
        rows.append(
            RawNode(
                "table_row",
                s,
                e,
                "; ".join(f"{k}: {v}" for k, v in mapping.items() if v),
                attrs={
                    "header": names,
                    "cells": cells,
                    "row": mapping,
                    "locator": loc,
                    "cell_refs": refs,
                    "cell_spans": spans if len(spans) == len(fields) else [],
                },
            )
        )
    budget.text(sum(len(r.search_text) for r in rows), len(text))
    first = records[0]
    last_row = len(body) + (1 if has_header else 0)
    table_loc = {
        "sheet": sheet,
        "row": 1,
        "line": first[2],
        "cells": f"A1:{column_letter(width - 1)}{last_row}",
    }
    return RawNode(
        "table",
        first[0],
        records[-1][1],
        collapse_ws(" ".join(" ".join(r[3]) for r in records)),
        attrs={"header": names, "rows": len(rows), "locator": table_loc},
        children=rows,
    )


__all__ = ["MAX_FIELD", "cell_spans", "column_letter", "parse_delimited"]
