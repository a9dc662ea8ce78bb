"""Clause references (regulation id + edition label + clause path) and where they come from.

The web verification needs only this small interface from the edition model:
:class:`EditionSource` maps a citation to a :class:`ClauseRef`. :class:`MetadataEditions`
reads it from what ingest already stores: the cited node's clause path
(:mod:`citewise.ingest.clauses`) and the document's front matter (``regulation`` /
``regulation_id``, ``edition`` / ``edition_label``), falling back to the document title
(``ISO 13485:2016``, ``GB 50016-2014``, ``12 CFR Part 1002 (2017 edition)``). A richer
edition model can replace it without touching the verification.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from citewise.answer.models import Citation
from citewise.errors import CitewiseError
from citewise.store.protocol import Store

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


@dataclass(frozen=True, slots=True)
class ClauseRef:
    regulation: str  # "12 CFR 1002", "ISO 13485", "GB 50016"
    edition: str | None  # "2017"; None when unknown
    clause_path: str  # "1002.4(b)", "7.3.2", "Art.12"

    def to_json(self) -> dict[str, str | None]:
        return {"regulation": self.regulation, "edition": self.edition, "clause": self.clause_path}

    @property
    def label(self) -> str:
        ed = f" ({self.edition} edition)" if self.edition else ""
        return f"{self.regulation}{ed} {self.clause_path}"


class EditionSource(Protocol):
    def clause_ref(self, citation: Citation) -> ClauseRef | None:
        """The regulation clause a citation quotes, or None when it is not one."""


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


def editions_named(text: str, regulation: str) -> set[str]:
    """Edition labels ``text`` gives for ``regulation`` (``ISO 13485:2016``) or in general
    (``2017 edition``, ``Edition: 2016``)."""
    found = {ed for reg, ed in regulation_ids(text) if ed and same_regulation(reg, regulation)}
    for m in _EDITION.finditer(text):
        found.add(m.group(1) or m.group(2))
    return found


def same_regulation(a: str, b: str) -> bool:
    return _key(a) == _key(b)


def _key(reg: str) -> str:
    return re.sub(r"[\s.]+", "", reg).upper()


def from_metadata(meta: dict[str, Any], title: str) -> tuple[str | None, str | None]:
    """(regulation id, edition label) from front matter, else from the title."""
    reg = meta.get("regulation") or meta.get("regulation_id")
    edition = meta.get("edition") or meta.get("edition_label")
    named = regulation_ids(title)
    if not reg and named:
        reg = named[0][0]
    if not edition and reg:
        labels = editions_named(title, str(reg))
        edition = labels.pop() if len(labels) == 1 else None
    return (str(reg) if reg else None), (str(edition) if edition else None)


class MetadataEditions:
    """:class:`EditionSource` over the store: clause path of the cited node, regulation id
    and edition of the document (front matter or title)."""

    def __init__(self, store: Store, kb: str) -> None:
        self._store, self._kb = store, kb

    def clause_ref(self, citation: Citation) -> ClauseRef | None:
        try:
            resolved = self._store.resolve(citation.id)
            doc = self._store.get_document(self._kb, citation.path)
        except CitewiseError:
            return None
        if not resolved.clause_path:
            return None
        reg, edition = from_metadata(doc.metadata, doc.title)
        if reg is None:
            return None
        return ClauseRef(reg, edition, resolved.clause_path)
