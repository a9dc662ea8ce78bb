"""Closed compounds the documents write open: "keypress" for "Key Press", "filename" for
"file name", "timestamp" for "time stamp".

A question's word that no chunk of the knowledge base holds is normally the surest sign
of an absent subject (``subject_absent``). A closed compound is not absent when the
documents write it as two words: each part must be a word the knowledge base holds, and
the two must stand together ("key press", "key-press") in a chunk the caller may read.
Such a word is read as a soft term (its meaning is asked, its spelling is not required),
never as a name or identifier.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citewise.analysis.tokenize import tokenize

__all__ = ["MIN_PART", "PREFIXES", "open_form", "splits", "written_open"]

#: Each part of a split compound has at least this many letters ("keyp|ress" is tried,
#: "ke|ypress" is not).
MIN_PART = 3


#: First parts that make a derived word, not a compound of two things: "underrepresented"
#: is not "under represented" (SQuAD: answered with "overrepresented" text), "outperform"
#: is not "out perform".
PREFIXES = frozenset(
    (
        "anti",
        "counter",
        "dis",
        "inter",
        "mis",
        "multi",
        "non",
        "out",
        "over",
        "post",
        "pre",
        "self",
        "semi",
        "sub",
        "super",
        "under",
    )
)


def splits(word: str) -> list[tuple[str, str]]:
    """Ways to cut a lowercase alphabetic ``word`` into two parts of :data:`MIN_PART`
    letters or more, in order of the cut; never after one of :data:`PREFIXES`."""
    w = word.lower()
    if not w.isascii() or not w.isalpha() or len(w) < 2 * MIN_PART:
        return []
    cuts = range(MIN_PART, len(w) - MIN_PART + 1)
    return [(w[:i], w[i:]) for i in cuts if w[:i] not in PREFIXES]


def _pattern(first: str, second: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9]){first}[\s-]+{second}(?![a-z0-9])", re.I)


def open_form(
    word: str, df: Callable[[str], int], phrase: Callable[[str, str], bool]
) -> str | None:
    """The open form ("key press") of the closed compound ``word`` ("keypress") when both
    parts are words of the knowledge base (``df`` of their index tokens > 0, no stopword)
    and ``phrase(first, second)`` finds them written together; None otherwise."""
    for first, second in splits(word):
        a, b = tokenize(first, literals=False), tokenize(second, literals=False)
        if len(a) == 1 and len(b) == 1 and df(a[0]) > 0 and df(b[0]) > 0 and phrase(first, second):
            return f"{first} {second}"
    return None


def written_open(text: str, first: str, second: str) -> bool:
    """Whether ``text`` writes ``first`` and ``second`` together as two words."""
    return _pattern(first, second).search(text) is not None
