"""A paragraph's topic, stated before the sentence that carries the value (issue 34).

Long documents (papers, regulations, reports) name what a paragraph is about once, in
its opening sentences, and state the asked value sentences later without repeating it:

* a systems paper: "The grep program scans through 10^10 100-byte records ... The
  entire computation takes approximately 150 seconds from start to finish." (the
  value sentence says "computation", only the opening says "grep");
* a regulation: "(c) An appeal of a denial of a request for records shall be made in
  writing ... NASA will make a determination on the appeal within 20 working days." (the
  period sentence never says "appeal" of *what*).

Before this the relation words of a question (:mod:`citewise.sufficiency.constraints`)
had to be in the unit or its headings, so such a unit was refused ("the closest passage
found does not mention grep") although a reader of the paragraph has the topic. Now the
unit's own block (paragraph, list item) before the unit counts as context
for relation words, as headings do, but only its *opening sentence* (the paragraph's
topic sentence): a sentence between it and the unit tells another event of the same
names, and a narrative's next sentence does not answer what its previous one did
("besieged Bari" / "built castles"). Never for figures, polarity or the answer type
(those the unit must state itself), and never the text after the unit.

:data:`LEAD_CHARS` bounds how much of that opening sentence is read: a PDF block whose
sentences were not separated must not lend a whole page's words.
``CITEWISE_PARAGRAPH_LEAD_CHARS`` sets it; 0 turns the rule off.

Chosen on papers and cfr14 (the issue-34 pool's long-document corpora); see
docs/architecture.md for the corpora left out of the choice.
"""

from __future__ import annotations

import os

from citewise.errors import UsageError
from citewise.evidence.sentences import split_sentences

__all__ = ["LEAD_CHARS", "LEAD_ENV", "lead_chars", "lead_of"]

#: Characters of the paragraph's opening sentence read as its topic at most (about six
#: lines of a two-column paper). Set before any run, not swept; the pool's candidates
#: try others.
LEAD_CHARS = 1200
LEAD_ENV = "CITEWISE_PARAGRAPH_LEAD_CHARS"
#: The largest value the variable may take (a guard against a typo such as 12000000).
_MAX = 100_000


def lead_chars() -> int:
    """:data:`LEAD_CHARS`, or the value of ``CITEWISE_PARAGRAPH_LEAD_CHARS`` (0 turns the
    rule off); a value that is no whole number in 0..100000 is a :class:`UsageError`."""
    raw = os.environ.get(LEAD_ENV, "").strip()
    if not raw:
        return LEAD_CHARS
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if not 0 <= value <= _MAX:
        raise UsageError(
            f"{LEAD_ENV}={raw!r} is not a whole number of characters between 0 and {_MAX}.",
            hint=f"Set {LEAD_ENV} to a number such as {LEAD_CHARS} (the default; 0 turns "
            "the paragraph topic off), or unset it.",
        )
    return value


def lead_of(block: str, block_start: int, unit_start: int, limit: int | None = None) -> str:
    """The opening sentence of ``block`` (starting at document offset ``block_start``)
    when the unit that starts at ``unit_start`` comes after it: the paragraph's topic
    sentence, at most ``limit`` characters of it (default :func:`lead_chars`; cut at a
    word boundary). "" when the unit opens its block, lies outside it, or the rule is
    off. Only the opening sentence: a sentence between it and the unit tells another
    event ("In the 10th century the Normans besieged Bari. In the 11th century they
    built castles": the castles sentence does not borrow "besiege")."""
    size = lead_chars() if limit is None else limit
    cut = unit_start - block_start
    if size <= 0 or cut <= 0 or cut > len(block):
        return ""
    opening = next((s.text for s in split_sentences(block[:cut]) if s.text.strip()), "")
    opening = opening.strip()
    if len(opening) <= size:
        return opening
    head = opening[: size + 1]
    space = max(head.rfind(" "), head.rfind("\n"))  # never half a word
    return head[:space].strip() if space > 0 else ""
