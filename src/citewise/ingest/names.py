"""Document names: one Unicode form per name, no invisible or direction-changing characters.

A document's path is its identity, so two spellings of one name (NFC and NFD) must give one
document, and a name must read on screen as what it is: bidi controls (which can reverse a
name's visible order, e.g. ``txt.exe`` shown as ``exe.txt``) and zero-width characters are
refused with a clear error.
"""

from __future__ import annotations

import unicodedata

from citewise.errors import UsageError

#: Bidi embedding/override/isolate controls and marks, zero-width and other invisibles.
INVISIBLE = frozenset(
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)
#: Longest name part most file systems store (bytes), and longest document path (chars).
MAX_PART_BYTES = 255
MAX_PATH_CHARS = 1024


def name_problem(rel: str) -> str | None:
    """Why ``rel`` (a relative POSIX path) cannot be a document name, or None."""
    bad = sorted({f"U+{ord(ch):04X}" for ch in rel if ch in INVISIBLE})
    if bad:
        return (
            f"the name contains invisible or text-direction characters ({', '.join(bad)}); "
            "rename the file without them"
        )
    if len(rel) > MAX_PATH_CHARS:
        return f"the path is {len(rel):,} characters long (limit {MAX_PATH_CHARS:,}); shorten it"
    for part in rel.split("/"):
        if len(part.encode("utf-8")) > MAX_PART_BYTES:
            return (
                f"a name part is {len(part.encode('utf-8')):,} bytes long "
                f"(limit {MAX_PART_BYTES}); shorten it"
            )
    return None


def normalise_name(rel: str) -> str:
    """``rel`` in Unicode NFC, or BAD_REQUEST naming the problem."""
    nfc = unicodedata.normalize("NFC", rel)
    problem = name_problem(nfc)
    if problem:
        raise UsageError(f"Bad file name {nfc[:80]!r}: {problem}.")
    return nfc
