"""Incremental multiset hash of a revision's membership, and the span id format.

Revision hashes use AdHash from Bellare & Micciancio, "A New Paradigm for
Collision-free Hashing: Incrementality at Reduced Cost" (EUROCRYPT 1997): the
hash of a multiset is the sum, modulo 2**256, of a hash of each element. Adding
or removing a document is one addition or subtraction, so a revision's hash is
maintained in the same transaction that changes its membership, and two
revisions with the same membership have the same hash whatever the order of
changes that produced them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from citewise.errors import UsageError

MODULUS = 2**256
EMPTY_HASH = "0" * 64

SPAN_FORMAT = "<node_id>:<char_start>-<char_end>"
#: Offsets have at most 15 digits (no document is that long; longer ones are malformed).
_SPAN_RE = re.compile(r"^(n_[0-9A-Za-z]{1,64}):(\d{1,15})-(\d{1,15})$")


def element(path: str, content_sha256: str) -> int:
    """The hash of one member: sha256(path NUL content_sha256) as an integer."""
    digest = hashlib.sha256(f"{path}\x00{content_sha256}".encode()).digest()
    return int.from_bytes(digest, "big")


def to_hex(value: int) -> str:
    return f"{value % MODULUS:064x}"


def from_hex(value: str) -> int:
    return int(value, 16)


def add(hash_hex: str, path: str, content_sha256: str) -> str:
    return to_hex(from_hex(hash_hex) + element(path, content_sha256))


def remove(hash_hex: str, path: str, content_sha256: str) -> str:
    return to_hex(from_hex(hash_hex) - element(path, content_sha256))


def multiset_hash(members: Iterable[tuple[str, str]]) -> str:
    """The hash of a whole membership of (path, content sha256) pairs, from scratch."""
    return to_hex(sum(element(p, s) for p, s in members))


def span_id(node_id: str, char_start: int, char_end: int) -> str:
    """Format a span id: absolute code-point offsets into the document text, end exclusive."""
    return f"{node_id}:{char_start}-{char_end}"


def parse_span_id(citation_id: str) -> tuple[str, int, int]:
    """Split a span id into (node_id, char_start, char_end); UsageError if malformed."""
    m = _SPAN_RE.match(citation_id)
    if m is None or int(m.group(2)) >= int(m.group(3)):
        raise UsageError(
            f"Malformed span id {citation_id[:80]!r}.",
            hint=f"A span id is {SPAN_FORMAT} with char_start < char_end, "
            "e.g. n_0123abcd:10-42 (code-point offsets into the document, end exclusive).",
        )
    return m.group(1), int(m.group(2)), int(m.group(3))


def line_range(text: str, char_start: int, char_end: int) -> tuple[int, int]:
    """1-based inclusive lines covered by ``text[char_start:char_end]``."""
    first = text.count("\n", 0, char_start) + 1
    last_char = max(char_start, char_end - 1)
    return first, text.count("\n", 0, last_char) + 1
