"""Which answer units the question's constraints admit (:mod:`citewise.sufficiency.constraints`).

Each candidate unit is tested with the context it really has: its section headings, the
heading it shows, and the block (paragraph, list item, quote) it sits in with the block
before it in the same section, read from the document version's nodes. Figures, polarity
and answer type must be in the unit itself; a relation word may come from its headings, a
name from its headings or those blocks. A sentence and its sequel are admitted when the
sentence meets the constraints by itself: the sentence after carries its value on, and
the two together meet nothing the first does not ("besieged in the 10th century. In the
11th century they built castles" does not answer who was besieged in the 11th).
"""

from __future__ import annotations

from collections.abc import Callable

from citewise.answer.compose import Candidate
from citewise.evidence.nodes import NodeReader, Span
from citewise.evidence.sentences import split_sentences
from citewise.sufficiency.constraints import UnitGate

__all__ = ["admission"]

_BLOCKS = frozenset({"paragraph", "list_item", "blockquote"})
#: How many earlier blocks of its subsection may name a unit's subject.
SECTION_BLOCKS = 3


def admission(
    gate: UnitGate, reader: NodeReader, near: dict[tuple[str, int], list[Span]]
) -> Callable[[Candidate], bool]:
    """The ``admit`` test for :func:`citewise.answer.compose.compose`."""

    def blocks_of(c: Candidate) -> tuple[str, str, str]:
        """(the block before the unit's own in the same section, every block of the
        section before the unit's own, the unit's own block). The section's earlier
        blocks name what "clamp mode" belongs to (its lead paragraph introduces the
        ``IntRange`` type); before a table the block before is the table's caption ("A
        uniform table"), which a row's relation words may use."""
        f = c.fragment
        nodes = reader.near(f.path, f.version_id, near.get((f.path, f.version_id), []))
        blocks = sorted(
            (n for n in nodes if n.kind in _BLOCKS or n.kind == "table"),
            key=lambda n: (n.char_start, n.char_end),
        )
        for i, n in enumerate(blocks):
            if n.char_start <= c.span.start and c.span.end <= n.char_end:
                same = [b.text for b in blocks[:i] if b.heading_path == n.heading_path]
                # a subsection's lead paragraph introduces its subject; a one-level page
                # (an article of paragraphs) lends only the block right before the unit
                lead = same[-SECTION_BLOCKS:] if len(n.heading_path) >= 2 else same[-1:]
                return (same[-1] if same else ""), "\n".join(lead), n.text
        return "", "", ""

    def admit(c: Candidate) -> bool:
        if not gate.constraints:
            return True
        before, section, own = blocks_of(c)
        headings = [*c.fragment.heading_path, *(s.text for s in c.context)]
        if c.kind in ("row", "table"):
            headings.append(before)
        if c.kind == "sequel":  # its first sentence meets them alone; the next carries on
            parts = [s.text for s in split_sentences(c.clean)] or [c.clean]
            return gate(parts[0], headings, c.score, f"{section}\n{own}")
        return gate(c.clean, headings, c.score, f"{section}\n{own}")

    return admit
