"""Qualifier mentions (environment, version, platform, time) for
:mod:`citewise.sufficiency.facts`: where a fact holds, not what it states."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from citewise.analysis import qualifier_words as _words
from citewise.sufficiency._model import Qualifiers, TimeScope
from citewise.sufficiency._numbers import Tails

# --------------------------------------------------------------------------- qualifiers
# The environment and platform vocabulary is shared with questions (analysis.conditions).
_ENV_STRONG = _words.ENV_STRONG
_ENV_WEAK = _words.ENV_WEAK
_ENV_ZH = _words.ENV_ZH
_ENV_CANON = _words.ENV_CANON
_PLATFORM = _words.PLATFORM
_PLATFORM_CANON = _words.PLATFORM_CANON

_VER = r"v?\d+(?:\.(?:\d+|x))*"
_VERSION_QUAL = re.compile(
    rf"\b(?:in|since|from|as of|before|until|prior to|after|for|starting (?:with|in|from))\s+"
    rf"(?:version\s+|release\s+)?(v?\d+(?:\.(?:\d+|x))+|v\d+)\b"
    rf"|\b(?:version|release|ver\.)\s+({_VER})\b"
    rf"|(?<![\w/.\-])(v\d+(?:\.(?:\d+|x))*)(?![\w/.]*\w)"
    rf"|(?<![\w/.\-])(\d+(?:\.\d+)*\.x)\b"
    rf"|(\d+(?:\.\d+)+)\s*版本?|版本\s*(v?\d+(?:\.\d+)*)",
    re.IGNORECASE,
)
_LINK_BEFORE = re.compile(r"(?:\b(?:is|are|was|were|requires?|needs?)|[=:：])\s*$", re.IGNORECASE)

_TIME_RULES: tuple[tuple[TimeScope, re.Pattern[str]], ...] = (
    (
        "historical",
        re.compile(
            r"\b(?:previously|previous|formerly|was|were|used to|old|legacy|earlier|originally|"
            r"roll(?:ed|s)? back|rollback|downgrade[sd]?|"
            r"no longer|had been|deprecated)\b|以前|之前|原来|曾经|旧版|过去",
            re.IGNORECASE,
        ),
    ),
    (
        "planned",
        re.compile(
            r"\b(?:will|planned|plans? to|future|upcoming|next release|going to|roadmap)\b|"
            r"将会|计划|未来|即将|以后",
            re.IGNORECASE,
        ),
    ),
    (
        "current",
        re.compile(
            r"\b(?:now|currently|as of|today|new|at present|nowadays)\b|现在|目前|当前|新版",
            re.IGNORECASE,
        ),
    ),
)

_Dim = Literal["environment", "version", "platform", "time"]


@dataclass(frozen=True, slots=True)
class _Mention:
    dim: _Dim
    value: str
    start: int
    end: int


def _mentions(s: str) -> list[_Mention]:
    """Qualifier mentions in ``s`` (positions relative to ``s``)."""
    out: list[_Mention] = []
    for m in _ENV_STRONG.finditer(s):
        v = m.group(1).lower()
        out.append(_Mention("environment", _ENV_CANON.get(v, v), m.start(), m.end()))
    for m in _ENV_WEAK.finditer(s):
        v = (m.group(1) or m.group(2)).lower()
        out.append(_Mention("environment", _ENV_CANON.get(v, v), m.start(), m.end()))
    for m in _ENV_ZH.finditer(s):
        out.append(_Mention("environment", _ENV_CANON[m.group(1)], m.start(), m.end()))
    for m in _PLATFORM.finditer(s):
        v = m.group(1).lower()
        out.append(_Mention("platform", _PLATFORM_CANON.get(v, v), m.start(), m.end()))
    tails = Tails(s)
    for m in _VERSION_QUAL.finditer(s):
        if not m.group(1) and _LINK_BEFORE.search(tails.before(m.start())):
            continue  # "requires version 2.4.1": a value, not a scope
        v = next(g for g in m.groups() if g)
        out.append(_Mention("version", v.lower().lstrip("v"), m.start(), m.end()))
    for scope, pattern in _TIME_RULES:
        for m in pattern.finditer(s):
            out.append(_Mention("time", scope, m.start(), m.end()))
    return out


#: A year closing a title or header, or naming an edition: "Specifications 2023",
#: "Lumen S400 (2024)", "2024 edition".
_EDITION_YEAR = re.compile(
    r"(?<![\w.\-/:])((?:19|20)\d\d)(?=\s*(?:edition\b|[)）\]]?\s*$))", re.IGNORECASE
)


@lru_cache(maxsize=4096)  # headings repeat for every sentence under them
def qualifiers_in(text: str) -> Qualifiers:
    """Qualifiers stated anywhere in ``text`` (first mention per dimension).

    Used for headings and table headers; a bare version (``2.4.0``) counts here,
    and so does an edition year (``Specifications 2023`` → version ``2023``).
    """
    found: dict[str, str] = {}
    for mention in sorted(_mentions(text), key=lambda x: x.start):
        found.setdefault(mention.dim, mention.value)
    if "version" not in found:
        m = re.search(r"(?<![\w.])v?(\d+\.\d+(?:\.(?:\d+|x))?)(?![\w.]*\d)", text)
        if m:
            found["version"] = m.group(1).lower()
    if "version" not in found:
        # An edition year ("Specifications 2023", "Lumen S400 (2024)"), not a date.
        m = _EDITION_YEAR.search(text)
        if m:
            found["version"] = m.group(1)
    time = found.get("time")
    return Qualifiers(
        found.get("environment"),
        found.get("version"),
        found.get("platform"),
        time if time in ("current", "historical", "planned") else None,  # type: ignore[arg-type]
    )
