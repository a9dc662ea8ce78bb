"""Regulation identity: which regulation a document is an edition of, and which edition.

A regulation is issuer + number (``12 CFR 1002``, ``ISO 13485``, ``GB 50016``); an edition
has a label (``2017``, ``2016``, ``2017-20417``) and an effective date. They come, first
wins, from front matter (``regulation``/``regulation_id``, ``edition``/``edition_label``,
``effective``/``effective_date``/``in_force``), from the structured XML's preamble
(:mod:`citewise.ingest.xml_meta` writes the same keys), or from the document title
(``ISO 13485:2016``, ``GB 50016-2014``, ``12 CFR Part 1002 (2017 edition)``,
``中华人民共和国网络安全法``).
Pure functions; no store access.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

_CFR = re.compile(r"\b(\d{1,2})\s*C\.?F\.?R\.?\s*(?:Part\s*|§+\s*)?(\d{1,4})\b", re.I)
_STD = re.compile(
    r"\b(ISO(?:/IEC)?|IEC|EN|BS|DIN|GB/T|GB|ASTM\s+[A-Z])\s*(\d{1,6}(?:[.-]\d{1,3})*?)"
    r"(?:\s*[:\-]\s*((?:19|20)\d{2}))?(?!\d)"
)
_EDITION = re.compile(
    r"\b((?:19|20)\d{2})\s+(?:edition|version|revision)\b|\b(?:edition|version|revision)"
    r"\s*(?:of\s+|:\s*)?((?:19|20)\d{2})\b",
    re.I,
)
#: A PRC law's full title is its identity (``中华人民共和国网络安全法``).
_CN_LAW = re.compile(r"中华人民共和国[\u4e00-\u9fff]{1,30}?法(?![\u4e00-\u9fff])")
_ISO_DATE = re.compile(r"((?:19|20)\d{2})-(\d{1,2})-(\d{1,2})")


def regulation_ids(text: str) -> list[tuple[str, str | None]]:
    """Regulation ids named in ``text`` with the edition written next to them, if any:
    ``"ISO 13485:2016"`` -> ``[("ISO 13485", "2016")]``, ``"12 CFR 1002"`` ->
    ``[("12 CFR 1002", None)]``."""
    out: list[tuple[str, str | None]] = []
    for m in _CFR.finditer(text):
        out.append((f"{int(m.group(1))} CFR {int(m.group(2))}", None))
    for m in _STD.finditer(text):
        issuer = re.sub(r"\s+", " ", m.group(1).upper())
        out.append((f"{issuer} {m.group(2)}", m.group(3)))
    return list(dict.fromkeys(out))


def editions_named(text: str, regulation: str | None = None) -> set[str]:
    """Edition labels ``text`` gives for ``regulation`` (``ISO 13485:2016``) or in general
    (``2017 edition``, ``Edition: 2016``, ``the edition of 2017``)."""
    found = {
        ed
        for reg, ed in regulation_ids(text)
        if ed and (regulation is None or same_regulation(reg, regulation))
    }
    for m in _EDITION.finditer(text):
        found.add(m.group(1) or m.group(2))
    return found


def same_regulation(a: str, b: str) -> bool:
    return regulation_key(a) == regulation_key(b)


def regulation_key(reg: str) -> str:
    """Comparison key of a regulation id: case, spaces and dots ignored."""
    return re.sub(r"[\s.]+", "", reg).upper()


def parse_iso_date(value: Any) -> date | None:
    """``2022-01-01`` (or a YAML date) -> date; None when it is not one."""
    if isinstance(value, date):
        return value
    m = _ISO_DATE.fullmatch(str(value).strip()) if value is not None else None
    if m is None:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def from_metadata(meta: Mapping[str, Any], title: str) -> tuple[str | None, str | None]:
    """(regulation id, edition label) from front matter, else from the title."""
    reg = meta.get("regulation") or meta.get("regulation_id")
    edition = meta.get("edition") or meta.get("edition_label")
    named = regulation_ids(title)
    if not reg and named:
        reg = named[0][0]
    if not reg and (law := _CN_LAW.search(title)):
        reg = law.group(0)
    if not edition and reg:
        labels = editions_named(title, str(reg))
        edition = labels.pop() if len(labels) == 1 else None
    return (str(reg) if reg else None), (str(edition) if edition else None)


def effective_date(meta: Mapping[str, Any]) -> date | None:
    """The edition's effective date from metadata (``effective``, ``effective_date``,
    ``in_force``); None when none is given or it is not an ISO date."""
    for key in ("effective_date", "effective", "in_force"):
        if meta.get(key) is not None:
            return parse_iso_date(meta[key])
    return None


def edition_matches(label: str | None, effective: date | None, named: str) -> bool:
    """Whether an edition (``label``, ``effective``) is the one a query names: the same
    label, a label that starts with the named year (``2017-20417`` for ``2017``), or, for
    a bare year, an edition that took effect that year."""
    if label is not None:
        if label.strip().lower() == named.lower():
            return True
        if re.fullmatch(r"(?:19|20)\d{2}", named) and re.match(rf"{named}(?!\d)", label):
            return True
    return bool(
        effective and re.fullmatch(r"(?:19|20)\d{2}", named) and effective.year == int(named)
    )
