"""Display cleaning of a quoted unit: source scaffolding removed, wording kept.

The quoted span itself (from :func:`citewise.evidence.sentences.split_sentences`)
is never rewritten: every citation points at the exact source text. Cleaning only
shapes the sentence shown in an answer.
"""

from __future__ import annotations

import re

__all__ = ["clean_sentence"]

_QUOTE_PREFIX = re.compile(r"^(?:[ \t]*>[ \t]?)+")
_BULLET = re.compile(r"^[ \t]*[-*+•][ \t]+")
_HEADING_MARK = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_LABEL = re.compile(
    r"^(?:prerequisites?|note|notes|tip|warning|caution|important|info|hint|danger|"
    r"see also|example|nb|n\.b\.|注意|提示|警告|说明|前提条件|前提|注)"
    r"[ \t]*[:：][ \t]*",
    re.IGNORECASE,
)
_ADMONITION = re.compile(r"^\[!(?:note|tip|warning|caution|important)\][ \t]*", re.IGNORECASE)


def clean_sentence(text: str) -> str:
    """Display form of a quoted unit: source scaffolding removed, wording kept.

    Removes blockquote ``>``, bullets, heading ``#``, bold markers (``**x**``,
    ``__x__``), admonition tags and leading labels (``Note:``, ``Prerequisite:``,
    ``注意：``); a table row becomes its cells joined by `` | ``.  Step numbers
    (``1.``, ``Step 2``) are content and are kept.  Whitespace is collapsed.
    """
    s = text.strip()
    lines = []
    for raw in s.splitlines():
        line = _QUOTE_PREFIX.sub("", raw)
        lines.append(line)
    s = " ".join(part.strip() for part in lines if part.strip())
    if s.startswith("|"):
        cells = [c.strip() for c in s.strip().strip("|").split("|")]
        s = " | ".join(c for c in cells if c)
    s = _HEADING_MARK.sub("", s)
    s = _BULLET.sub("", s)
    s = _EMPHASIS.sub(r"\2", s)
    s = _ADMONITION.sub("", s)
    prev = None
    while prev != s:
        prev = s
        s = _LABEL.sub("", s).strip()
    return re.sub(r"\s+", " ", s).strip()
