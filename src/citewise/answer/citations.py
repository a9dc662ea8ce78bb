"""Sentence-level citations: quoted spans become numbered, resolvable citations.

Shared by the extractive pipeline and the LLM route (:mod:`citewise.llm.generate`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citewise.answer.candidate import Candidate
from citewise.answer.models import Citation, CitationRole, Claim
from citewise.core.locator import locate
from citewise.core.records import Node, sha256_text
from citewise.evidence.models import Fragment
from citewise.evidence.nodes import NodeReader
from citewise.sufficiency.models import ConflictNote

if TYPE_CHECKING:
    from citewise.context import StageContext

__all__ = ["cite_claims"]


def _regulation(frag: Fragment, node: Node | None) -> dict[str, Any] | None:
    """The fragment's regulation edition, with the clause path of the cited node."""
    if frag.regulation is None:
        return None
    clause = node.clause_path if node is not None and node.clause_path else None
    return {**frag.regulation, "clause": clause or frag.regulation.get("clause")}


def cite_claims(
    kb: StageContext, chosen: list[Candidate], conflicts: list[ConflictNote]
) -> tuple[list[Citation], list[Claim]]:
    """Number the citations of ``chosen`` sentences and ``conflicts`` notices.

    Each citation is a span id ``<node_id>:<start>-<end>`` inside the smallest node that
    holds the quoted excerpt, with the excerpt's own lines and sha256; the same span is
    cited once. Returns the citations and one claim per candidate, then one notice per
    conflict, in that order.
    """
    citations: list[Citation] = []
    claims: list[Claim] = []
    reader = NodeReader(kb.store, kb.name, kept=kb.index.kept_nodes)
    by_key: dict[tuple[str, int, int], int] = {}

    def cite(frag: Fragment, start: int, end: int, excerpt: str, role: CitationRole) -> int:
        key = (frag.doc_id, start, end)
        if key in by_key:
            return by_key[key]
        doc_nodes = reader.near(frag.path, frag.version_id, [(start, end)])
        node = _smallest_containing(doc_nodes, start, end)
        cid = f"{node.id}:{start}-{end}" if node else frag.citation_id
        lines = (node.line_start, node.line_end) if node else (frag.line_start, frag.line_end)
        if node:
            text_before = node.text[: start - node.char_start]
            first = node.line_start + text_before.count("\n")
            lines = (first, first + excerpt.count("\n"))
        citations.append(
            Citation(
                number=len(citations) + 1,
                id=cid,
                path=frag.path,
                doc_id=frag.doc_id,
                revision=frag.revision,
                version_id=frag.version_id,
                node_ids=(node.id,) if node else frag.node_ids,
                line_start=lines[0],
                line_end=lines[1],
                char_start=start,
                char_end=end,
                excerpt=excerpt,
                sha256=sha256_text(excerpt),
                role=role,
                locator=locate(doc_nodes, start, end),
                regulation=_regulation(frag, node),
            )
        )
        by_key[key] = len(citations)
        return len(citations)

    for c in chosen:
        context = tuple(
            cite(c.fragment, s.start, s.end, s.text, "parent_context") for s in c.context
        )
        n = cite(c.fragment, c.span.start, c.span.end, c.span.text, c.fragment.role)
        nums = tuple(dict.fromkeys((*context, n)))
        claims.append(Claim(text=c.clean, citations=nums, support=0.0, verdict="", kept=True))
    for note in conflicts:
        nums = tuple(
            cite(side.fragment, side.start, side.end, side.text, "conflict") for side in note.sides
        )
        claims.append(
            Claim(
                text=note.sentence,
                citations=nums,
                support=1.0,
                verdict="notice",
                kept=True,
                reason="conflict notice",
            )
        )
    return citations, claims


def _smallest_containing(nodes: list[Node], start: int, end: int) -> Node | None:
    """The smallest node below the document that holds ``[start, end)``, else the document
    node (a lead-in with the list after it in a PDF without sections spans two blocks with
    no section around them: its lines and span id come from the document, never from the
    fragment's own block)."""
    best: Node | None = None
    for n in nodes:
        if (
            n.kind != "document"
            and n.char_start <= start
            and end <= n.char_end
            and (best is None or n.char_end - n.char_start < best.char_end - best.char_start)
        ):
            best = n
    if best is None:
        best = next(
            (
                n
                for n in nodes
                if n.kind == "document" and n.char_start <= start <= end <= n.char_end
            ),
            None,
        )
    return best
