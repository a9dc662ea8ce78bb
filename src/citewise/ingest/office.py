"""Shared parts of the Office-file parsers (DOCX, XLSX, PPTX, ODT, EPUB).

- :class:`TextBuilder` builds the extracted text block by block (blocks joined by a
  blank line, rows of a table by a newline) and returns each block's exact range, so every
  node's range slices the extracted text;
- :func:`check_container` turns the usual ways an Office file is bad into the per-file
  errors: an encrypted file (OLE container with ``EncryptionInfo``) -> ``ENCRYPTED``, an
  old binary or damaged file -> ``BROKEN_FILE``;
- :func:`parse_xml_part` reads a package part with defusedxml (no entities, no external
  references: XXE-safe).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from citewise.errors import BrokenFile, Encrypted
from citewise.ingest.markdown import unique_headers
from citewise.ingest.tree import RawNode, collapse_ws

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_INFO = "EncryptionInfo".encode("utf-16-le")
BLOCK_SEP = "\n\n"


def check_container(raw: bytes, name: str, kind: str) -> None:
    """Refuse files that are not a readable OOXML/ODF zip before a library sees them."""
    if raw.startswith(_OLE_MAGIC):
        if _ENCRYPTION_INFO in raw:
            raise Encrypted(
                f"{name}: the {kind} file is password-protected (encrypted).",
                hint="Save a copy without a password and add that copy.",
            )
        raise BrokenFile(
            f"{name}: this is an old binary Office file, not {kind}.",
            hint=f"Open it in an office suite, save it as {kind}, and add it again.",
        )
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise BrokenFile(
            f"{name}: not a readable {kind} file (damaged or not a {kind} package).",
            hint=f"Check the file opens in an office suite, re-save it as {kind}, add it again.",
        )


def broken(name: str, kind: str, exc: BaseException) -> BrokenFile:
    """The error for a file the library could not read."""
    return BrokenFile(
        f"{name}: the {kind} file could not be read ({type(exc).__name__}: {str(exc)[:120]}).",
        hint=f"Check the file opens in an office suite, re-save it as {kind}, add it again.",
    )


def parse_xml_part(blob: bytes) -> Element | None:
    """An XML package part parsed without entity declarations or external references
    (a bare ``<!DOCTYPE>``, as NCX files carry, is allowed); None if refused."""
    try:
        root: Element = SafeET.fromstring(
            blob, forbid_dtd=False, forbid_entities=True, forbid_external=True
        )
    except (DefusedXmlException, SafeET.ParseError):
        return None
    return root


class TextBuilder:
    """Extracted text grown block by block; ranges returned are exact."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0

    def _append(self, s: str) -> None:
        self.parts.append(s)
        self.length += len(s)

    def block(self, text: str) -> tuple[int, int]:
        """Append ``text`` as a new block (after a blank line); its range."""
        if self.length:
            self._append(BLOCK_SEP)
        start = self.length
        self._append(text)
        return start, self.length

    def lines(self, lines: Sequence[str]) -> list[tuple[int, int]]:
        """Append lines as one block (newline-separated); each line's range."""
        spans: list[tuple[int, int]] = []
        for i, line in enumerate(lines):
            if i == 0:
                if self.length:
                    self._append(BLOCK_SEP)
            else:
                self._append("\n")
            start = self.length
            self._append(line)
            spans.append((start, self.length))
        return spans

    @property
    def text(self) -> str:
        return "".join(self.parts)


def one_line(text: str) -> str:
    """Cell or paragraph text on one line (newlines and tabs become spaces)."""
    return collapse_ws(text)


def table_node(
    builder: TextBuilder,
    header: list[str] | None,
    rows: list[list[str]],
    table_locator: dict[str, Any],
    row_locators: list[dict[str, Any]],
    display: list[list[str]] | None = None,
) -> RawNode | None:
    """A table block: header line then one line per row ("a | b | c"); rows are
    ``table_row`` children with the header mapping Markdown tables get. ``display``
    (header first) is what the lines show when it differs (a merged cell shown once).
    Without a header (``None``) the columns are named ``column N`` and no header line is
    written."""
    width = max((len(r) for r in rows), default=0)
    names = unique_headers(header if header is not None else [""] * width)
    shown = display or ([header, *rows] if header is not None else rows)
    lines = [" | ".join(r) for r in shown]
    if not any(line.strip(" |") for line in lines):
        return None
    spans = builder.lines(lines)
    children: list[RawNode] = []
    row_spans = spans[1:] if header is not None else spans
    for cells, (s, e), loc in zip(rows, row_spans, row_locators, strict=True):
        if not any(cells):
            continue
        mapping = dict(zip(names, cells, strict=False))
        search = "; ".join(f"{k}: {v}" for k, v in mapping.items() if v)
        children.append(
            RawNode(
                "table_row",
                s,
                e,
                search,
                attrs={"header": names, "cells": cells, "row": mapping, "locator": loc},
            )
        )
    search = collapse_ws(" ".join(lines).replace(" | ", " "))
    return RawNode(
        "table",
        spans[0][0],
        spans[-1][1],
        search,
        attrs={"header": names, "rows": len(rows), "locator": table_locator},
        children=children,
    )
