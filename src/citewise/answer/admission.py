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
from citewise.ingest.models import Node
from citewise.sufficiency.constraints import UnitGate, question_constraints
from citewise.sufficiency.floor import unmentioned
from citewise.sufficiency.models import TermProfile

__all__ = ["UNCONSTRAINED", "admission", "question_gate"]

#: Intents whose units are not checked one by one against the question's constraints: a
#: procedure's steps and a comparison's sides each name only part of the question.
UNCONSTRAINED = frozenset({"how_to", "compare"})

_BLOCKS = frozenset({"paragraph", "list_item", "blockquote"})
#: Nodes that hold blocks rather than being one (skipped when reading an introduction).
_CONTAINERS = frozenset({"document", "section", "page_furniture"})
#: How many earlier blocks of its subsection may name a unit's subject.
SECTION_BLOCKS = 3


def admission(
    gate: UnitGate, reader: NodeReader, near: dict[tuple[str, int], list[Span]]
) -> Callable[[Candidate], bool]:
    """The ``admit`` test for :func:`citewise.answer.compose.compose`."""

    def blocks_of(c: Candidate) -> tuple[str, str, str, str]:
        """(the block before the unit's own in the same section, every block of the
        section before the unit's own, the unit's own block, the subsection's lead
        paragraph). The section's earlier blocks name what "clamp mode" belongs to (its
        lead paragraph introduces the ``IntRange`` type); before a table the block before
        is the table's caption ("A uniform table"), which a row's relation words may use.
        A subsection's introduction (:func:`_intro`) says what the whole subsection is
        about ("Permissions are implemented as an endpoint decorator"): heading context."""
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
                nested = len(n.heading_path) >= 2
                lead = same[-SECTION_BLOCKS:] if nested else same[-1:]
                # a "##" section of a page without a "#" title is a subsection too
                intro = _intro(nodes, n) if (nested or c.depth >= 2) else ""
                return (same[-1] if same else ""), "\n".join(lead), n.text, intro
        return "", "", "", ""

    def admit(c: Candidate) -> bool:
        if not gate.constraints:
            return True
        before, section, own, first = blocks_of(c)
        headings = [*c.fragment.heading_path, *(s.text for s in c.context), first]
        if c.kind in ("row", "table"):
            headings.append(before)
        # the relevance floor reads a unit with its section as the relation words do: an
        # option item whose subsection names the subcommand asked about is not far off
        deeper = [*c.fragment.heading_path[1:], *(s.text for s in c.context), first]
        if c.kind in ("row", "table"):
            deeper.append(before)  # a row is read under its table's header row
        score = max(c.score, gate.floor) if _lifted(gate.question, c.clean, deeper) else c.score
        if c.kind == "sequel":  # its first sentence meets them alone; the next carries on
            parts = [s.text for s in split_sentences(c.clean)] or [c.clean]
            return gate(parts[0], headings, score, f"{section}\n{own}")
        return gate(c.clean, headings, score, f"{section}\n{own}")

    return admit


def _lifted(question: str, text: str, deeper: list[str]) -> bool:
    """Whether the unit's section below the document title (its subsection headings and
    introduction) holds a word of ``question`` that ``text`` lacks."""
    if not question or not any(deeper):
        return False
    return len(unmentioned(question, text, deeper)) < len(unmentioned(question, text))


def _intro(nodes: list[Node], own: Node) -> str:
    """The introduction of ``own``'s subsection: the paragraphs that open it, up to its
    first block of another kind (code, list, table) and at most :data:`SECTION_BLOCKS`
    ("Then you could generate docs ... You can use the subcommand `utils`. And then the
    subcommand `docs`." before the command and its options list)."""
    out: list[str] = []
    for n in sorted(nodes, key=lambda n: (n.char_start, n.char_end)):
        if n.char_start >= own.char_start or len(out) >= SECTION_BLOCKS:
            break
        if n.heading_path != own.heading_path or n.kind in _CONTAINERS:
            continue
        if n.kind != "paragraph":
            break
        out.append(n.text)
    return "\n".join(out)


def question_gate(
    question: str, intent: str, profile: TermProfile | None, floor: float = 0.0
) -> UnitGate:
    """The unit gate of ``question`` (no constraints for the intents in
    :data:`UNCONSTRAINED`): the extractive answer and the LLM route's cited evidence are
    held to the same one. ``floor``: the lowest relevance score a unit of a constrained
    question may have (:data:`citewise.sufficiency.floor.RELEVANCE_FLOOR` for the
    extractive answer, whose units carry that score)."""
    constraints = () if intent in UNCONSTRAINED else question_constraints(question, profile)
    return UnitGate(constraints, question, floor)
