"""The ``table_cell`` step of ``ask``: a question one table cell answers is answered by
that cell, quoted with its row and column headers and cited at its row.

Runs after ``assemble`` (the evidence pack is known) and before the gates' review: the
rows of the tables the pack's fragments hold are read with their header mapping and
their table's context (:func:`rows_of_pack`), and
:func:`citewise.answer.units.table_cells.select_cell` chooses the one cell the question
asks for. With none, or when a name of the question no document holds was found
(``unknown``), the ask goes on unchanged; with one, the answer states the cell
(``Alaska, Permit: 209``) and quotes its row, the citation covering the row.
"""

from __future__ import annotations

from dataclasses import replace

from citewise.answer.candidate import Candidate
from citewise.answer.citations import cite_claims
from citewise.answer.finish import finish
from citewise.answer.models import Answer
from citewise.answer.review import release_review
from citewise.answer.steps.state import AskState
from citewise.answer.units.table_cells import CellAnswer, Row, row_of, select_cell
from citewise.core.records import Node
from citewise.evidence.models import EvidencePack, Fragment
from citewise.evidence.nodes import NodeReader
from citewise.evidence.sentences import Span
from citewise.sufficiency.cell_verdict import table_cell

__all__ = ["cell_step", "rows_of_pack"]

#: How many of the pack's direct fragments are read for table rows (the best first).
FRAGMENTS_READ = 12


def _context(node: Node, table: Node | None, lead: Node | None) -> str:
    """The text around a row's table: its caption, its column headers, its section
    headings and the paragraph or heading right before the table."""
    parts = [str(node.attrs.get("caption") or ""), " ".join(node.heading_path)]
    parts.append(" ".join(str(h) for h in node.attrs.get("header") or ()))
    if table is not None:
        parts.append(str(table.attrs.get("header_line") or ""))
    if lead is not None:
        parts.append(lead.text)
    return "\n".join(p for p in parts if p)


def _rows(nodes: list[Node], frag: Fragment) -> list[Row]:
    """The mapped rows among ``nodes`` that overlap ``frag``, each with its context."""
    by_id = {n.id: n for n in nodes}
    ordered = sorted(nodes, key=lambda n: (n.char_start, -n.char_end))
    out: list[Row] = []
    for node in ordered:
        if node.kind != "table_row" or node.char_end <= frag.char_start:
            continue
        if node.char_start >= frag.char_end:
            break
        table = by_id.get(node.parent_id or "")
        start = table.char_start if table is not None else node.char_start
        before = [
            n
            for n in ordered
            if n.char_end <= start and n.kind in ("paragraph", "heading", "section")
        ]
        row = row_of(node, _context(node, table, before[-1] if before else None))
        if row is not None:
            out.append(row)
    return out


def rows_of_pack(reader: NodeReader, pack: EvidencePack, stale: tuple[str, ...]) -> list[Row]:
    """The mapped table rows the pack's first direct fragments hold (stale editions left
    out), each once."""
    seen: set[str] = set()
    out: list[Row] = []
    for frag in [f for f in pack.direct if f.path not in stale][:FRAGMENTS_READ]:
        nodes = reader.near(frag.path, frag.version_id, [(frag.char_start, frag.char_end)])
        for row in _rows(nodes, frag):
            if row.node.id not in seen:
                seen.add(row.node.id)
                out.append(row)
    return out


def _fragment_of(pack: EvidencePack, node: Node) -> Fragment:
    """The direct fragment the row was read from (it overlaps the row)."""
    return next(
        f for f in pack.direct if f.char_start < node.char_end and node.char_start < f.char_end
    )


def cell_step(s: AskState) -> AskState:
    """Answer by the one table cell the question asks for, when there is one."""
    pack = s.need(s.pack, "pack")
    if s.unknown:
        return s  # a name no document holds: the gates say so
    reader = NodeReader(s.kb.store, s.kb.name, kept=s.kb.index.kept_nodes)
    chosen = select_cell(s.question, rows_of_pack(reader, pack, s.stale))
    if chosen is None:
        return s
    return replace(s, answer=_cell_answer(s, pack, chosen))


def _cell_answer(s: AskState, pack: EvidencePack, chosen: CellAnswer) -> Answer:
    """The cell stated with its headers, then its row quoted and cited."""
    node = chosen.row.node
    frag = _fragment_of(pack, node)
    unit = Candidate(
        frag, Span(node.char_start, node.char_end, node.text, "table_row"), node.text, 1.0, (0,)
    )
    citations, claims = cite_claims(s.kb, [unit], s.conflicts)
    claims = release_review(claims, citations)
    told = chosen.statement()
    suff = table_cell(told)
    s.trace["sufficiency"] = suff.to_json()
    failed = None if any(c.kept for c in claims) else "no sentence passed review"
    answer = finish(
        s.kb, s.question.intent.kind, pack, suff, claims, citations, s.trace, failed_why=failed
    )
    if answer.outcome != "answered":
        return answer
    marks = "".join(f"[{c.number}]" for c in answer.citations[:1])
    return replace(answer, answer=f"{told} {marks}\n{answer.answer}")
