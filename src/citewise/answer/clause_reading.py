"""How the meaning check reads a unit of clause-structured text: under the title of its
part and the subject of its section (issue 34, "candidates carry their context").

Regulations, statutes and standards name their subject once, in the headings: a
paragraph of 14 CFR part 1212 says "(3) Have not been granted access within 30 work
days of their request." and only the part's title ("Privacy Act—NASA regulations") and
the section's subject ("Appeals") say what it is about. A reader asking "Under NASA's
Privacy Act rules, after how long ... can I appeal?" reads the paragraph with them; the
cross-encoder, given the paragraph alone, reads it as no answer. :func:`clause_read` is
the text it reads instead: ``"<part title>: <section subject>. <unit>"``, the headings'
own numbering ("PART 1212—", "§ 1212.400", "Subpart D—") left out, since numbers say
nothing to a model trained on prose.

The class is told by the fragment's regulation record naming a clause
(:mod:`citewise.recall.editions`) or by a heading on its path that numbers a clause
(``§ 1212.400``, ``PART 1212``, ``Article 12``): other text is read as before
(:func:`citewise.answer.meaning.read.with_heading`).

Chosen on cfr14 (14 CFR chapter V, GPO XML); see docs/architecture.md for the corpora
left out of the choice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citewise.answer.candidate import Candidate
    from citewise.evidence.models import Fragment

__all__ = ["clause_read", "clause_structured", "heading_subject", "scope_title"]

#: A heading's own number or label before its subject: "§ 1212.400", "§§ 1.1-1.3", "1206.700",
#: "PART 1212—", "Subpart D—", "Appendix A to Part 1016—", "Article 12", "Section 3.".
_LABEL = re.compile(
    r"^\s*(?:§+\s*[\w.\-–()]+|\d+[a-z]?(?:\.\d+[a-z]?)+"
    r"|(?:part|subpart|subchapter|chapter|article|section|appendix|supplement|title)"
    r"\s+[\w.\-]+(?:\s+to\s+part\s+[\w.\-]+)?)"
    r"\s*(?:[—–:.\-]+\s*)?",
    re.IGNORECASE,
)


def heading_subject(heading: str) -> str:
    """A heading's subject without its number or label: "§ 1212.400 Appeals." ->
    "Appeals"; "PART 1212—PRIVACY ACT—NASA REGULATIONS" -> "PRIVACY ACT—NASA
    REGULATIONS"; a heading that is only a label ("§ 1212.400") -> ""."""
    return _LABEL.sub("", heading, count=1).strip().rstrip(".:;").strip()


def scope_title(heading_path: Sequence[str]) -> str:
    """The part's title and the section's subject, as one line ("Privacy Act—NASA
    regulations: Appeals"); one of them when they are the same or only one says
    anything; "" when no heading has a subject."""
    subjects = [s for s in (heading_subject(h) for h in heading_path) if s]
    if not subjects:
        return ""
    first, last = subjects[0], subjects[-1]
    return first if first == last else f"{first}: {last}"


#: A heading that numbers a clause of a regulation or statute: "§ 1212.400 Appeals.",
#: "PART 1212—...", "Article 12" (not a bare "1.2 Install", which manuals use too).
_CLAUSE_HEADING = re.compile(r"^\s*(?:§|(?:part|article)\s+\d)", re.IGNORECASE)


def clause_structured(fragment: Fragment) -> bool:
    """Whether the fragment is a clause of a regulation or statute: its regulation
    record names the clause it stands in, or one of its headings numbers a clause (a
    regulation whose identity no title or metadata gives)."""
    reg = fragment.regulation
    if reg and reg.get("clause"):
        return True
    return any(_CLAUSE_HEADING.match(h) for h in fragment.heading_path)


def clause_read(c: Candidate) -> str | None:
    """The text the meaning check reads for a clause unit (its scope title, then the
    unit); None for a unit of other text."""
    if not clause_structured(c.fragment):
        return None
    scope = scope_title(c.fragment.heading_path)
    return f"{scope}. {c.clean}" if scope else None
