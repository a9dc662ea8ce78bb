"""One table cell as the answer: the row the question names, the column it asks for.

A question such as "How many permit checks did Alaska have in November 2015?" or "What
is the compression ratio of the Google Base table?" asks for one cell: its row is named
by a row-header cell (a state, a project, a team, a bracket) and its column by a column
header (a category, an edition, a year, a measure). Table rows of every format carry the
same header mapping (``attrs["header"]`` and ``attrs["cells"]``, one header per cell:
Markdown, DOCX, PPTX, XLSX, ODT, CSV and PDF tables whose columns were found), so the
choice is made once here, on :class:`Row`, whatever the file was.

:func:`select_cell` scores every (row, column) pair of the rows found: the column's
header must hold a key term of the question, another cell of the row must hold one (the
row named), and the question's key terms must be covered by the row, the column header
and the table's context (caption, headers, section headings, lead-in) at least to
:data:`MIN_COVER`. A name or figure of the question that the row and its context do not
hold (a state, a product, a year the table lacks: a near miss) rules the pair out, and
so does a cell of the wrong answer type (a "how many" question and a cell without a
figure). Two best pairs that tie with different cells are ambiguous: no cell is chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from citewise.analysis.question import Question
from citewise.analysis.tokenize import tokenize
from citewise.core.records import Node
from citewise.sufficiency.answer_type import AnswerType, expected, present
from citewise.sufficiency.presence import FILLER, REFERENCE_WORDS

__all__ = ["MIN_COVER", "CellAnswer", "Row", "row_of", "select_cell"]

#: Share of the question's key terms (table-structure words left out) that the row, the
#: column header and the table's context must hold together. Chosen on the table set's
#: documents and papers questions (bench/questions/tables.yaml); the other corpora are
#: left out of the choice.
MIN_COVER = 0.6
#: Words that name a table's own structure ("the table of ...", "which row", "the
#: sheet"), point at it ("according to the sheet") or make a question for a count ("how
#: many ... have"): the class of question words no cell or header is expected to hold.
STRUCTURE_WORDS = "table tables row column sheet cell entry value according many much have has had"
#: Question words no cell holds: the table's structure, fillers and the words that point
#: at a passage ("what does the 2019 edition say").
_WEAK = frozenset(tokenize(STRUCTURE_WORDS)) | FILLER | REFERENCE_WORDS


@dataclass(frozen=True, slots=True)
class Row:
    """A table row with its header mapping and the text around its table (``context``:
    caption, every column header, section headings, the lead-in before the table)."""

    node: Node
    header: tuple[str, ...]
    cells: tuple[str, ...]
    context: str


@dataclass(frozen=True, slots=True)
class CellAnswer:
    """The chosen cell: ``row``'s cell in ``column``, and the row cells that named it."""

    row: Row
    column: int
    label: str
    covered: float
    #: Other rows that tie with it holding the same cell (one row in two tables)
    also: tuple[Row, ...] = ()

    @property
    def header(self) -> str:
        return self.row.header[self.column]

    @property
    def cell(self) -> str:
        return self.row.cells[self.column]

    def statement(self) -> str:
        """The cell with its row and column headers: ``Alaska, Permit: 209``."""
        return f"{self.label}, {self.header}: {self.cell}" if self.label else self.cell


def row_of(node: Node, context: str) -> Row | None:
    """The :class:`Row` of a ``table_row`` node with a header for every cell, else None
    (a row whose columns were not found carries no mapping)."""
    header, cells = node.attrs.get("header"), node.attrs.get("cells")
    if node.kind != "table_row" or not isinstance(header, list) or not isinstance(cells, list):
        return None
    if len(header) != len(cells) or len(cells) < 2:
        return None
    return Row(node, tuple(str(h) for h in header), tuple(str(c) for c in cells), context)


@dataclass(frozen=True, slots=True)
class _Scored:
    key: tuple[int, int, int, int, int]
    answer: CellAnswer


def _score(
    row: Row, j: int, asked: frozenset[str], guarded: frozenset[str], number: bool
) -> _Scored | None:
    """Row ``row``'s cell ``j`` scored for the ``asked`` key terms, or None when the
    column or the row is not named, a ``guarded`` term (a name or figure) is absent, the
    cover is under :data:`MIN_COVER` or the cell is of the wrong type."""
    cell = row.cells[j].strip()
    head = frozenset(tokenize(row.header[j]))
    col_hit = head & asked
    if not cell or not col_hit:
        return None
    if number and AnswerType.NUMBER not in present(cell):
        return None
    named_by = [c for i, c in enumerate(row.cells) if i != j and set(tokenize(c)) & asked]
    row_toks = frozenset(t for c in named_by for t in tokenize(c))
    if not row_toks - col_hit:
        return None  # no other cell names the row
    headings = frozenset(tokenize(" ".join(row.node.heading_path)))
    titles = headings | frozenset(tokenize(str(row.node.attrs.get("caption") or "")))
    ctx = frozenset(tokenize(row.context)) | headings
    covered = (head | row_toks | ctx) & asked
    if (guarded - covered) or len(covered) < MIN_COVER * len(asked):
        return None
    # a header word the table's title also holds names the table, not the column
    own = len(col_hit - titles)
    # the row's own cells name it: context words (a lead-in naming several rows) do not
    # two tables told apart only by a qualifier the question does not state ("Stanley
    # Cups" and "Stanley Cups Since 67") tie: the question is ambiguous between them
    key = (len(covered), len(row_toks & asked), own, len(col_hit), -len(head - asked))
    label = ", ".join(c.strip() for c in named_by)
    return _Scored(key, CellAnswer(row, j, label, len(covered) / len(asked)))


def select_cell(
    question: Question, rows: Sequence[Row], elsewhere: frozenset[str] = frozenset()
) -> CellAnswer | None:
    """The one cell the question asks for among ``rows`` (see the module's rule), or None
    when none qualifies or two different cells tie. ``elsewhere``: index tokens of the
    found passages of other documents; a question word they hold that the row and its
    context do not points at them, not at the table (guarded like a name)."""
    asked = frozenset(question.key_terms) - _WEAK
    if not asked or not rows:
        return None
    guarded = frozenset(question.named_terms) & asked
    guarded |= frozenset(t for t in asked if any(ch.isdigit() for ch in t))
    guarded |= asked & elsewhere
    number = expected(question) is AnswerType.NUMBER
    scored = [
        s
        for row in rows
        for j in range(len(row.cells))
        if (s := _score(row, j, asked, guarded, number)) is not None
    ]
    if not scored:
        return None
    scored.sort(key=lambda s: s.key, reverse=True)
    best = scored[0]
    tied = [s for s in scored[1:] if s.key == best.key]
    if any(s.answer.cell != best.answer.cell for s in tied):
        return None
    also: list[Row] = []
    for t in tied:
        if all(t.answer.row is not r for r in (best.answer.row, *also)):
            also.append(t.answer.row)
    return replace(best.answer, also=tuple(also))
