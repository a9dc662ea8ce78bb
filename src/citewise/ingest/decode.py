"""Bytes -> text, plus exact line/offset bookkeeping over the decoded text.

The decoded text is kept *exactly* as in the file (no line-ending
normalisation) so that every node's ``char_start:char_end`` slices the
original. Line breaks are ``\\r\\n``, ``\\n`` or a lone ``\\r`` (the same rule
markdown-it uses), so line numbers agree with the Markdown parser's maps.
"""

from __future__ import annotations

import bisect
import codecs
import re

from citewise.errors import DecodeFailed, EmptyFile

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Control characters that never appear in ordinary text (tab, LF, VT, FF, CR allowed).
_BAD_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_MAX_CONTROL_RATIO = 0.01


def _fix_hint(name: str) -> str:
    return (
        f"Save {name!r} as UTF-8 (or UTF-16 with a byte-order mark) text, "
        "or leave it out of the ingest."
    )


def decode_bytes(raw: bytes, name: str) -> str:
    """Decode a file's bytes to text.

    Accepts UTF-8, UTF-8 with BOM (the BOM is stripped) and UTF-16 LE/BE with a
    BOM. Raises :class:`EmptyFile` for empty or whitespace-only content and
    :class:`DecodeFailed` for anything that is not text (binary, other encodings).
    """
    if not raw:
        raise EmptyFile(f"{name}: the file is empty.", hint="Add content or remove the file.")
    if raw.startswith(codecs.BOM_UTF8):
        encoding, body = "utf-8", raw[len(codecs.BOM_UTF8) :]
    elif raw.startswith(codecs.BOM_UTF16_LE):
        encoding, body = "utf-16-le", raw[2:]
    elif raw.startswith(codecs.BOM_UTF16_BE):
        encoding, body = "utf-16-be", raw[2:]
    else:
        encoding, body = "utf-8", raw
        if b"\x00" in body:
            raise DecodeFailed(
                f"{name}: looks like a binary file (contains NUL bytes), not text.",
                hint=_fix_hint(name),
            )
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DecodeFailed(
            f"{name}: is not valid {encoding.upper()} text "
            f"(undecodable byte at offset {exc.start}).",
            hint=_fix_hint(name),
        ) from exc
    if not text.strip():
        raise EmptyFile(
            f"{name}: contains only whitespace.", hint="Add content or remove the file."
        )
    bad = len(_BAD_CONTROL.findall(text))
    if "\x00" in text or bad / len(text) > _MAX_CONTROL_RATIO:
        raise DecodeFailed(
            f"{name}: looks like a binary file ({bad} control characters), not text.",
            hint=_fix_hint(name),
        )
    return text


class LineIndex:
    """Maps between 1-based line numbers and code-point offsets of one text."""

    __slots__ = ("_content_ends", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        ends: list[int] = []
        for m in _LINE_BREAK.finditer(text):
            ends.append(m.start())
            starts.append(m.end())
        ends.append(len(text))
        self._starts = starts
        self._content_ends = ends

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        """Offset of the first character of 1-based ``line`` (clamped to the text)."""
        if line > len(self._starts):
            return len(self.text)
        return self._starts[max(line, 1) - 1]

    def line_end(self, line: int) -> int:
        """Offset just past the last character of ``line``, line break excluded."""
        if line > len(self._content_ends):
            return len(self.text)
        return self._content_ends[max(line, 1) - 1]

    def line_of(self, offset: int) -> int:
        """1-based line containing ``offset`` (a break belongs to the line it ends)."""
        return bisect.bisect_right(self._starts, offset)

    def line_range(self, char_start: int, char_end: int) -> tuple[int, int]:
        """Inclusive 1-based line range covered by ``[char_start, char_end)``."""
        first = self.line_of(char_start)
        last = self.line_of(max(char_end - 1, char_start))
        return first, max(first, last)


def trim_range(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so it neither ends nor starts with whitespace.

    Leading indentation on the first line is kept only when ``start`` is not
    already inside it; callers that need indentation (code) pass ``start`` as is.
    """
    while end > start and text[end - 1].isspace():
        end -= 1
    while start < end and text[start] in "\r\n":
        start += 1
    return start, end
