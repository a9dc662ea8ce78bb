"""The conditions a question (or a sentence) states: its query condition set.

"Where is the log on Windows?", "for version 2.x", "in production", "as of 2023-07-01",
"in the EU", "在 Linux 上", "生产环境", "截至2024年": each is a :class:`Condition` of one
kind (environment, version, platform, time, region) with a canonical value; a caller's
free ``key: value`` pairs (:func:`from_pairs`) join them. The environment and platform
vocabulary is the documents' (:mod:`citewise.analysis.qualifier_words`), so a question's
condition and a sentence's qualifier compare (:func:`contradicts`).

Pure functions, deterministic; nothing here reads the knowledge base.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from citewise.analysis.asof import as_of_in_question
from citewise.analysis.qualifier_words import (
    ENV_CANON,
    ENV_STRONG,
    ENV_WEAK,
    ENV_ZH,
    PLATFORM_CANON,
    PLATFORM_NAMES,
)
from citewise.memo import text_memo

__all__ = [
    "Condition",
    "ConditionKind",
    "ConditionSet",
    "condition_order",
    "conditions_in",
    "contradicts",
    "from_pairs",
]

#: What a stated condition constrains ("on Windows", "for version 2.x", "as of 2023").
ConditionKind = Literal["environment", "version", "platform", "time", "region", "filter"]
#: Kinds that documents qualify sentences by: these select and exclude evidence.
SCOPING: tuple[ConditionKind, ...] = ("environment", "platform", "version", "region")


@dataclass(frozen=True, slots=True)
class Condition:
    """A stated condition: its kind, canonical value and the words that state it."""

    kind: ConditionKind
    value: str
    text: str
    #: ``question`` (read from the text), ``caller`` (passed as key: value) or
    #: ``inherited`` (carried over from an earlier turn of a conversation).
    source: str = "question"


@dataclass(frozen=True, slots=True)
class ConditionSet:
    """The conditions in force for one question, in the order they were stated."""

    conditions: tuple[Condition, ...] = ()

    def value(self, kind: str) -> str | None:
        """The one value stated for ``kind``; None when none, or several ("Windows and
        Linux": both are wanted, so neither selects)."""
        values = {c.value for c in self.conditions if c.kind == kind}
        return next(iter(values)) if len(values) == 1 else None

    def kinds(self) -> frozenset[str]:
        return frozenset(c.kind for c in self.conditions)

    def over(self, base: ConditionSet) -> ConditionSet:
        """These conditions, with ``base``'s kept for every kind these do not state
        (an inherited set overridden by the new turn's own conditions)."""
        mine = {_slot(c) for c in self.conditions}
        kept = tuple(c for c in base.conditions if _slot(c) not in mine)
        return ConditionSet(kept + self.conditions)

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {"kind": c.kind, "value": c.value, "text": c.text, "source": c.source}
            for c in self.conditions
        ]


def _slot(c: Condition) -> str:
    """What a later condition replaces: the kind, or a filter's key."""
    return c.kind if c.kind != "filter" else "filter:" + c.value.split("=", 1)[0]


# --------------------------------------------------------------------------- patterns

_NOT_LATIN = r"(?<![A-Za-z])"  # CJK text has no \b before a Latin word: "在Windows上"
_PLATFORM_Q = re.compile(
    rf"{_NOT_LATIN}({PLATFORM_NAMES})(?![A-Za-z])"
    r"|\b(?:on|for|in|under|with)\s+(windows|linux|macos|mac|android|ios|freebsd)\b",
    re.IGNORECASE,
)
_PLATFORM_VALUE = {"mac": "macos", **PLATFORM_CANON}
_N = r"\d+(?:\.(?:\d+|x))*"
_VERSION_Q = re.compile(
    rf"\b(?:version|release|ver\.?)\s*v?({_N})(?![\w.]*\d)"
    rf"|(?<![A-Za-z0-9_/.\-])v({_N})(?![A-Za-z0-9_/]|\.\w)"
    rf"|(?<![A-Za-z0-9_/.\-])(\d+(?:\.\d+)*\.x)(?![\w.])"
    rf"|版本\s*v?({_N})|(?<![\d.])v?({_N})\s*版",
    re.IGNORECASE,
)
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = r"(?:" + "|".join(m[:3] + r"[a-z]*\.?" for m in _MONTHS) + r")"
_DATE = (
    rf"\d{{4}}-\d{{2}}(?:-\d{{2}})?|\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}"
    rf"|{_MONTH}\s+\d{{4}}|(?:19|20)\d\d"
)
_TIME_Q = re.compile(
    rf"\b(?:as of|as at|effective|in force on|valid on)\s+({_DATE})\b"
    r"|截至\s*(\d{4}(?:年(?:\d{1,2}月(?:\d{1,2}日)?)?)?)",
    re.IGNORECASE,
)
_REGIONS = {
    "eu": "eu", "european union": "eu", "us": "us", "usa": "us", "united states": "us",
    "uk": "uk", "united kingdom": "uk", "china": "cn", "germany": "de", "france": "fr",
    "japan": "jp", "canada": "ca", "california": "us-ca", "中国": "cn", "欧盟": "eu",
    "美国": "us", "英国": "uk", "日本": "jp", "德国": "de", "法国": "fr", "加拿大": "ca",
}  # fmt: skip
_REGION_Q = re.compile(
    r"\b(?:in|for|within|under)\s+(?:the\s+)?(EU|European Union|US|USA|United States|UK|"
    r"United Kingdom|China|Germany|France|Japan|Canada|California)\b"
    r"|(中国|欧盟|美国|英国|日本|德国|法国|加拿大)"
)
#: Caller keys (``key: value``) that name a condition kind.
_KEYS: dict[str, ConditionKind] = {
    "env": "environment", "environment": "environment", "version": "version",
    "platform": "platform", "os": "platform", "time": "time", "as_of": "time",
    "as-of": "time", "date": "time", "region": "region", "jurisdiction": "region",
}  # fmt: skip


