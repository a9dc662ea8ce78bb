"""The answer's candidate unit, the role weights it is scored with, and the near-duplicate
filter every answer profile uses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from citewise.analysis.tokenize import tokenize
from citewise.answer.units.structure import Unit
from citewise.evidence.models import Fragment
from citewise.evidence.sentences import Span

__all__ = ["ROLE_WEIGHT", "Candidate", "UnitsOf", "diverse", "inside"]

ROLE_WEIGHT = {
    "direct_support": 1.0,
    "parent_context": 0.55,
    "adjacent_context": 0.6,
    "graph_neighbor_support": 0.5,
    "background": 0.3,
}


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
    kind: str = "sentence"  # the answer unit's kind (see citewise.answer.units.structure)
    section: str = ""  # the heading of the unit's own section
    depth: int = 0  # that heading's level (1 for "#"; 0 when unknown)

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.fragment.doc_id, self.span.start, self.span.end)


UnitsOf = Callable[[Fragment], list[Unit]]


#: Units that pair a sentence with its neighbour (see citewise.answer.units.structure).
_PAIRS = frozenset({"window", "sequel"})


def diverse(pool: list[Candidate], n: int) -> list[Candidate]:
    """Best first, skipping near-duplicates of what is already chosen and units a chosen
    sentence pair already quotes whole (a sentence inside its chosen sequel or window takes
    no place; inside a chosen paragraph it keeps its place, as before)."""
    chosen: list[Candidate] = []
    bags: list[set[str]] = []
    for c in pool:
        bag = set(tokenize(c.clean))
        if any(bag and len(bag & b) / len(bag | b) > 0.8 for b in bags):
            continue
        if any(o.kind in _PAIRS and inside(c, o) for o in chosen):
            continue
        chosen.append(c)
        bags.append(bag)
        if len(chosen) >= n:
            break
    return chosen


def inside(c: Candidate, o: Candidate) -> bool:
    """``c`` is quoted by the larger unit ``o`` (same document)."""
    return (
        o is not c
        and o.fragment.doc_id == c.fragment.doc_id
        and o.span.start <= c.span.start
        and c.span.end <= o.span.end
        and (o.span.start, o.span.end) != (c.span.start, c.span.end)
    )
