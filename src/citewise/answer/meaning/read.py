"""What the meaning check reads for a quoted unit (:mod:`citewise.answer.meaning.check`).

The cross-encoder was trained on passages of a few sentences: a unit alone often reads as
no answer although it is one ("Were the centers profitable?" / "They lost money from the
beginning"). :func:`unit_readings` gives, for each chosen unit (best first), the unit
alone, with the sentence before it, between the sentences before and after it, with two
sentences before, and (in a subsection) after the subsection's earlier sentences, all
under its subsection heading, at most :data:`MAX_READINGS` in all; a clause of a
regulation or statute is also read under its part and section titles
(:mod:`citewise.answer.clause_reading`). The neighbours are the document's sentence
units (a fragment often ends with the unit); a word a PDF or OCR line end breaks with a
hyphen is read whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from citewise.answer.clause_reading import clause_read
from citewise.evidence.models import TRUNCATION_MARKER as TRUNCATION
from citewise.evidence.sentences import split_sentences

if TYPE_CHECKING:
    from citewise.answer.candidate import Candidate
    from citewise.answer.units.structure import Unit
    from citewise.evidence.models import Fragment

__all__ = [
    "MAX_READINGS",
    "PARAGRAPH_GAP",
    "SECTION_SENTENCES",
    "neighbours",
    "readings",
    "section_lead",
    "sentence_after",
    "sentence_before",
    "unbroken",
    "unit_readings",
    "with_heading",
]


def sentence_before(text: str, offset: int, start: int) -> str:
    """The sentence before the unit at ``start`` in its own paragraph, read from the
    fragment ``text`` that begins at document ``offset`` ("" when the unit opens its
    paragraph or the fragment): what "They" and "this system" in the unit refer to."""
    cut = start - offset
    if cut <= 0 or cut > len(text):
        return ""
    head = text[:cut]
    para = head[head.rfind("\n\n") + 2 :] if "\n\n" in head else head
    if TRUNCATION in para:
        return ""
    sentences = [s.text.strip() for s in split_sentences(para) if s.text.strip()]
    return sentences[-1] if sentences else ""


def sentence_after(text: str, offset: int, end: int) -> str:
    """The sentence after the unit ending at ``end`` in its own paragraph, read from the
    fragment ``text`` that begins at document ``offset`` ("" when the unit closes its
    paragraph or the fragment): what a long narrative sentence's "them" is said of next."""
    cut = end - offset
    if cut < 0 or cut >= len(text):
        return ""
    tail = text[cut:]
    lead = len(tail) - len(tail.lstrip())
    if "\n\n" in tail[: lead + 1]:
        return ""  # the unit closes its paragraph
    para = tail[: tail.find("\n\n", lead)] if "\n\n" in tail[lead:] else tail
    if TRUNCATION in para:
        return ""
    sentences = [s.text.strip() for s in split_sentences(para) if s.text.strip()]
    return sentences[0] if sentences else ""


def readings(unit: str, before: str, after: str = "", earlier: str = "") -> list[str]:
    """What the model reads for one unit: the unit alone, then with its sentence before,
    then with the sentences before and after it (the passage the model was trained on is
    a few sentences long: "Were the centers profitable?" / "They lost money from the
    beginning" reads as no answer alone, as one between its neighbours), then also with
    the sentence ``earlier`` than the one before (a narrative names its subject once:
    "... watching the mortar shells flying ... High into the air they leaped ... I have
    seen as many as three of them in the air at once")."""
    out = [unit, f"{before} {unit}"] if before else [unit]
    if after:
        out.append(f"{before} {unit} {after}".strip())
    if earlier and before:
        out.append(f"{earlier} {before} {unit} {after}".strip())
    return out


def neighbours(units: Sequence[Unit], start: int, end: int) -> tuple[str, str, str]:
    """The two sentences right before ``start`` (the earlier first) and the one right
    after ``end`` among a document's ``units``, as shown, when they are in the same
    paragraph (one space or line break apart; a blank line ends a paragraph): "" for a
    place without one. A word the source breaks at a line end ("mor-\ntar") is read
    whole."""
    sentences = [u for u in units if u.kind == "sentence"]

    def prior(at: int) -> Unit | None:
        got = max((u for u in sentences if u.end <= at), key=lambda u: u.end, default=None)
        return got if got is not None and at - got.end <= PARAGRAPH_GAP else None

    later = min((u for u in sentences if u.start >= end), key=lambda u: u.start, default=None)
    if later is not None and later.start - end > PARAGRAPH_GAP:
        later = None
    one = prior(start)
    two = prior(one.start) if one is not None else None

    def shown(u: Unit | None) -> str:
        return "" if u is None else unbroken(u.text, u.display)

    return shown(two), shown(one), shown(later)


