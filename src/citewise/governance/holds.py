"""What a parse says about its own quality, and which of it holds a file in quarantine.

The parsers record their warnings in the document metadata (``ingest/pdf.py``,
``ingest/pdf_recheck.py``): ``ocr_pages`` (pages read by OCR: degraded locators and
OCR'd text), ``text_check.pages_reextracted`` (pages whose first extraction failed the
glyph check and were read again by a second extractor: repaired text), ``needs_ocr``
(pages with no text layer, not read) and ``text_suspect`` (pages no extractor read
cleanly). Any format may carry them; today PDF does. Pure functions over that metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from citewise.governance.policy import QuarantineRules

HoldKind = Literal["ocr_degraded", "repaired_extraction", "parse_warnings", "max_bytes"]


@dataclass(frozen=True, slots=True)
class ParseWarning:
    """One warning a parse recorded: its class (a quarantine rule's name) and the words."""

    kind: HoldKind
    message: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message}


def _pages(values: object) -> list[int]:
    if not isinstance(values, list):
        return []
    out: list[int] = []
    for v in values:
        page = v.get("page") if isinstance(v, dict) else v
        if isinstance(page, int) and not isinstance(page, bool):
            out.append(page)
    return out


def _listed(pages: list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:10])
    return shown + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")


def parse_warnings(metadata: Mapping[str, Any]) -> list[ParseWarning]:
    """Every warning the parse recorded in ``metadata`` (see the module docstring)."""
    out: list[ParseWarning] = []
    ocr = _pages(metadata.get("ocr_pages"))
    if ocr:
        out.append(ParseWarning("ocr_degraded", f"pages {_listed(ocr)} were read by OCR"))
    check = metadata.get("text_check")
    again = _pages(check.get("pages_reextracted")) if isinstance(check, dict) else []
    if again:
        out.append(
            ParseWarning(
                "repaired_extraction",
                f"pages {_listed(again)} failed the glyph check and were read again by a "
                "second extractor",
            )
        )
    unread = _pages(metadata.get("needs_ocr"))
    if unread:
        out.append(
            ParseWarning("parse_warnings", f"pages {_listed(unread)} have no text layer (not read)")
        )
    suspect = _pages(metadata.get("text_suspect"))
    if suspect:
        out.append(
            ParseWarning("parse_warnings", f"the text of pages {_listed(suspect)} looks mis-mapped")
        )
    return out


def holds(metadata: Mapping[str, Any], size: int, rules: QuarantineRules) -> list[ParseWarning]:
    """The reasons ``rules`` hold a file in quarantine (empty: it is not held): each
    warning whose class the rules name, and a size over ``max_bytes``."""
    named = {
        "ocr_degraded": rules.ocr_degraded,
        "repaired_extraction": rules.repaired_extraction,
        "parse_warnings": rules.parse_warnings,
    }
    out = [w for w in parse_warnings(metadata) if named.get(w.kind)]
    if rules.max_bytes is not None and size > rules.max_bytes:
        out.append(
            ParseWarning("max_bytes", f"{size:,} bytes is over the {rules.max_bytes:,}-byte limit")
        )
    return out
