"""A unit of a long document read for meaning under its document's title (issue 34).

A paper, report or manual names its subject in its title and seldom again: a sentence of
the Paxos paper says "We let the three roles in the consensus algorithm be performed by
three classes of agents: proposers, acceptors, and learners." and only the title line
("Paxos Made Simple") says whose roles; a sentence of the GFS paper says "By default, we
store three replicas" and only the title says of what. A question names that subject
("What classes of agents does Paxos Made Simple describe?"), and the cross-encoder,
given the sentence alone, reads it as no answer (log-odds -3.6; 8.1 under the title).

:func:`titled` is the reading of such a unit: ``"<title line>. <unit>"`` (as
:mod:`citewise.answer.clause_reading` reads a clause under its part and section titles;
regulations keep that reading instead). It is read only when every usual reading of the
chosen units failed, and it must reach :data:`TITLE_FLOOR`, the rescue floor (6.0), not
the check's 2.0: the title lends the question's subject to every sentence of the
document, so a sentence about a neighbouring matter reads well under it too (the GFS
paper's "Multi-GB files are the common case" for "What is the maximum file size GFS
supports?" reads 4.1 under its title; the Paxos sentence 8.1). The title is the
document's *title line*, its opening block when shaped as a title
(:func:`citewise.sufficiency.structure.title_line`), never the file's metadata title
("Microsoft Word - paper.doc", "Untitled Document" are common in PDFs). No title line,
a unit that already holds it, or a unit under a subsection heading that repeats it: no
added reading. ``CITEWISE_MEANING_TITLE=off`` turns the reading off.

Chosen on papers (15 systems-paper PDFs); cfr14 keeps its clause reading. Corpora left
out of the choice: docs/architecture.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from citewise.analysis.question import Question
from citewise.answer.admission import opening_title
from citewise.answer.clause_reading import clause_structured
from citewise.answer.meaning.check import MeaningCheck, meaning_scores, passes
from citewise.answer.meaning.choice import RESCUE_FLOOR
from citewise.answer.meaning.read import unbroken, with_heading
from citewise.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from citewise.answer.candidate import Candidate
    from citewise.evidence.models import Fragment
    from citewise.evidence.nodes import NodeReader

__all__ = [
    "TITLE_ENV",
    "TITLE_FLOOR",
    "TitleOf",
    "enabled",
    "title_check",
    "title_reader",
    "titled",
]

#: The log-odds a titled reading must reach (the rescue floor of
#: :mod:`citewise.answer.meaning.choice`): chosen on papers, where the check's own 2.0
#: answered an unanswerable question under the title (4.1) and 6.0 kept the answerable
#: one (8.1).
TITLE_FLOOR = RESCUE_FLOOR

TITLE_ENV = "CITEWISE_MEANING_TITLE"
#: The document title line of a fragment's document ("" when it has none).
TitleOf = Callable[["Fragment"], str]


def enabled() -> bool:
    """Whether the titled reading is on (``CITEWISE_MEANING_TITLE``: on, the default, or
    off); another value is a :class:`UsageError` naming the variable."""
    raw = os.environ.get(TITLE_ENV, "").strip().lower()
    if raw in ("", "on", "1", "true"):
        return True
    if raw in ("off", "0", "false"):
        return False
    raise UsageError(
        f"{TITLE_ENV}={raw!r} is neither on nor off.",
        hint=f"Set {TITLE_ENV} to on (the default) or off, or unset it.",
    )


def titled(c: Candidate, unit: str, title_of: TitleOf | None) -> str | None:
    """The unit ``unit`` (its shown text) read under its document's title line, or None
    when there is no title line, the unit or its headings already hold it, or the
    reading is off."""
    if title_of is None or not enabled():
        return None
    title = " ".join(title_of(c.fragment).split()).rstrip(".:")
    if not title:
        return None
    low = title.lower()
    if low in unit.lower() or any(low in h.lower() for h in c.fragment.heading_path):
        return None
    return f"{title}. {unit}"


def title_reader(reader: NodeReader) -> TitleOf:
    """The title line of a fragment's document version, read once per version through
    ``reader`` (:func:`citewise.answer.admission.opening_title`)."""
    seen: dict[tuple[str, int], str] = {}

    def title_of(f: Fragment) -> str:
        key = (f.path, f.version_id)
        if key not in seen:
            seen[key] = opening_title(reader.near(f.path, f.version_id, [(0, 0)]))
        return seen[key]

    return title_of


def title_check(
    question: Question, chosen: Sequence[Candidate], title_of: TitleOf | None
) -> MeaningCheck | None:
    """The chosen units (best first; not clauses of a regulation) read under their
    document's title line, passed when one reaches :data:`TITLE_FLOOR`; None when no unit
    has a titled reading or no model reads it."""
    texts = []
    for c in sorted(chosen, key=lambda c: (-c.score, c.order)):
        if clause_structured(c.fragment):
            continue
        shown = with_heading(unbroken(c.span.text, c.clean), c.section, c.depth)
        read = titled(c, shown, title_of)
        if read is not None:
            texts.append(read)
    if not texts:
        return None
    check = meaning_scores(question, texts)
    if check is None:
        return None
    return MeaningCheck(check.scores, passes(check.scores, TITLE_FLOOR), check.ms, check.model)