#: Words put before a caller's value so the question patterns read it ("on linux").
_LEAD = {"platform": "on ", "time": "as of ", "region": "in ", "version": "version "}


def _date_value(text: str) -> str:
    """An ISO form of a stated date ("1 July 2023" → 2023-07-01, "2024年3月" → 2024-03)."""
    zh = re.fullmatch(r"(\d{4})(?:年(?:(\d{1,2})月(?:(\d{1,2})日)?)?)?", text)
    if zh:
        parts = [zh.group(1)] + [f"{int(g):02d}" for g in zh.groups()[1:] if g]
        return "-".join(parts)
    year = re.search(r"\d{4}", text)
    month = re.search(_MONTH, text, re.IGNORECASE)
    if not year or not month:
        return text
    m = _MONTHS.index(next(x for x in _MONTHS if x[:3] == month.group(0)[:3].lower())) + 1
    day = re.search(r"\b(\d{1,2})\b", re.sub(r"\d{4}", "", text))
    return f"{year.group(0)}-{m:02d}" + (f"-{int(day.group(1)):02d}" if day else "")


def _found(text: str) -> Iterable[tuple[int, Condition]]:
    for m in ENV_STRONG.finditer(text):
        v = m.group(1).lower()
        yield m.start(), Condition("environment", ENV_CANON.get(v, v), m.group(0))
    for m in ENV_WEAK.finditer(text):
        v = (m.group(1) or m.group(2)).lower()
        yield m.start(), Condition("environment", ENV_CANON.get(v, v), m.group(0))
    for m in ENV_ZH.finditer(text):
        yield m.start(), Condition("environment", ENV_CANON[m.group(1)], m.group(0))
    for m in _PLATFORM_Q.finditer(text):
        v = (m.group(1) or m.group(2)).lower()
        yield m.start(), Condition("platform", _PLATFORM_VALUE.get(v, v), m.group(0))
    for m in _VERSION_Q.finditer(text):
        v = next(g for g in m.groups() if g)
        yield m.start(), Condition("version", v.lower(), m.group(0))
    for m in _TIME_Q.finditer(text):
        day = as_of_in_question(m.group(0))  # the regulations' reading of the date
        value = day.isoformat() if day else _date_value(m.group(1) or m.group(2))
        yield m.start(), Condition("time", value, m.group(0))
    for m in _REGION_Q.finditer(text):
        v = m.group(1) or m.group(2)
        yield m.start(), Condition("region", _REGIONS[v.lower()], m.group(0))


@text_memo  # the answer stage reads each candidate's section heading again per candidate
def conditions_in(text: str) -> ConditionSet:
    """The conditions ``text`` states, in text order (one per kind and value); a pure
    function of the text with a frozen result, so short texts' results are kept."""
    seen: set[tuple[str, str]] = set()
    out: list[Condition] = []
    for _, c in sorted(_found(text), key=lambda x: x[0]):
        if (c.kind, c.value) not in seen:
            seen.add((c.kind, c.value))
            out.append(c)
    return ConditionSet(tuple(out))


def from_pairs(pairs: Mapping[str, str]) -> ConditionSet:
    """A caller's ``key: value`` conditions; known keys (platform, os, env, version,
    region, jurisdiction, as_of…) become that kind, any other key a ``filter``."""
    out: list[Condition] = []
    for key in sorted(pairs):
        raw = str(pairs[key]).strip()
        kind = _KEYS.get(key.strip().lower(), "filter")
        if kind == "filter":
            value = f"{key.strip().lower()}={raw.lower()}"
        else:
            found = conditions_in(f"{_LEAD.get(kind, '')}{raw}")
            value = next((c.value for c in found.conditions if c.kind == kind), raw.lower())
        out.append(Condition(kind, value, f"{key}: {raw}", "caller"))
    return ConditionSet(tuple(out))


def _version_compatible(a: str, b: str) -> bool:
    """``2`` and ``2.1``, ``2.x`` and ``2.4`` are compatible; ``1`` and ``2`` are not."""
    pa = [p for p in a.split(".") if p != "x"]
    pb = [p for p in b.split(".") if p != "x"]
    n = min(len(pa), len(pb))
    return pa[:n] == pb[:n]


def contradicts(stated: ConditionSet, qualified: ConditionSet) -> tuple[str, ...]:
    """The kinds on which ``qualified`` (a sentence's or section's conditions) holds
    under a different value than ``stated`` selects; empty when it matches or is
    unqualified on every stated kind."""
    out: list[str] = []
    for kind in SCOPING:
        want = stated.value(kind)
        have = {c.value for c in qualified.conditions if c.kind == kind}
        if want is None or not have:
            continue
        same = _version_compatible if kind == "version" else str.__eq__
        if not any(same(want, h) for h in have):
            out.append(kind)
    return tuple(out)


def condition_order(texts: Sequence[str], stated: ConditionSet) -> list[int]:
    """Indexes of ``texts`` (passages: heading path and excerpt) to keep under ``stated``,
    best first: those stating a matching condition, then unqualified ones (each group in
    its original order); passages whose conditions contradict ``stated`` are left out."""
    matching: list[int] = []
    neutral: list[int] = []
    for i, text in enumerate(texts):
        found = conditions_in(text)
        if contradicts(stated, found):
            continue
        if any(stated.value(c.kind) == c.value for c in found.conditions):
            matching.append(i)
        else:
            neutral.append(i)
    return matching + neutral