#: Characters between two sentences of one paragraph at most (a space or a line break).
PARAGRAPH_GAP = 1
#: A word broken at a line end by a hyphen ("mor-\ntar"): PDF and OCR text.
_BROKEN = re.compile(r"(\w+)-[ \t]*\n\s*([a-z]\w*)")


def unbroken(raw: str, shown: str) -> str:
    """``shown`` (the display form of ``raw``) with the words ``raw`` breaks at a line end
    by a hyphen read whole: "mor- tar shells" -> "mortar shells"."""
    for a, b in _BROKEN.findall(raw):
        shown = shown.replace(f"{a}- {b}", f"{a}{b}")
    return shown


def unit_readings(
    chosen: Sequence[Candidate], units_of: Callable[[Fragment], Sequence[Unit]] | None = None
) -> list[str]:
    """The texts the check reads for the chosen units, best-scored unit first: each alone,
    then with the sentence before it in its paragraph, then with the sentences on both
    sides, then with two before (:func:`readings`; the neighbours from the document's
    units, ``units_of``, when given: a fragment often ends with the unit), under its
    subsection heading."""
    out: list[str] = []
    for c in sorted(chosen, key=lambda c: (-c.score, c.order)):
        text, start = c.fragment.text, c.fragment.char_start
        before = sentence_before(text, start, c.span.start)
        after = sentence_after(text, start, c.span.end)
        earlier = ""
        if units_of is not None:
            two, one, later = neighbours(units_of(c.fragment), c.span.start, c.span.end)
            if one:
                earlier, before = two, one
            after = later or after
        unit = unbroken(c.span.text, c.clean)
        before, after = unbroken(text, before), unbroken(text, after)
        read = readings(unit, before, after, earlier)
        if units_of is not None and c.depth >= 2:
            lead = section_lead(units_of(c.fragment), c.span.start, {before, earlier})
            if lead:
                read.append(f"{lead} {unit}")
        shown = [with_heading(t, c.section, c.depth) for t in read]
        in_clause = clause_read(c)  # a clause under its part and section titles, second
        out.extend([*shown[:1], in_clause, *shown[1:]] if in_clause else shown)
    return out[:MAX_READINGS]


#: Readings of the chosen units at most (one pair each; the check stops at the first that
#: passes): with recovery's 4 pairs an ask reads at most 16. SQuAD 2.0 seed 15, 200
#: questions: 1.1 pairs an ask on average, 4 at the 95th percentile, 11 at most.
MAX_READINGS = 12


#: Sentences of a subsection before a unit's own paragraph that the check reads with it.
SECTION_SENTENCES = 3


def section_lead(units: Sequence[Unit], start: int, read: set[str]) -> str:
    """The last :data:`SECTION_SENTENCES` sentences of the subsection before the unit at
    ``start`` (those not ``read`` already as its neighbours): documentation names its
    subject once, in the subsection's lead ("The TallyBound type keeps a counter below a
    ceiling." two paragraphs before "When wrap mode is enabled, ... starts again from the
    floor."), as the constraint gate reads it (answer/admission.py); "" when none."""
    own = next((u for u in units if u.start == start), None)
    if own is None or own.section_line is None:
        return ""
    line = own.section_line
    earlier = sorted(
        (u for u in units if u.kind == "sentence" and u.section_line == line and u.end <= start),
        key=lambda u: u.start,
    )
    lead = [unbroken(u.text, u.display) for u in earlier[-SECTION_SENTENCES:]]
    lead = [t for t in lead if t not in read]
    return " ".join(lead)


def with_heading(text: str, section: str, depth: int) -> str:
    """The unit as the model reads it: under its subsection heading (level 2 or deeper),
    which documentation sentences lean on ("Multiple Options from Environment Values. The
    default implementation for all types is to split on whitespace. ..."); a page title
    (an article's "# Yuan dynasty") adds nothing a sentence does not say."""
    return f"{section.strip().rstrip('.:')}. {text}" if section.strip() and depth >= 2 else text
