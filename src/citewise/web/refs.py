"""Clause references (regulation id + edition label + clause path) and where they come from.

The web verification needs only this small interface from the edition model:
:class:`EditionSource` maps a citation to a :class:`ClauseRef`. :class:`MetadataEditions`
reads it from what ingest already stores: the cited node's clause path
(:mod:`citewise.ingest.clauses`) and the document's front matter (``regulation`` /
``regulation_id``, ``edition`` / ``edition_label``), falling back to the document title
(``ISO 13485:2016``, ``GB 50016-2014``, ``12 CFR Part 1002 (2017 edition)``). A richer
edition model can replace it without touching the verification. A citation that
already carries its edition (``Citation.regulation``, from :mod:`citewise.recall.editions`)
is read from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from citewise.answer.models import Citation
from citewise.errors import CitewiseError
from citewise.ingest.regulation import (
    editions_named,
    from_metadata,
    regulation_ids,
    same_regulation,
)
from citewise.store.protocol import Store


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


class MetadataEditions:
    """:class:`EditionSource` over the store: clause path of the cited node, regulation id
    and edition of the document (front matter or title)."""

    def __init__(self, store: Store, kb: str) -> None:
        self._store, self._kb = store, kb

    def clause_ref(self, citation: Citation) -> ClauseRef | None:
        ref = citation.regulation  # set by the edition model (recall/editions.py)
        if ref and ref.get("regulation") and ref.get("clause"):
            return ClauseRef(str(ref["regulation"]), ref.get("edition"), str(ref["clause"]))
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


__all__ = [
    "ClauseRef",
    "EditionSource",
    "MetadataEditions",
    "editions_named",
    "from_metadata",
    "regulation_ids",
    "same_regulation",
]
