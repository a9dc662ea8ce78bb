"""Other forms of a question's word that a quoted unit may use (issue 15 near misses).

The unit constraints (:mod:`citewise.sufficiency.constraints`) ask that a unit hold the
question's distinctive names and relation words. Questions and documents word the same
thing in different forms, which index tokens (Porter stems) keep apart:

* **accents** - "Herve" for "Hervé", "Ogedei" for "Ögedei": both sides are also read
  with their accents folded (:func:`fold`);
* **derived forms** - "invade" / "invasion", "colonists" / "colony", "marry" /
  "marriage", "Africans" / "Africa": two stems that share a long enough start and differ
  only in their endings are one word (:func:`related`).

The rule is deliberately narrow (a shared start of four letters at least, covering all but
two letters of the shorter stem, endings of at most four letters): "project" and
"protect", "court" and "count" stay apart. Figures are compared by
:func:`citewise.sufficiency.constraints.number_found`, never here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from citewise.analysis.tokenize import tokenize

__all__ = ["fold", "held", "related", "tokens"]

#: The shortest shared start of two related stems, and the longest ending each may add.
MIN_SHARED = 4
MAX_ENDING = 4


def fold(text: str) -> str:
    """``text`` without accents ("Hervé" -> "Herve", "Ögedei" -> "Ogedei")."""
    if text.isascii():  # ASCII is unchanged by NFKD and has no combining marks (issue 35:
        return text  # a unit's whole context was decomposed char by char per candidate)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokens(text: str) -> set[str]:
    """The index tokens of ``text`` as written and with its accents folded."""
    out = set(tokenize(text))
    folded = fold(text)
    if folded != text:
        out.update(tokenize(folded))
    return out


def related(a: str, b: str) -> bool:
    """Whether stems ``a`` and ``b`` are forms of one word ("invad" / "invas", "coloni" /
    "colonist", "marri" / "marriag"): equal, or alphabetic with a shared start of at least
    :data:`MIN_SHARED` letters that leaves at most two letters of the shorter and at most
    :data:`MAX_ENDING` of the longer."""
    if a == b:
        return True
    if not (a.isalpha() and b.isalpha()):
        return False
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return (
        shared >= MIN_SHARED
        and shared >= min(len(a), len(b)) - 2
        and max(len(a), len(b)) - shared <= MAX_ENDING
    )


def held(key: str, present: Iterable[str]) -> bool:
    """Whether a token of ``present`` is ``key`` or a form of it (:func:`related`); ``key``
    is also read with its accents folded."""
    keys = {key, *tokenize(fold(key))} if fold(key) != key else {key}
    pool = set(present)
    if keys & pool:
        return True
    return any(related(k, p) for k in keys for p in pool)
