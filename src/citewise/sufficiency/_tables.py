"""Facts from Markdown table rows for :mod:`citewise.sufficiency.facts`: a key column
names the subject, value columns (with their header) the attribute and value, and
environment / platform / version columns the row's scope."""

from __future__ import annotations

import re
from itertools import pairwise

from citewise.evidence.sentences import Span
from citewise.sufficiency._model import Fact, Qualifiers, _mask, _words
from citewise.sufficiency._qualifiers import _ENV_CANON, _ENV_STRONG, _Dim, qualifiers_in
from citewise.sufficiency._subjects import _clean_subject
from citewise.sufficiency._values import PATH as _PATH
from citewise.sufficiency._values import path_kind as _path_kind
from citewise.sufficiency._values import values as _values

# -------------------------------------------------------------------------------- tables

_KEY_HEADERS = re.compile(
    r"^(?:key|setting|settings|parameter|param|option|name|field|config(?:uration)?|"
    r"property|item|service|component|endpoint|part|variable|名称|参数|配置项|字段|项)$",
    re.IGNORECASE,
)
_QUAL_HEADERS: dict[str, _Dim] = {
    "environment": "environment", "env": "environment", "环境": "environment",
    "platform": "platform", "os": "platform", "平台": "platform",
    "version": "version", "release": "version", "版本": "version",
}  # fmt: skip
_GENERIC_HEADERS = frozenset(
    _words("default defaults value values setting current new old previous legacy 默认值 值 取值")
)
_HEADER_KIND = (
    (re.compile(r"\bports?\b|端口", re.I), "port"),
    (re.compile(r"\bowners?\b|maintainer|负责人", re.I), "owner"),
    (re.compile(r"\bformat\b|payload|格式", re.I), "format"),
    (re.compile(r"\bprotocol\b|协议", re.I), "protocol"),
    (re.compile(r"\bengine\b|database|storage|存储", re.I), "engine"),
    (re.compile(r"\bendpoint\b|route|url", re.I), "endpoint"),
    (re.compile(r"\bpath\b|location|路径", re.I), "location"),
    (re.compile(r"\bstatus\b", re.I), "status_code"),
)
_EMPTY_CELL = frozenset(("", "-", "—", "–", "n/a", "na", "none", "/"))
#: Columns that list admissible values, not the value: never facts.
_OPTION_HEADERS = re.compile(
    r"allowed|accepted|options?|choices|possible|valid|range|values|可选|取值范围", re.I
)


def _cells(row: str) -> list[tuple[int, int]]:
    """(start, end) of each cell's trimmed content inside a ``| a | b |`` row."""
    out: list[tuple[int, int]] = []
    bars = [i for i, ch in enumerate(row) if ch == "|" and (i == 0 or row[i - 1] != "\\")]
    if not bars:
        return out
    if bars[0] != len(row) - len(row.lstrip()):
        bars.insert(0, -1)
    if bars[-1] != len(row.rstrip()) - 1:
        bars.append(len(row))
    for a, b in pairwise(bars):
        s, e = a + 1, b
        while s < e and row[s].isspace():
            s += 1
        while e > s and row[e - 1].isspace():
            e -= 1
        out.append((s, e))
    return out


_GENERIC_ONLY = re.compile(r"(?i)values?|default values?")


def _header_noun(header: str) -> str:
    s = re.sub(r"\([^)]*\)|（[^）]*）", " ", header.lower())
    words = [
        w
        for w in re.findall(r"[\w.\-]+", s)
        if w not in _GENERIC_HEADERS
        and not _ENV_STRONG.fullmatch(w)
        and not re.fullmatch(r"v?\d+(?:\.(?:\d+|x))*", w)
    ]
    return " ".join(words)


def _row_facts(
    span: Span, header: list[str], base: Qualifiers, doc_path: str, heading: tuple[str, ...]
) -> list[Fact]:
    row = _mask(span.text)
    cells = _cells(row)
    if len(cells) != len(header) or len(cells) < 2:
        return []
    key_col = _key_column(header, row, cells)
    key = row[cells[key_col][0] : cells[key_col][1]].strip()
    if key.lower() in _EMPTY_CELL:
        return []
    row_q = _row_qualifiers(header, row, cells, key_col)
    key_subject = _clean_subject(key, []) or key.lower()
    facts: list[Fact] = []
    for i, (a, b) in enumerate(cells):
        h = header[i].strip()
        if i == key_col or h.lower() in _QUAL_HEADERS:
            continue
        cell = row[a:b]
        if cell.strip().lower() in _EMPTY_CELL or (
            _OPTION_HEADERS.search(h) and not _GENERIC_ONLY.fullmatch(h.strip())
        ):
            continue
        noun = _header_noun(h)
        subject = f"{key_subject} {noun}".strip() if noun else key_subject
        kind, value, vs, ve = _cell_value(cell, h)
        quals = row_q.over(qualifiers_in(h)).over(base)
        facts.append(
            Fact(
                subject=subject,
                attribute=kind,
                value=value,
                raw_value=span.text[a + vs : a + ve],
                start=span.start,
                end=span.end,
                text=span.text,
                value_start=span.start + a + vs,
                value_end=span.start + a + ve,
                qualifiers=quals,
                doc_path=doc_path,
                heading_path=heading,
            )
        )
    return facts


def _key_column(header: list[str], row: str, cells: list[tuple[int, int]]) -> int:
    """The row's key column: the first key header ("Name", "Setting"); without one, the
    first cell that is an endpoint path; else the first column."""
    key_col = next((i for i, h in enumerate(header) if _KEY_HEADERS.match(h.strip())), 0)
    if not any(_KEY_HEADERS.match(h.strip()) for h in header):
        for i, (a, b) in enumerate(cells):
            found_path = _PATH.fullmatch(row[a:b].strip("` "))
            if found_path and _path_kind(None, found_path.group(2), "endpoint") == "endpoint":
                return i
    return key_col


def _row_qualifiers(
    header: list[str], row: str, cells: list[tuple[int, int]], key_col: int
) -> Qualifiers:
    """The environment, version and platform the row's own qualifier columns name."""
    row_quals: dict[str, str] = {}
    for i, h in enumerate(header):
        dim = _QUAL_HEADERS.get(h.strip().lower())
        if dim and i != key_col:
            cell = row[cells[i][0] : cells[i][1]].strip()
            if cell.lower() not in _EMPTY_CELL:
                q = qualifiers_in(cell)
                found = getattr(q, dim) or cell.lower().lstrip("v")
                row_quals[dim] = _ENV_CANON.get(found, found)
    return Qualifiers(
        row_quals.get("environment"), row_quals.get("version"), row_quals.get("platform")
    )


def _cell_value(cell: str, h: str) -> tuple[str, str, int, int]:
    """(kind, value, start, end in the cell) of a value cell: its first typed value (a count
    under a port or status-code header is one); else the whole cell, typed by a header that
    names a kind of text value, or plain text."""
    hint = next((k for p, k in _HEADER_KIND if p.search(h)), None)
    found = _values(cell, [])
    if found:
        v = found[0]
        kind, value, vs, ve = v.kind, v.value, v.start, v.end
        if hint and kind == "count" and hint in ("port", "status_code"):
            kind = hint
        return kind, value, vs, ve
    if hint in ("owner", "format", "protocol", "engine", "location", "endpoint"):
        return hint, cell.strip().lower(), 0, len(cell)
    return "text", re.sub(r"\s+", " ", cell.strip().lower()), 0, len(cell)
