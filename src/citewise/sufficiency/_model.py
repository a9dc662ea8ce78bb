"""The fact model of :mod:`citewise.sufficiency.facts` and two text helpers.

Private sibling modules of ``facts.py`` (``_qualifiers``, ``_subjects``, ``_tables``)
share these; the public names are re-exported by :mod:`citewise.sufficiency.facts`.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Literal

TimeScope = Literal["current", "historical", "planned"]


def _words(text: str) -> tuple[str, ...]:
    """Whitespace-separated words (keeps long word lists readable)."""
    return tuple(text.split())


@dataclass(frozen=True, slots=True)
class Qualifiers:
    """The scope a fact holds in; ``None`` means "not stated"."""

    environment: str | None = None
    version: str | None = None
    platform: str | None = None
    time: TimeScope | None = None
    #: The condition the sentence opens with ("at 12 weeks", "among women with …"):
    #: :func:`citewise.sufficiency._numbers.framing_condition`.
    condition: str | None = None

    def over(self, base: Qualifiers) -> Qualifiers:
        """These qualifiers, with unset dimensions taken from ``base``."""
        return Qualifiers(
            self.environment or base.environment,
            self.version or base.version,
            self.platform or base.platform,
            self.time or base.time,
            self.condition or base.condition,
        )


@dataclass(frozen=True, slots=True)
class Fact:
    """One comparable statement; ``text`` is ``doc[start:end]`` (the sentence/row)."""

    subject: str
    attribute: str
    value: str
    raw_value: str
    start: int
    end: int
    text: str
    value_start: int
    value_end: int
    qualifiers: Qualifiers = Qualifiers()
    doc_path: str = ""
    heading_path: tuple[str, ...] = ()
    #: Offset of the table / list the fact came from (-1 for prose): rows and
    #: items of one table or list enumerate values, they do not contradict.
    group: int = -1


_MASK_PREFIX = re.compile(
    r"^(?:\s*>\s?)*\s*(?:[-*+•]\s+|\d{1,3}[.)]\s+)?(?:\*\*|__)?"
    r"(?:(?:note|tip|warning|important|caution|prerequisites?|注意|提示)\s*[:：]\s*"
    r"(?:\*\*|__)?)?",
    re.IGNORECASE,
)


def _mask(text: str) -> str:
    """Same-length copy of ``text`` with Markdown scaffolding blanked out."""
    m = _MASK_PREFIX.match(text)
    s = " " * m.end() + text[m.end() :] if m else text
    return re.sub(r"\*\*|__|`", lambda x: " " * len(x.group(0)), s)


#: An element tag (start, end or empty), a comment, a declaration or a processing
#: instruction: the scaffolding of XML (RegML, GPO CFR) and of HTML inside Markdown. An
#: autolink (``<https://host/path>``, ``<ops@example.com>``) is content, not a tag.
_TAG = re.compile(
    r"<(?![A-Za-z][A-Za-z0-9+.-]*://|[^<>\s@]+@[^<>\s]+>)"
    r"(?:[A-Za-z][^<>]*|/[A-Za-z][^<>]*|!--.*?--|![^<>]*|\?[^<>]*)>",
    re.S,
)
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")
_CODE_SPAN = re.compile(r"(`+)[^\n]+?\1")


def blank_markup(text: str) -> str:
    """Same-length copy of ``text`` with markup tags blanked (newlines kept) and character
    references decoded in place (the character, then spaces), outside backtick code spans.

    XML documents are stored as their exact source, so the facts of a RegML paragraph
    would otherwise be read off its tags: ``<ref target="1013-2-e">`` gave a path
    ``/ref`` and conflict notes such as "consumer lease: ... gives /ref and ... gives
    /def" (held-out regulations, 2026-12-07). Offsets are kept, so facts still cite
    the source exactly."""
    if "<" not in text and "&" not in text:
        return text
    code = [m.span() for m in _CODE_SPAN.finditer(text)] if "`" in text else []

    def outside(at: int) -> bool:
        return not any(a <= at < b for a, b in code)

    def tag(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0)) if outside(m.start()) else m.group(0)

    def entity(m: re.Match[str]) -> str:
        raw = m.group(0)
        char = html.unescape(raw)
        if not outside(m.start()) or char == raw or len(char) > len(raw) or char in "<>":
            return raw
        return char + " " * (len(raw) - len(char))

    return _ENTITY.sub(entity, _TAG.sub(tag, text))
