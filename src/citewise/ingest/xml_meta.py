"""Regulation identity and edition from a structured XML file's preamble.

* CFPB RegML: ``<cfr><title>12</title><section>1002</section></cfr>`` -> regulation
  ``12 CFR 1002``; ``<documentNumber>`` (the Federal Register document that made this
  version, ``2017-20417``) -> edition label; ``<effectiveDate>`` -> effective date.
* GPO annual CFR: ``<TITLENUM>Title 14</TITLENUM>`` and ``<PARTS>`` -> regulation
  ``14 CFR 1200-End`` (a volume: a range of parts); ``As of January 1, 2015`` -> edition
  ``2015``, effective 2015-01-01.

Only the leading elements are read (the first 64 KiB), so it is cheap on large files; the
keys are those of front matter (:mod:`citewise.ingest.regulation`), and front matter wins.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.analysis.asof import date_at

_HEAD = 65536
_REGML = re.compile(r"<cfr>\s*<title>\s*(\d+)\s*</title>\s*<section>\s*(\d+)\s*</section>")
_DOCNUM = re.compile(r"<documentNumber>\s*([\w-]+)\s*</documentNumber>")
_EFFECTIVE = re.compile(r"<effectiveDate>\s*([\d-]+)\s*</effectiveDate>")
_TITLENUM = re.compile(r"<TITLENUM>\s*Title\s+(\d+)\s*</TITLENUM>")
_PARTS = re.compile(r"<PARTS>\s*Parts?\s+(\d+)\s+to\s+(\w+)\s*</PARTS>")
_ASOF = re.compile(r"<(?:DATE|REVISED)>\s*(?:Revised\s+)?as\s+of\s+([^<]+?)\s*</", re.I)


def regulation_metadata(text: str) -> dict[str, Any]:
    """``regulation``, ``edition`` and ``effective_date`` found in the XML head."""
    head = text[:_HEAD]
    out: dict[str, Any] = {}
    if m := _REGML.search(head):
        out["regulation"] = f"{int(m.group(1))} CFR {int(m.group(2))}"
        if d := _DOCNUM.search(head):
            out["edition"] = d.group(1)
        if e := _EFFECTIVE.search(head):
            out["effective_date"] = e.group(1)
        return out
    if m := _TITLENUM.search(head):
        parts = _PARTS.search(head)
        span = f" {parts.group(1)}-{parts.group(2)}" if parts else ""
        out["regulation"] = f"{int(m.group(1))} CFR{span}"
        if (a := _ASOF.search(head)) and (got := date_at(a.group(1))) is not None:
            out["edition"] = str(got[0].year)
            out["effective_date"] = got[0].isoformat()
    return out
