"""The ``table_cell`` step of ``ask``: a question one table cell answers is answered by
that cell, quoted with its row and column headers and cited at its row.

Runs after ``assemble`` (the evidence pack and the recall are known) and before the
gates' review: the table rows that the pack's fragments and the recall's first hits hold
are read with their header mapping and their table's context (:func:`rows_found`), and
:func:`citewise.answer.units.table_cells.select_cell` chooses the one cell the question
asks for. With none, or when a name of the question no document holds was found
(``unknown``), the ask goes on unchanged; with one, the answer states the cell
(``Alaska, Permit: 209``) and quotes its row, the citation covering the row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from citewise.analysis.tokenize import tokenize
from citewise.answer.candidate import Candidate
from citewise.answer.citations import cite_claims
from citewise.answer.finish import finish
from citewise.answer.models import Answer
from citewise.answer.review import release_review
from citewise.answer.steps.state import AskState
from citewise.answer.units.table_cells import CellAnswer, Row, row_of, select_cell
from citewise.core.records import Node
from citewise.core.search import Hit
from citewise.evidence.models import EvidencePack, Fragment
from citewise.evidence.nodes import NodeReader
from citewise.evidence.sentences import Span
from citewise.evidence.whole import node_fragment
from citewise.sufficiency.cell_verdict import table_cell

__all__ = ["Source", "cell_step", "rows_found", "sources"]

#: How many of the pack's direct (and augmentation) fragments, and of the recall's hits,
#: are read for table rows (the best first).
FRAGMENTS_READ = 12
HITS_READ = 10


@dataclass(frozen=True, slots=True)
class Source:
    """A place of one document version the ask found (a pack fragment or a recall hit)."""

    doc_id: str
    path: str
    revision: int
    version_id: int
    char_start: int
    char_end: int


def sources(pack: EvidencePack, hits: tuple[Hit, ...], stale: tuple[str, ...]) -> list[Source]:
    """The pack's first direct fragments, its augmentation (a table beside its lead-in)
    and the recall's first hits, stale editions left out."""
    found: list[Fragment | Hit] = [
        *pack.direct[:FRAGMENTS_READ],
        *pack.augmentation[:FRAGMENTS_READ],
        *hits[:HITS_READ],
    ]
    return [
        Source(f.doc_id, f.path, f.revision, f.version_id, f.char_start, f.char_end)
        for f in found
        if f.path not in stale
    ]


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


def _rows(nodes: list[Node], lo: int, hi: int) -> list[Row]:
    """The mapped rows among ``nodes`` that overlap ``lo``..``hi``, with their context."""
    by_id = {n.id: n for n in nodes}
    ordered = sorted(nodes, key=lambda n: (n.char_start, -n.char_end))
    out: list[Row] = []
    for node in ordered:
        if node.kind != "table_row" or node.char_end <= lo:
            continue
        if node.char_start >= hi:
            break
        table = by_id.get(node.parent_id or "")
        start = table.char_start if table is not None else node.char_start
        before = [n for n in ordered if n.char_end <= start and n.kind in ("paragraph", "heading")]
        row = row_of(node, _context(node, table, before[-1] if before else None))
        if row is not None:
            out.append(row)
    return out


def rows_found(reader: NodeReader, found: list[Source]) -> list[tuple[Row, Source]]:
    """The mapped table rows the places ``found`` hold, each once, with its place."""
    seen: set[str] = set()
    out: list[tuple[Row, Source]] = []
    for src in found:
        nodes = reader.near(src.path, src.version_id, [(src.char_start, src.char_end)])
        for row in _rows(nodes, src.char_start, src.char_end):
            if row.node.id not in seen:
                seen.add(row.node.id)
                out.append((row, src))
    return out


def _row_fragment(src: Source, node: Node) -> Fragment:
    """The cited row as a fragment of its own (its exact text and lines)."""
    return node_fragment(
        node,
        role="direct_support",
        doc_id=src.doc_id,
        path=src.path,
        revision=src.revision,
        version_id=src.version_id,
        reason="table_cell",
    )  # a row is a table_row node (row_of reads no other kind), so its kind is kept


def cell_step(s: AskState) -> AskState:
    """Answer by the one table cell the question asks for, when there is one."""
    pack, q = s.need(s.pack, "pack"), s.question
    if s.unknown or q.intent.kind == "how_to" or q.scope.kinds or s.llm is not None:
        # a name no document holds (the gates say so), steps asked for (no cell is a
        # procedure), a file kind the question names (the scope stage decides), an LLM
        # route open (its writer answers from the same evidence)
        return s
    reader = NodeReader(s.kb.store, s.kb.name, kept=s.kb.index.kept_nodes)
    recall = s.need(s.recall, "recall")
    found = rows_found(reader, sources(pack, recall.hits, s.stale))
    paths = {src.path for _, src in found}
    elsewhere = frozenset(t for f in pack.direct if f.path not in paths for t in tokenize(f.text))
    chosen = select_cell(q, [row for row, _ in found], elsewhere)
    if chosen is None:
        return s
    where = {id(row): src for row, src in found}
    cited = [(row, where[id(row)]) for row in (chosen.row, *chosen.also)]
    answer = _cell_answer(s, pack, chosen, cited)
    # A row no quotation of which passes the release review (raw markup in a cell) is not
    # this step's to answer: the composers go on as without it.
    return s if answer is None else replace(s, answer=answer)


def _unit(row: Row, src: Source, n: int) -> Candidate:
    node = row.node
    span = Span(node.char_start, node.char_end, node.text, "table_row")
    return Candidate(_row_fragment(src, node), span, node.text, 1.0, (n,), kind="table_row")


def _cell_answer(
    s: AskState, pack: EvidencePack, chosen: CellAnswer, cited: list[tuple[Row, Source]]
) -> Answer | None:
    """The cell stated with its headers, then its row (and any row of another table that
    holds the same cell) quoted and cited; None when no row's quotation passes review."""
    units = [_unit(row, src, n) for n, (row, src) in enumerate(cited)]
    citations, claims = cite_claims(s.kb, units, s.conflicts)
    claims = release_review(claims, citations)
    if not any(c.kept for c in claims):
        return None
    told = chosen.statement()
    suff = table_cell(told)
    s.trace["sufficiency"] = suff.to_json()
    s.trace["meaning"] = {"skipped": "a table or code unit: the model reads prose"}
    answer = finish(
        s.kb, s.question.intent.kind, pack, suff, claims, citations, s.trace, failed_why=None
    )
    if answer.outcome != "answered":
        return answer
    marks = "".join(f"[{c.number}]" for c in answer.citations[:1])
    return replace(answer, answer=f"{told} {marks}\n{answer.answer}")
