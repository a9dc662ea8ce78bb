"""A candidate answer sentence: the value the composer, the ranking of answer units, the
citations and the LLM writer pass along (below all of them, so none imports another
for it)."""

from __future__ import annotations

from dataclasses import dataclass

from citewise.evidence.models import Fragment
from citewise.evidence.sentences import Span

__all__ = ["Candidate"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence of a fragment with its absolute span in the document text."""

    fragment: Fragment
    span: Span
    clean: str
    score: float
    order: tuple[int, ...]
    #: Spans shown and cited before the unit (its section heading, when it refers to it).
    context: tuple[Span, ...] = ()
    kind: str = "sentence"  # the answer unit's kind (see citewise.answer.units)
    section: str = ""  # the heading of the unit's own section

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.fragment.doc_id, self.span.start, self.span.end)
