"""Which answer units the question's constraints admit (:mod:`citewise.sufficiency.constraints`).

Each candidate unit is tested with the context it really has: its section headings, the
heading it shows, and the block (paragraph, list item, quote) it sits in, read from the
document version's nodes. Figures, polarity and answer type must be in the unit itself;
a name or a relation word may come from that context.
"""

from __future__ import annotations

from collections.abc import Callable

from citewise.answer.compose import Candidate
from citewise.evidence.nodes import NodeReader, Span
from citewise.sufficiency.constraints import UnitGate

__all__ = ["admission"]

_BLOCKS = frozenset({"paragraph", "list_item", "blockquote"})


def admission(
    gate: UnitGate, reader: NodeReader, near: dict[tuple[str, int], list[Span]]
) -> Callable[[Candidate], bool]:
    """The ``admit`` test for :func:`citewise.answer.compose.compose`."""

    def block_of(c: Candidate) -> str:
        f = c.fragment
        nodes = reader.near(f.path, f.version_id, near.get((f.path, f.version_id), []))
        return next(
            (
                n.text
                for n in nodes
                if n.kind in _BLOCKS and n.char_start <= c.span.start and c.span.end <= n.char_end
            ),
            "",
        )

    def admit(c: Candidate) -> bool:
        if not gate.constraints:
            return True
        headings = [*c.fragment.heading_path, *(s.text for s in c.context)]
        return gate(c.clean, headings, c.score, block_of(c))

    return admit
