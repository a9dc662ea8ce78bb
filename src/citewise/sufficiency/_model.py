"""The fact model of :mod:`citewise.sufficiency.facts` and two text helpers.

Private sibling modules of ``facts.py`` (``_qualifiers``, ``_subjects``, ``_tables``)
share these; the public names are re-exported by :mod:`citewise.sufficiency.facts`.
"""

from __future__ import annotations

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
