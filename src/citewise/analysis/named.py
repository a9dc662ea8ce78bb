"""Names a question relies on: identifiers, versions, model numbers, proper names.

A near-miss question ("How do I calibrate the Lumen X9 laser?" when only the S200 and
S800 are documented) names something the corpus does not hold; the ``subject_absent``
gate (:mod:`citewise.sufficiency.named`) refuses it instead of answering about a
neighbouring subject.
"""

from __future__ import annotations

import re

from citewise.analysis.tokenize import QUESTION_STEMS, tokenize

__all__ = ["named_terms"]

_NAMED = re.compile(
    r"(?<![.?!]\s)\b([A-Z][\w-]*\d[\w-]*|[A-Z][a-z]+[A-Z][\w-]*|[A-Z][a-z]{2,}"
    r"|[A-Za-z]+\d[\w.-]*|\d+[A-Za-z][\w-]*)\b"
)


#: Generic head nouns: the word before one names which thing is meant ("billing service").
_HEADS = re.compile(
    r"\b([a-z][a-z-]{2,})\s+(?:service|system|team|device|model|instrument|feature|mode|"
    r"policy|process|endpoint|module|component|server|agent|gateway|database|queue)s?\b"
)


def named_terms(text: str) -> tuple[str, ...]:
    """Names and identifiers a question relies on: capitalised words after the first word,
    tokens mixing letters and digits (``Kafka``, ``X9``, ``S400``), and the modifier that
    picks out a generic head noun (``billing`` in "the billing service")."""
    q = text.strip()
    rest = q.split(None, 1)[1] if len(q.split(None, 1)) == 2 else ""
    words = [m.group(1) for m in _NAMED.finditer(rest)]
    words += [m.group(1) for m in _HEADS.finditer(q.lower())]
    terms = (t for w in words for t in tokenize(w, literals=False))
    return tuple(dict.fromkeys(t for t in terms if t not in QUESTION_STEMS))
