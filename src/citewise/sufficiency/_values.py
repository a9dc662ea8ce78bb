"""Typed values for :mod:`citewise.sufficiency.facts`: units, numbers, dates, paths…

:func:`values` finds the typed values of one sentence or cell (the table of kinds
is in the :mod:`~citewise.sufficiency.facts` docstring): non-overlapping, earliest
first, each with its kind, normalised value and span.  Quantities are normalised
to one unit per kind (``2 min`` → ``120 s``, ``512 MiB`` → bytes); a range
``30–90 s`` is one value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from citewise.sufficiency._numbers import (
    SCI_NOTATION,
    Tails,
    is_compound_modifier,
    is_label_number,
    is_year,
    sci_value,
)

__all__ = ["PATH", "Value", "candidates", "chosen", "path_kind", "values"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNITS: dict[str, tuple[str, str, Decimal]] = {}  # unit → (kind, canonical unit, factor)
for _names, _kind, _canon, _factor in (
    (("ms", "millisecond", "milliseconds", "毫秒"), "duration", "s", Decimal("0.001")),
    (("s", "sec", "secs", "second", "seconds", "秒"), "duration", "s", Decimal(1)),
    (("min", "mins", "minute", "minutes", "分钟"), "duration", "s", Decimal(60)),
    (("h", "hr", "hrs", "hour", "hours", "小时"), "duration", "s", Decimal(3600)),
    (("d", "day", "days", "天"), "duration", "s", Decimal(86400)),
    (("µm", "um", "micron", "microns"), "length", "mm", Decimal("0.001")),
    (("mm",), "length", "mm", Decimal(1)),
    (("cm",), "length", "mm", Decimal(10)),
    (("m",), "length", "mm", Decimal(1000)),
    (("b", "bytes"), "size", "B", Decimal(1)),
    (("kb",), "size", "B", Decimal(1000)),
    (("mb",), "size", "B", Decimal(1000**2)),
    (("gb",), "size", "B", Decimal(1000**3)),
    (("kib",), "size", "B", Decimal(1024)),
    (("mib",), "size", "B", Decimal(1024**2)),
    (("gib",), "size", "B", Decimal(1024**3)),
    (("%", "percent"), "percent", "%", Decimal(1)),
    (("°c", "℃"), "temperature", "°C", Decimal(1)),
    (("v", "volt", "volts"), "voltage", "V", Decimal(1)),
    (("hz",), "frequency", "Hz", Decimal(1)),
    (("khz",), "frequency", "Hz", Decimal(1000)),
    (("mhz",), "frequency", "Hz", Decimal(1000**2)),
    (("nm",), "length", "mm", Decimal("0.000001")),
    (("ml", "millilitre", "milliliter"), "volume", "mL", Decimal(1)),
    (("µl", "ul", "microlitre", "microliter"), "volume", "mL", Decimal("0.001")),
    (("l", "litre", "liter", "litres", "liters"), "volume", "mL", Decimal(1000)),
    (("mg",), "mass", "g", Decimal("0.001")),
    (("g",), "mass", "g", Decimal(1)),
    (("kg",), "mass", "g", Decimal(1000)),
    (("times", "attempts", "retries", "tries", "次"), "count", "", Decimal(1)),
):
    for _n in _names:
        _UNITS[_n] = (_kind, _canon, _factor)

_UNIT_ALT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_QUANTITY = re.compile(
    rf"(±|\+/-|\+-)?\s*(-?{_NUM})(?:\s*(?:–|—|-|~|to)\s*({_NUM}))?\s*({_UNIT_ALT})(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_PLAIN_NUMBER = re.compile(r"(?<![\w.\-/:#§$])(-?\d+(?:\.\d+)?)(?![\w.\-/:%]*\d)(?![A-Za-z%])")
_NUMBER_NOT_VALUE = re.compile(
    r"(?:\b(?:step|section|chapter|figure|fig\.|table|page|line|item|article|art\.|"
    r"clause|rule|phase|part|version|release|v|in|since|from|on|at|of)\s*|[#§]\s*)$",
    re.IGNORECASE,
)
_STATE = re.compile(
    r"\b(enabled|disabled|turned on|turned off|switched on|switched off)\b|"
    r"(?:\b(?:is|are|was|be|=|:|set to|defaults? to)\s*)\b(on|off|true|false)\b|"
    r"(启用|禁用|开启|关闭)",
    re.IGNORECASE,
)
_PORT = re.compile(
    r"(?:\bports?\b|端口号?)(?:\s*(?:number|is|was|are|=|:|：|of|to|set to|defaults? to|为|是))*"
    r"\s*(\d{2,5})\b",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"(?:\bHTTP(?:\s+status)?|\bstatus(?:\s+code)?|\bresponse code|\breturns?|"
    r"\bresponds? with|\berror code|状态码)\s*(?:is\s+|of\s+|:\s*|为\s*)?([1-5]\d\d)\b",
    re.IGNORECASE,
)
#: Every match of ``_STATUS`` holds one of these (case-blind).
_STATUS_CUES = ("http", "status", "response code", "return", "respond", "error code", "状态码")
_SEMVER = re.compile(r"(?<![\w./\-])v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)(?![\w.]*\d)")
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        _words(
            "january february march april may june july august september october november december"
        )
    )
}
_MONTH_ALT = "|".join(list(_MONTHS) + [m[:3] for m in _MONTHS])
_DATE = re.compile(
    rf"\b(\d{{4}})[-/](\d{{1,2}})[-/](\d{{1,2}})\b"
    rf"|\b({_MONTH_ALT})\.?\s+(\d{{1,2}}),?\s+(\d{{4}})\b"
    rf"|\b(\d{{1,2}})\s+({_MONTH_ALT})\.?,?\s+(\d{{4}})\b"
    rf"|(\d{{4}})年(\d{{1,2}})月(\d{{1,2}})日",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://[^\s)<>\]\"'`]+", re.IGNORECASE)
_WIN_PATH = re.compile(r"\b[A-Za-z]:\\[^\s,;()\"'`]*|%[A-Z_]+%\\[^\s,;()\"'`]*")
_PATH = re.compile(
    r"(?:\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+)?"
    r"(?<![\w.:/])((?:~|\.{1,2})?/[A-Za-z0-9_.\-{}:~$]+(?:/[A-Za-z0-9_.\-{}:~$]*)*)"
)
_FS_ROOTS = re.compile(
    r"^(?:~|\.{1,2}/|/(?:etc|var|usr|opt|home|tmp|srv|bin|lib|root|mnt|dev|proc)\b)"
)
_FILE_EXT = re.compile(r"\.[A-Za-z0-9]{1,5}$")
_PROTOCOL = re.compile(
    r"\b(HTTP/[123](?:\.[01])?|HTTPS|HTTP|gRPC|GRPC|WebSockets?|MQTT|AMQP|TCP|UDP|GraphQL|REST|"
    r"SOAP|QUIC|SFTP|FTP|SSH)\b(?![/\d])(?!\s*(?:status\s+)?[1-5]\d\d\b)"
)
_PROTOCOL_CANON = {"websockets": "websocket"}
_FORMAT = re.compile(
    r"\b(JSON Lines|NDJSON|JSON|YAML|YML|XML|CSV|TOML|Protobuf|Protocol Buffers|MessagePack|"
    r"msgpack|Avro|Parquet)\b",
    re.IGNORECASE,
)
_FORMAT_CANON = {"yml": "yaml", "protocol buffers": "protobuf", "msgpack": "messagepack",
                 "json lines": "ndjson"}  # fmt: skip
_ENGINE = re.compile(
    r"\b(SQLite3?|PostgreSQL|Postgres|MySQL|MariaDB|Redis|MongoDB|Elasticsearch|OpenSearch|"
    r"Kafka|RabbitMQ|DynamoDB|Cassandra|RocksDB|LevelDB|etcd|ClickHouse|DuckDB|SQL Server)\b",
    re.IGNORECASE,
)
_ENGINE_CANON = {"postgres": "postgresql", "sqlite3": "sqlite"}
_OWNER = re.compile(
    r"\b(?:owned|maintained|managed) by\s+|\bowner(?:ship)?\s+(?:of\s+[^,;.]+?\s+)?"
    r"(?:is|are|was)\s+|\bowner\s*[:：=]\s*|负责人(?:是|为|[:：])\s*|归属(?:于|[:：])\s*",
    re.IGNORECASE,
)
_OWNER_VALUE = re.compile(
    r"(?:(?:the|an?)[ \t]+)?((?:[\w\-&@.]+)(?:[ \t]+(?!and\b|since\b|as\b|until\b|in\b|on\b|"
    r"for\b|from\b|but\b|while\b|which\b|who\b)[\w\-&@.]+){0,4})",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class _Value:
    kind: str
    value: str
    start: int
    end: int
    priority: int


def _num(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def _fmt(d: Decimal) -> str:
    s = format(d.normalize(), "f")
    return s[:-2] if s.endswith(".0") else s


def _quantity(m: re.Match[str]) -> _Value | None:
    sign, number, upper, unit = m.group(1), m.group(2), m.group(3), m.group(4)
    spec = _UNITS.get(unit.lower())
    if spec is None:
        return None
    kind, canon, factor = spec
    if kind == "size" and unit.lower() == "b" and unit != "B":
        return None
    if kind == "length" and unit == "M":
        return None
    if kind == "voltage" and unit != "V":
        return None
    if kind == "duration" and unit.lower() in ("d", "h", "s", "m") and unit != unit.lower():
        return None
    try:
        value = _fmt(_num(number) * factor)
        if upper:  # a range "30–90 s" is one value
            value = f"{value}–{_fmt(_num(upper) * factor)}"
    except InvalidOperation:
        return None
    tol = "±" if sign else ""
    text = f"{tol}{value} {canon}".strip() if canon else f"{tol}{value}"
    start = m.start(1) if sign else m.start(2)
    return _Value(kind, text, start, m.end(), 3)


def _path_kind(method: str | None, path: str, clause: str) -> str:
    if method:
        return "endpoint"
    if _FS_ROOTS.match(path) or (_FILE_EXT.search(path) and not path.startswith("/api")):
        return "location"
    if path.startswith("/api") or re.search(r"/v\d+(?:/|$)", path):
        return "endpoint"
    if re.search(r"\b(?:endpoint|route|url|api|request|calls?|get|post)\b", clause, re.I):
        return "endpoint"
    return "location"


#: Patterns that match only where the text holds a digit (every alternative has ``\\d``).
_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"\w+")
#: The only characters outside ASCII that ``re.IGNORECASE`` matches to ASCII letters.
_CASE_SPECIAL = frozenset("İıſK")
#: Words one of which (a whole ``\\w+`` run; lower-cased for the case-blind patterns) every
#: match of the pattern holds, and the CJK words that may stand in for them. Kept in step
#: with the patterns above (tests/test_ask_cost.py checks every word of each pattern).
_TRIGGERS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "state": (
        frozenset(_words("enabled disabled turned switched on off true false")),
        ("启用", "禁用", "开启", "关闭"),
    ),
    "protocol": (
        frozenset(
            _words(
                "HTTP HTTPS gRPC GRPC WebSocket WebSockets MQTT AMQP TCP UDP GraphQL REST SOAP "
                "QUIC SFTP FTP SSH"
            )
        ),
        (),
    ),
    "format": (
        frozenset(
            _words(
                "json ndjson yaml yml xml csv toml protobuf protocol messagepack msgpack avro "
                "parquet"
            )
        ),
        (),
    ),
    "engine": (
        frozenset(
            _words(
                "sqlite sqlite3 postgresql postgres mysql mariadb redis mongodb elasticsearch "
                "opensearch kafka rabbitmq dynamodb cassandra rocksdb leveldb etcd clickhouse "
                "duckdb sql"
            )
        ),
        (),
    ),
    "owner": (frozenset(_words("owned maintained managed owner ownership")), ("负责人", "归属")),
}


def _may_hold(s: str) -> set[str]:
    """The keyword patterns (:data:`_TRIGGERS`) that can match in ``s``: all of them when
    ``s`` holds a character the case-blind match folds differently from ``str.lower``."""
    if _CASE_SPECIAL.intersection(s):
        return set(_TRIGGERS)
    runs = set(_WORD.findall(s))
    low = {w.lower() for w in runs}
    out = set()
    for name, (words, cjk) in _TRIGGERS.items():
        seen = runs if name == "protocol" else low  # _PROTOCOL alone is case-sensitive
        if not words.isdisjoint(seen) or any(w in s for w in cjk):
            out.add(name)
    return out


_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\bnever|未|不|没有?)\s*(?:be\s+|been\s+)?$")


def _values(s: str, masked: list[tuple[int, int]]) -> list[_Value]:
    """Typed values in ``s``, non-overlapping, earliest first."""
    return _chosen(_candidates(s), masked)


def _candidates(s: str) -> list[_Value]:
    """Every typed value any pattern finds in ``s`` (overlapping; :func:`_chosen` picks).
    A pattern that needs a digit, a slash or a backslash is not run on text without one,
    and the text before a number is read only as far as its checks can match
    (:class:`~citewise.sufficiency._numbers.Tails`)."""
    digits = _DIGIT.search(s) is not None
    cands = _location_values(s)
    if digits:
        _digit_values(s, cands)
    tails = Tails(s)
    hold = _may_hold(s)
    if "state" in hold:
        cands += _state_values(s, tails)
    cands += _named_values(s, hold)
    if "owner" in hold:
        cands += _owner_values(s)
    if digits:
        cands += _number_values(s, tails)
    return cands


def _location_values(s: str) -> list[_Value]:
    """URLs, Windows paths, and Unix paths or routes (with their HTTP method; a route is an
    endpoint, a file path a location): each pattern only on text with its character."""
    cands: list[_Value] = []
    if "://" in s:
        for m in _URL.finditer(s):
            v = m.group(0).rstrip(".,;:")
            cands.append(_Value("endpoint", v, m.start(), m.start() + len(v), 0))
    if "\\" in s:
        for m in _WIN_PATH.finditer(s):
            v = m.group(0).rstrip(".,;:")
            cands.append(_Value("location", v, m.start(), m.start() + len(v), 0))
    if "/" in s:
        for m in _PATH.finditer(s):
            path = m.group(2).rstrip(".,;:")
            if len(path) < 2 or (path.count("/") == 1 and path.endswith("/")):
                continue
            method = m.group(1)
            kind = _path_kind(method, path, s)
            v = f"{method.upper()} {path}" if method else path
            start = m.start(1) if method else m.start(2)
            cands.append(_Value(kind, v, start, m.start(2) + len(path), 0))
    return cands


def _state_values(s: str, tails: Tails) -> list[_Value]:
    """Enabled / disabled states ("is not enabled" states disabled)."""
    cands: list[_Value] = []
    for m in _STATE.finditer(s):
        word = (m.group(1) or m.group(2) or m.group(3)).lower()
        on = word in ("enabled", "turned on", "switched on", "on", "true", "启用", "开启")
        if _NOT_BEFORE.search(tails.before(m.start())):
            on = not on  # "is not enabled" states disabled
        grp = 1 if m.group(1) else 2 if m.group(2) else 3
        cands.append(_Value("state", "enabled" if on else "disabled", m.start(grp), m.end(grp), 4))
    return cands


def _named_values(s: str, hold: set[str]) -> list[_Value]:
    """Protocols, formats and engines by name, in their canonical spelling (each only when
    :func:`_may_hold` says its keywords can match)."""
    named = (
        ("protocol", _PROTOCOL, _PROTOCOL_CANON),
        ("format", _FORMAT, _FORMAT_CANON),
        ("engine", _ENGINE, _ENGINE_CANON),
    )
    cands: list[_Value] = []
    for kind, pattern, canon in named:
        for m in pattern.finditer(s) if kind in hold else ():
            v = m.group(1).lower()
            cands.append(_Value(kind, canon.get(v, v), m.start(), m.end(), 5))
    return cands


def _owner_values(s: str) -> list[_Value]:
    """The owner named after an ownership word ("owned by Team A")."""
    cands: list[_Value] = []
    for m in _OWNER.finditer(s):
        ov = _OWNER_VALUE.match(s, m.end())
        if ov:
            raw = ov.group(1).rstrip(".,;:")
            if raw:
                start = ov.start(1)
                cands.append(_Value("owner", raw.lower(), start, start + len(raw), 1))
    return cands


def _number_values(s: str, tails: Tails) -> list[_Value]:
    """Unitless numbers: scientific notation, then plain numbers that are neither labels,
    years nor parts of a compound modifier."""
    cands: list[_Value] = []
    for m in SCI_NOTATION.finditer(s):
        cands.append(_Value("count", sci_value(m), m.start(), m.end(), 2))
    for m in _PLAIN_NUMBER.finditer(s):
        before = tails.before(m.start())
        if _NUMBER_NOT_VALUE.search(before) or is_label_number(before):
            continue
        after = s[m.end() :]
        if is_year(m.group(1), before, after) or is_compound_modifier(after):
            continue
        cands.append(_Value("count", _fmt(_num(m.group(1))), m.start(1), m.end(1), 9))
    return cands


#: A numeric date needs four digits and a separator, or 年; the others a month's name.
_DATE_CUE = re.compile(r"\d{4}[-/]|年")
_MONTH_WORDS = frozenset(_MONTH_ALT.split("|"))


def _may_date(s: str) -> bool:
    """Whether ``_DATE`` can match in ``s`` (a month name counts as a whole ``\\w`` run)."""
    if _DATE_CUE.search(s) or _CASE_SPECIAL.intersection(s):
        return True
    return any(w.lower() in _MONTH_WORDS for w in _WORD.findall(s))


def _digit_values(s: str, cands: list[_Value]) -> None:
    """Dates, versions, status codes, ports and quantities (each needs a digit)."""
    for m in _DATE.finditer(s) if _may_date(s) else ():
        g = m.groups()
        if g[0]:
            y, mo, d = g[0], g[1], g[2]
        elif g[3]:
            y, mo, d = g[5], str(_month(g[3])), g[4]
        elif g[6]:
            y, mo, d = g[8], str(_month(g[7])), g[6]
        else:
            y, mo, d = g[9], g[10], g[11]
        if not (1 <= int(mo) <= 12 and 1 <= int(d) <= 31):
            continue
        cands.append(_Value("date", f"{int(y):04d}-{int(mo):02d}-{int(d):02d}", *m.span(), 1))
    for m in _SEMVER.finditer(s) if s.count(".") >= 2 else ():
        cands.append(_Value("version", m.group(1), m.start(), m.end(), 1))
    low = s.lower()
    if _CASE_SPECIAL.intersection(s) or any(w in low for w in _STATUS_CUES):
        for m in _STATUS.finditer(s):
            cands.append(_Value("status_code", m.group(1), m.start(1), m.end(1), 2))
    if _CASE_SPECIAL.intersection(s) or "port" in low or "端口" in s:
        for m in _PORT.finditer(s):
            cands.append(_Value("port", m.group(1), m.start(1), m.end(1), 2))
    for m in _QUANTITY.finditer(s):
        q = _quantity(m)
        if q:
            cands.append(q)


def _chosen(cands: list[_Value], masked: list[tuple[int, int]]) -> list[_Value]:
    """The candidates kept: by priority, then length, then position; none inside
    ``masked`` or overlapping one kept before it; earliest first."""

    def blocked(v: _Value) -> bool:
        return any(a < v.end and v.start < b for a, b in masked)

    chosen: list[_Value] = []
    for cand in sorted(cands, key=lambda c: (c.priority, -(c.end - c.start), c.start)):
        if blocked(cand) or any(c.start < cand.end and cand.start < c.end for c in chosen):
            continue
        chosen.append(cand)
    return sorted(chosen, key=lambda c: c.start)


def _month(name: str) -> int:
    low = name.lower()
    for full, n in _MONTHS.items():
        if full.startswith(low):
            return n
    return 0


# Public names for the sibling modules (the underscored ones are this module's own).
PATH = _PATH
Value = _Value
path_kind = _path_kind
values = _values
candidates = _candidates
chosen = _chosen
