"""Display cleaning of a quoted unit: source scaffolding removed, wording kept.

The quoted span itself (from :func:`citewise.evidence.sentences.split_sentences`)
is never rewritten: every citation points at the exact source text. Cleaning only
shapes the sentence shown in an answer.
"""

from __future__ import annotations

import html
import re

from citewise.memo import text_memo

__all__ = ["MARKUP", "clean_sentence", "strip_html"]

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
#: A tag (any element, any attributes, comments, doctype) or a tag cut off at the end.
MARKUP = re.compile(r"<(?:[A-Za-z][^<>]*|/[A-Za-z][^<>]*|!--.*?--|![^<>]*|\?[^<>]*)(?:>|$)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)\]”’。，；：！？]|['’]s\b)")
_SPACE_AFTER_OPEN = re.compile(r"([(\[“‘])\s+")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")
_ADMONITION = re.compile(r"^\[!(?:note|tip|warning|caution|important)\][ \t]*", re.IGNORECASE)


@text_memo
def clean_sentence(text: str) -> str:
    """Display form of a quoted unit: source scaffolding removed, wording kept.

    Removes blockquote ``>``, bullets, heading ``#``, bold markers (``**x**``,
    ``__x__``), admonition tags and leading labels (``Note:``, ``Prerequisite:``,
    ``注意：``); a table row becomes its cells joined by `` | ``.  Step numbers
    (``1.``, ``Step 2``) are content and are kept.  Raw markup (HTML tags with their
    attributes, e.g. ``<img onerror=...>``) is removed outside code spans and character
    references are decoded.  Whitespace is collapsed.
    """
    s = strip_html(text.strip())
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


def strip_html(text: str) -> str:
    """``text`` without HTML tags (outside backtick code spans), entities decoded."""
    if "<" not in text and "&" not in text:
        return text
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        parts.append(_strip(text[pos : m.start()]))
        parts.append(m.group(0))
        pos = m.end()
    parts.append(_strip(text[pos:]))
    return "".join(parts)


def _strip(text: str) -> str:
    stripped = MARKUP.sub(" ", text)
    if _ENTITY.search(stripped):  # decoded references may spell a tag: strip once more
        stripped = MARKUP.sub(" ", html.unescape(stripped))
    if stripped != text:  # a tag inside a word's phrase: "applicant</ref>'s", "<ref>x</ref>)"
        stripped = _SPACE_AFTER_OPEN.sub(r"\1", _SPACE_BEFORE_PUNCT.sub(r"\1", stripped))
    return stripped
