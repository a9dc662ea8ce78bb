"""A question's misspelt word read as the knowledge base's word (issue 15).

Questions carry typing slips (a swapped, doubled, dropped or wrong letter in a name or a
word: "Pariss", "goverment") that no document holds. Taken literally they are absent
subjects, and the question is refused ("the documents do not mention: Pariss") although
the documents answer it. A
word is read as a slip of a knowledge-base word only when nothing else explains it:

* the question's word is not an English word (``wordfreq``: below Zipf 3, the list's
  floor) and no chunk holds it: real words ("hardest", "hollow", "unmodified") are never
  respelt, however close a knowledge-base word is;
* it is alphabetic, at least :data:`MIN_LENGTH` letters, and so are its index token and
  the neighbour (short slips have too many neighbours: "keyring", indexed as "keyr", is
  not "key"), without hyphen or digit ("non-Taliban", "X9" are meant as written);
* one edit of its index token (a letter dropped, added, changed, or two neighbours
  swapped, never the first letter) gives a token the knowledge base holds; of several,
  the one most chunks hold (then the first alphabetically). Failing that, one edit of the
  word itself whose index token the knowledge base holds (a slip the stemmer hides:
  "significan", one letter from "significant", indexed "signific").

The caller gives the chunk count (:func:`respell` takes ``df``), so a word only hidden
documents hold is never a neighbour (authorization before any verdict).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citewise.analysis.question import Question
from citewise.analysis.tokenize import tokenize
from citewise.sufficiency.models import TermProfile

__all__ = ["MIN_LENGTH", "edits", "respell", "respelt_text"]

MIN_LENGTH = 5
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def edits(token: str) -> set[str]:
    """Every token one edit from ``token`` that keeps its first letter."""
    head, rest = token[:1], token[1:]
    cuts = [(rest[:i], rest[i:]) for i in range(len(rest) + 1)]
    out = {a + b[1:] for a, b in cuts if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
    out |= {a + c + b[1:] for a, b in cuts if b for c in _LETTERS if c != b[0]}
    out |= {a + c + b for a, b in cuts for c in _LETTERS}
    out.discard(rest)
    return {head + e for e in out}


def respell(
    word: str, key: str, df: Callable[[str], int], zipf: Callable[[str], float]
) -> str | None:
    """The knowledge base's token that the question's ``word`` (index token ``key``, held
    by no chunk) is a slip of, or None (see the module docstring). ``zipf`` tells how
    common a word is in English (0 for a word the list does not hold)."""
    if len(word) < MIN_LENGTH or not word.isascii() or not word.isalpha():
        return None
    if zipf(word) > 0 or not key.isalpha() or tokenize(word) != [key] or len(key) < MIN_LENGTH:
        return None  # "keyring" is indexed as "keyr": too short a stem to respell
    found = [(df(t), t) for t in sorted(edits(key))]
    held = [(n, t) for n, t in found if n > 0 and len(t) >= MIN_LENGTH]
    if not held:  # a slip the stemmer hides: "significan" is "significant" ("signific")
        found = [(df(t), t) for t in sorted(_stemmed_edits(word.lower(), key))]
        held = [(n, t) for n, t in found if n > 0 and len(t) >= MIN_LENGTH]
    if not held:
        return None
    return min(held, key=lambda x: (-x[0], x[1]))[1]


#: The letters at a word's end within which a stemmer-hidden slip is looked for.
_TAIL = 3


def _stemmed_edits(word: str, key: str) -> set[str]:
    """The index tokens of the words one edit from ``word`` (first letter kept): a slip
    at a word's end ("significan") is one letter from a word ("significant") whose index
    token ("signific") is not one edit from the slip's own token."""
    out = set()
    head, tail = word[:-_TAIL], word[-_TAIL:]
    for e in edits(tail):  # an ending slip: the stemmer only hides a word's last letters
        toks = tokenize(head + e)
        if len(toks) == 1 and toks[0] != key and toks[0].isalpha():
            out.add(toks[0])
    return out


def respelt_text(question: Question, profile: TermProfile) -> str:
    """``question`` with each word read as a slip replaced by the knowledge base's token
    for it ("When did Pariss host it?" -> "When did paris host it?"): what
    recall searches for, so the passage that spells the word right is found."""
    out = question.text
    for t in profile.terms:
        if t.asked:
            out = re.sub(rf"(?<!\w){re.escape(t.surface)}(?!\w)", t.key, out)
    return out
