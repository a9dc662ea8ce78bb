"""Which pieces mention a topic (pure): an inverted index of words (Latin) and characters
(Han) over the pieces, checked by an exact match of the topic's key.

English keys match at word boundaries, case folded, with an optional plural ``s``/``es``
("middleware" holds in "Middlewares"); Chinese keys match as substrings (no spaces
separate Chinese words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from citewise.notes.extract import Piece

_TOKEN = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
_BLANKED = re.compile(r"[*`\"“”‘’]")


def tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(text.casefold()))


def _indexed(text: str) -> set[str]:
    """The tokens of ``text`` and, for a Latin word, its forms without a plural ending (a
    key's word must find "keys" as it finds "key"; the exact match decides)."""
    out = tokens(text)
    out |= {t[:-1] for t in out if t.endswith("s")} | {t[:-2] for t in out if t.endswith("es")}
    return out


@lru_cache(maxsize=8192)
def _pattern(key: str) -> re.Pattern[str]:
    if re.search(r"[\u4e00-\u9fff]", key):
        return re.compile(re.escape(key))
    return re.compile(r"(?<![\w.\-])" + re.escape(key) + r"(?:e?s)?(?![\w\-]|\.\w)")


def mentions(key: str, text: str) -> bool:
    """Whether ``text`` mentions the topic ``key`` (see the module docstring)."""
    return bool(key) and _pattern(key).search(_BLANKED.sub("", text.casefold())) is not None


class MentionIndex:
    """Pieces by the words they hold; :meth:`find` lists those mentioning a key."""

    def __init__(self, pieces: Sequence[Piece]) -> None:
        self.pieces = pieces
        self._post: dict[str, set[int]] = {}
        for i, piece in enumerate(pieces):
            for tok in _indexed(piece.text):
                self._post.setdefault(tok, set()).add(i)
        self._found: dict[str, list[int]] = {}

    def find(self, key: str) -> list[int]:
        """Indexes of the pieces mentioning ``key``, in piece order."""
        got = self._found.get(key)
        if got is not None:
            return got
        toks = sorted(tokens(key), key=lambda t: len(self._post.get(t, ())))
        if not toks:
            return []
        hits = set(self._post.get(toks[0], ()))
        for tok in toks[1:]:
            hits &= self._post.get(tok, set())
            if not hits:
                break
        out = sorted(i for i in hits if mentions(key, self.pieces[i].text))
        self._found[key] = out
        return out

    def documents(self, key: str) -> set[str]:
        return {self.pieces[i].path for i in self.find(key)}
