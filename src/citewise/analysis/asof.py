"""Dates a question is asked about: ``--as-of 2019-06-01`` and "as of 2023" in the text.

Pure functions, shared by the CLI, the HTTP API and question analysis. A date names a day
(``2019-06-01``, ``1 June 2019``, ``June 1, 2019``, ``2019年6月1日``); a month or a year
alone (``2019-06``, ``June 2019``, ``2019``) means its last day: the law as it stood at the
end of that period.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from citewise.errors import UsageError

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_Y = r"((?:19|20)\d{2})"
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"{_Y}-(\d{{1,2}})-(\d{{1,2}})"), "ymd"),
    (re.compile(rf"{_Y}\s*年\s*(\d{{1,2}})\s*月\s*(\d{{1,2}})\s*日"), "ymd"),
    (re.compile(rf"(\d{{1,2}})\s+({_MONTH})\.?,?\s+{_Y}", re.I), "dmy"),
    (re.compile(rf"({_MONTH})\.?\s+(\d{{1,2}}),?\s+{_Y}", re.I), "mdy"),
    (re.compile(rf"{_Y}-(\d{{1,2}})"), "ym"),
    (re.compile(rf"{_Y}\s*年\s*(\d{{1,2}})\s*月"), "ym"),
    (re.compile(rf"({_MONTH})\.?\s+{_Y}", re.I), "my"),
    (re.compile(rf"{_Y}\s*年?"), "y"),
)
_CUE = re.compile(
    r"\b(?:as\s+of|as\s+at|as\s+it\s+stood\s+on|as\s+in\s+force\s+on|in\s+force\s+on|"
    r"on\s+the\s+date|at\s+the\s+time\s+of)\s+|截至|截止到?",
    re.I,
)


def _build(kind: str, g: tuple[str, ...]) -> date | None:
    try:
        if kind == "ymd":
            return date(int(g[0]), int(g[1]), int(g[2]))
        if kind == "dmy":
            return date(int(g[2]), _MONTHS[g[1].lower()], int(g[0]))
        if kind == "mdy":
            return date(int(g[2]), _MONTHS[g[0].lower()], int(g[1]))
        if kind in ("ym", "my"):
            year, month = (
                (int(g[0]), int(g[1])) if kind == "ym" else (int(g[1]), _MONTHS[g[0].lower()])
            )
            return date(year, month, calendar.monthrange(year, month)[1])
        return date(int(g[0]), 12, 31)
    except (ValueError, KeyError):
        return None


def date_at(text: str) -> tuple[date, int] | None:
    """The date written at the start of ``text`` and how many characters it takes."""
    for pattern, kind in _FORMS:
        m = pattern.match(text)
        if m is not None:
            got = _build(kind, m.groups())
            return (got, m.end()) if got is not None else None
    return None


def parse_as_of(value: str) -> date:
    """An ``--as-of`` value -> date; raises :class:`UsageError` naming the fix."""
    got = date_at(value.strip())
    if got is None or got[1] != len(value.strip()):
        raise UsageError(
            f"Cannot read the date {value!r}.",
            hint="Give a date as YYYY-MM-DD (e.g. 2019-06-01), YYYY-MM or YYYY.",
        )
    return got[0]


def as_of_in_question(text: str) -> date | None:
    """The date a text asks about ("as of 1 June 2019", "in force on 2019-06-01",
    "截至2019年6月1日"), or None when it states none: read from a search query (recall's
    edition scope) and from a stated date phrase (the condition reader)."""
    for cue in _CUE.finditer(text):
        got = date_at(text[cue.end() :].lstrip())
        if got is not None:
            return got[0]
    return None
