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

import calendar
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from citewise.analysis.question import Question
from citewise.analysis.scope import Scope
from citewise.answer.acronyms import aliases, definitions
from citewise.answer.composition.compose import Candidate
from citewise.answer.unit_meaning import reads_meaning, unit_meaning
from citewise.answer.units.context import DocFacts, context_text, unit_context
from citewise.core.records import Node
from citewise.evidence.nodes import NodeReader, Span
from citewise.evidence.sentences import split_sentences
from citewise.sufficiency.answer_type import expected_of, present
from citewise.sufficiency.answerability import Signals, answerability, refusal
from citewise.sufficiency.constraints import Constraint, UnitGate, question_constraints
from citewise.sufficiency.floor import unmentioned
from citewise.sufficiency.measure import MEASURE_Q
from citewise.sufficiency.models import TermProfile
from citewise.sufficiency.near_miss import near_miss_pairs
from citewise.sufficiency.paragraph_topic import lead_of
from citewise.sufficiency.presence import is_question
from citewise.sufficiency.structure import Structural, structural, title_line

__all__ = [
    "OPENING_CHARS",
    "UNCONSTRAINED",
    "admission",
    "named_parts",
    "opening_title",
    "question_gate",
]

#: Intents whose units are not checked one by one against the question's constraints: a
#: procedure's steps and a comparison's sides each name only part of the question.
UNCONSTRAINED = frozenset({"how_to", "compare"})

_BLOCKS = frozenset({"paragraph", "list_item", "blockquote"})
#: Nodes that hold blocks rather than being one (skipped when reading an introduction).
_CONTAINERS = frozenset({"document", "section", "page_furniture"})
#: How many earlier blocks of its subsection may name a unit's subject.
SECTION_BLOCKS = 3


@dataclass
class _Reads:
    """What ``admit`` reads about a unit's document, each once per document version (or
    per section, for the context): its title line, opening and subject names, and its
    :class:`~citewise.answer.units.context.UnitContext` as text."""

    reader: NodeReader
    facts: Mapping[str, DocFacts] | None
    asked: tuple[str, ...]
    contexts: dict[tuple[str, int, tuple[str, ...]], str] = field(default_factory=dict)
    titles: dict[tuple[str, int], str] = field(default_factory=dict)
    subjects: dict[tuple[str, int], tuple[str, str]] = field(default_factory=dict)

    def context(self, c: Candidate) -> str:
        """The unit's document context as text ("" without document facts)."""
        if self.facts is None:
            return ""
        f = c.fragment
        key = (f.path, f.version_id, f.heading_path)
        if key not in self.contexts:
            doc = self.facts.get(f.path) or DocFacts(f.path)
            ctx = unit_context(doc, f.heading_path, regulation=f.regulation, locator=f.locator)
            self.contexts[key] = context_text(ctx)
        return self.contexts[key]

    def title(self, c: Candidate) -> str:
        """The document's title line (its opening block, when shaped as a title: a plain
        text file's first line), context for each of its units."""
        f = c.fragment
        key = (f.path, f.version_id)
        if key not in self.titles:
            self.titles[key] = opening_title(self.reader.near(f.path, f.version_id, [(0, 0)]))
        return self.titles[key]

    def subject(self, c: Candidate) -> tuple[str, str]:
        """(the opening of the unit's document, the question's names that are its
        subject: :func:`subject_names`); ("", "") when the question names nothing."""
        if not self.asked:
            return "", ""
        f = c.fragment
        key = (f.path, f.version_id)
        if key not in self.subjects:
            r = self.reader
            opening = document_opening(r.near(f.path, f.version_id, [(0, 0)]))
            whole = r.store.get_document_text(r.kb, f.doc_id, f.version_id)
            self.subjects[key] = (opening, " ".join(subject_names(self.asked, opening, whole)))
        return self.subjects[key]


def admission(
    gate: UnitGate,
    reader: NodeReader,
    near: dict[tuple[str, int], list[Span]],
    facts: Mapping[str, DocFacts] | None = None,
    scope: Scope | None = None,
    scores: dict[tuple[str, int, int], float] | None = None,
    asked: Question | None = None,
) -> Callable[[Candidate], bool]:
    """The ``admit`` test for :func:`citewise.answer.composition.compose.compose`.
    ``facts``: the documents' titles and metadata
    (:func:`~citewise.answer.units.context.document_facts`): each unit is judged with its
    :class:`~citewise.answer.units.context.UnitContext`, which may supply a year, a name or
    a relation word; when the question states a ``scope``,
    that context also lifts a unit to the relevance floor (its scope words are where it
    stands, not what it says). ``scores``, when given, receives each judged unit's
    answerability by its key (:mod:`citewise.answer.choice` orders the units by it).
    ``asked``: the analysed question, whose qualifiers a unit may replace by others
    (:mod:`citewise.sufficiency.near_miss`; not read for the intents of
    :data:`UNCONSTRAINED`, nor without it)."""
    reads = _Reads(reader, facts, _asked_names(gate.constraints))
    text = gate.question.text if gate.question is not None else ""
    wanted = expected_of(text) if is_question(text) else None
    scoped = scope is not None and bool(scope.words or scope.years or scope.source)
    misses = asked if asked is not None and asked.intent.kind not in UNCONSTRAINED else None
    reading = asked if asked is not None and reads_meaning(asked) else None  # the meaning term
    said = " ".join(asked.text.split()).rstrip("?？ ") if asked is not None else ""

    def admit(c: Candidate) -> bool:
        if not gate.constraints and wanted is None and misses is None:
            return True
        before, section, own, first, lead = _blocks_of(reader, near, c)
        opening, names = reads.subject(c)
        # the document's subject (named in its opening, all through it) names each unit
        head = reads.title(c)
        headings = [*c.fragment.heading_path, *(s.text for s in c.context), first, names, head]
        # the relevance floor reads a unit with its section as the relation words do: an
        # option item whose subsection names the subcommand asked about is not far off
        deeper = [*c.fragment.heading_path[1:], *(s.text for s in c.context), first, head]
        if c.kind in ("row", "table"):
            headings.append(before)
            deeper.append(before)  # a row is read under its table's header row
        caption = _caption_of(reader, near, c) if c.kind == "row" else ""
        if caption:  # a PDF table's title scopes its rows: "November - 2015"
            headings.append(caption)
            deeper.append(caption)
        deeper += expansions(c.clean, f"{section}\n{own}\n{opening}")  # an acronym: its full name
        # a term the document defines ("Cloud service providers (CSPs)") under its other name
        headings += aliases(c.clean, definitions(f"{section}\n{own}\n{first}\n{opening}"))
        where = reads.context(c)
        if where and c.kind == "row":  # a row is read with its column headers
            where = f"{where}\n{columns_of(reader, near, c)}"
        if where and scoped:
            deeper.append(where)
        score = max(c.score, gate.floor) if _lifted(gate.question, c.clean, deeper) else c.score
        shown = f"{caption}: {c.clean}" if caption else c.clean  # its figures too
        if c.kind == "sequel":  # its first sentence meets them alone; the next carries on
            shown = ([s.text for s in split_sentences(c.clean)] or [c.clean])[0]
        pairs = near_miss_pairs(misses, shown, "\n".join([*headings, where])) if misses else ()
        missed = tuple(said for said, _ in pairs)
        signals = Signals(score, wanted, present(shown), unit_structure(c, own), missed)
        # the meaning term only lowers a score: a unit below the floor is not read
        if reading is not None and score >= gate.floor and not refusal(signals):
            read = unit_meaning(reading, c.kind, c.clean, c.section, c.depth)
            signals = replace(signals, meaning=read)
        value, refused = _scored(signals, gate.floor, pairs[0][1] if pairs else "", said)
        if scores is not None:
            scores[c.key] = value
        return gate(shown, headings, value, f"{section}\n{own}", refused, where, lead)

    return admit


def _scored(
    signals: Signals, floor: float, stated: str = "", asked: str = ""
) -> tuple[float, list[Constraint]]:
    """A unit's answerability (:mod:`citewise.sufficiency.answerability`) and the hard
    gate it fails, if any: a structural line for a typed question, or one scored down
    below the relevance ``floor``; a unit its near misses score down below the floor
    fails as a near miss (``stated``: what the unit says in place of the question's first
    qualifier, "thread pool" for "process pool"); one the meaning term alone puts below
    it fails as read by meaning as no answer to the question (``asked``, as written). The
    score returned leaves the near misses and the meaning reading out: it ranks the
    refusals (the closest passage stays the closest)."""
    value = answerability(signals)
    hard = refusal(signals)  # a title line for "when", a unit without a number ...
    if signals.meaning is not None and not hard and value < floor:
        unread = answerability(replace(signals, meaning=None))
        if unread >= floor:  # the meaning term put it below: the unit reads as no answer
            return unread, [Constraint("meaning", asked, "meaning")]
    if signals.near_misses:
        missed = Constraint("near_miss", signals.near_misses[0], stated)
        unmissed = answerability(replace(signals, near_misses=()))
        if not hard and value < floor:
            return unmissed, [missed]
        value = unmissed
    if not hard and signals.structure and value < floor:  # scored down below it
        hard = f"structure:{signals.structure}"
    if hard[:10] != "structure:":
        return value, []
    return value, [Constraint("structure", hard[10:], "structure")]


#: Unit kinds read as prose; a table row or code is never a structural line.
_PROSE = frozenset({"sentence", "para", "window", "lead", "item"})


def unit_structure(c: Candidate, own: str) -> Structural | None:
    """The structural class of a unit that is the whole of its one-line block ``own``
    (:mod:`citewise.sufficiency.structure`); a list item only as a lead-in, link or
    contents line (a short item such as a name answers a "who")."""
    block = own.strip()
    if c.kind not in _PROSE or not block or "\n" in block or len(c.clean) < 0.8 * len(block):
        return None
    found = structural(c.clean)
    return None if found == "heading" and c.kind == "item" else found


def opening_title(nodes: Sequence[Node]) -> str:
    """The first block of a document version when it is a title line, else ""."""
    blocks = sorted(
        (n for n in nodes if n.kind not in _OPENING_SKIP and n.text.strip()),
        key=lambda n: (n.char_start, n.char_end),
    )
    if not blocks or blocks[0].kind in ("code", "table"):
        return ""
    first = blocks[0].text.strip()
    return first if title_line(first) else ""


def _blocks_of(
    reader: NodeReader, near: dict[tuple[str, int], list[Span]], c: Candidate
) -> tuple[str, str, str, str, str]:
    """(the block before the unit's own in the same section, every block of the
    section before the unit's own, the unit's own block, the subsection's lead
    paragraph, the unit's own block before it: its paragraph's topic,
    :mod:`citewise.sufficiency.paragraph_topic`). The section's earlier blocks name
    what "clamp mode" belongs to (its lead paragraph introduces the ``IntRange``
    type); before a table the block before is the table's caption ("A uniform
    table"), which a row's relation words may use.
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
            topic = lead_of(n.text, n.char_start, c.span.start)
            return (same[-1] if same else ""), "\n".join(lead), n.text, intro, topic
    return "", "", "", "", ""


def _caption_of(reader: NodeReader, near: dict[tuple[str, int], list[Span]], c: Candidate) -> str:
    """The caption of the table a row belongs to (PDF tables, :mod:`pdf_table`)."""
    table = _table_of(reader, near, c)
    return str(table.attrs.get("caption") or "") if table is not None else ""


def columns_of(reader: NodeReader, near: dict[tuple[str, int], list[Span]], c: Candidate) -> str:
    """The column headers of the table a row belongs to: the table's first line, unless
    that line is the row itself (a table without a header row)."""
    table = _table_of(reader, near, c)
    if table is None or c.span.start <= table.char_start:
        return ""
    return table.text.split("\n", 1)[0]


def _table_of(
    reader: NodeReader, near: dict[tuple[str, int], list[Span]], c: Candidate
) -> Node | None:
    f = c.fragment
    nodes = reader.near(f.path, f.version_id, near.get((f.path, f.version_id), []))
    for n in nodes:
        if n.kind == "table" and n.char_start <= c.span.start and c.span.end <= n.char_end:
            return n
    return None


_ACRONYM_USE = re.compile(r"\b[A-Z]{2,}[0-9]*\b")


def expansions(text: str, context: str) -> list[str]:
    """What the acronyms of ``text`` stand for, where ``context`` (the unit's blocks and
    its document's opening) defines them: "Water Quality Protection Act (WQPA)" for a
    unit that says only "WQPA". Each is the words right before the acronym's
    defining parenthesis, up to the end of the clause."""
    out = []
    flat = context.replace("\n", " ")
    for acronym in dict.fromkeys(_ACRONYM_USE.findall(text)):
        close = rf"\(\s*[\"“]?{re.escape(acronym)}[\"”]?\s*\)"
        if not re.search(close, flat):  # no defining parenthesis: nothing to expand (and
            continue  # the lazy scan below would try every position of a long context)
        pat = rf"([^()\n.;:]{{3,90}}?)\s*{close}"
        out += [m.group(1) for m in re.finditer(pat, flat)]
    return out


def _lifted(question: Question | None, text: str, deeper: list[str]) -> bool:
    """Whether the unit's section below the document title (its subsection headings and
    introduction) holds a word of ``question`` that ``text`` lacks."""
    if question is None or not question.text or not any(deeper):
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


#: The opening of a document (its title and first paragraphs, up to this many characters)
#: names what the whole document is about (an act's title and acronym "... Act (XYZA) was
#: signed ...", an airworthiness directive's "applies to all <maker> Model <number>
#: airplanes"): a sentence deep inside it ("Under section 12 penalties range up to ...",
#: "this directive affects 73 airplanes") does not repeat the name.
OPENING_CHARS = 2500
_OPENING_SKIP = frozenset({"document", "section", "page_furniture"})


def document_opening(nodes: Sequence[Node]) -> str:
    """The text of the blocks that start in the first :data:`OPENING_CHARS` characters of
    a document version (``nodes`` read around its start), running headers left out."""
    shown = [
        n
        for n in nodes
        if n.kind not in _OPENING_SKIP and n.char_start < OPENING_CHARS and n.text.strip()
    ]
    shown.sort(key=lambda n: (n.char_start, n.char_end))
    out: list[str] = []
    end = -1
    for n in shown:
        if n.char_start >= end:  # a block once (a table and its rows: the table)
            out.append(n.text)
            end = n.char_end
    return "\n".join(out)


#: A name is its document's subject when the document's opening names it and the whole
#: document mentions it at least this often (times, and times per 1,000 words): "DMCA"
#: 28 times in 6,695 words, "Boeing" 37 and "737" 50 times in 8,945.
SUBJECT_MIN = 5
SUBJECT_PER_1000 = 2.0


def _asked_names(constraints: Sequence[Constraint]) -> tuple[str, ...]:
    """The names a unit must hold (name constraints, upper-case relation words)."""
    out = [c.surface for c in constraints if c.kind == "name"]
    for c in constraints:
        if c.kind == "words":
            out += [w for w in c.surface.split() if _ACRONYM_USE.fullmatch(w)]
    return tuple(dict.fromkeys(out))


def subject_names(names: Sequence[str], opening: str, whole: str) -> list[str]:
    """The ``names`` that are a document's subject: its ``opening`` names them and its
    ``whole`` text mentions them at least :data:`SUBJECT_MIN` times and
    :data:`SUBJECT_PER_1000` times per 1,000 words."""
    need = max(SUBJECT_MIN, SUBJECT_PER_1000 * len(whole.split()) / 1000)
    out = []
    for name in names:
        pat = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.I)
        if pat.search(opening) and len(pat.findall(whole)) >= need:
            out.append(name)
    return out


#: Month names and their abbreviations ("November 2015" is a date, not a name).
_MONTH_WORDS = frozenset(
    m.lower() for m in (*calendar.month_name, *calendar.month_abbr, "Sept") if m
)
#: A figure that is part of a name: "Boeing 737", "737 MAX", "Super Bowl 50" (a
#: capitalised word before it, or an upper-case word after it).
_NAME_BEFORE = re.compile(r"\b([A-Z][A-Za-z]+)\s+$")
_NAME_AFTER = re.compile(r"^\s+[A-Z]{2,}\b")


def _in_name(question: Question, c: Constraint) -> bool:
    """Whether number constraint ``c`` is a figure of a product or event name in
    ``question`` ("Boeing 737 MAX"), not a quantity, year or date ("November 2015")."""
    text = question.text
    value = c.key
    if c.kind != "number" or not value.isdigit() or 1000 <= int(value) <= 2199:
        return False
    for m in re.finditer(rf"(?<![\w.,]){re.escape(c.surface)}(?![\w]*\d)", text):
        before = _NAME_BEFORE.search(text[: m.start()])
        month = before is not None and before.group(1).lower() in _MONTH_WORDS
        if before and not month and m.start() > before.start() > 0:
            return True
        if _NAME_AFTER.match(text[m.end() :]):
            return True
    return False


def named_parts(question: Question, constraints: Sequence[Constraint]) -> tuple[Constraint, ...]:
    """``constraints`` with a figure inside a name (a model number between a maker's name
    and a series name) read as a name, which a unit's context (its headings, its
    paragraph, its document's subject) may supply, as it supplies the maker's name; and
    "up to what length" asking for a measure."""
    text = question.text
    out: list[Constraint] = []
    names: list[Constraint] = []
    for c in constraints:
        if _in_name(question, c):
            names.append(Constraint("name", c.surface, c.key))
            continue
        out.append(c)
    known = {(c.kind, c.key) for c in out}
    out.extend(c for c in names if ("name", c.key) not in known)
    asked = MEASURE_Q.search(text)
    if asked and is_question(text) and not any(c.kind in ("quantity", "date") for c in out):
        # "Up to what length ...": a measure, as "how long" asks for one
        out.append(Constraint("quantity", asked.group(0), "quantity:"))
    return tuple(out)


def question_gate(
    question: Question, intent: str, profile: TermProfile | None, floor: float = 0.0
) -> UnitGate:
    """The unit gate of ``question`` (no constraints for the intents in
    :data:`UNCONSTRAINED`): the extractive answer and the LLM route's cited evidence are
    held to the same one. ``floor``: the lowest relevance score a unit of a constrained
    question may have (:data:`citewise.sufficiency.floor.RELEVANCE_FLOOR` for the
    extractive answer, whose units carry that score)."""
    constraints = () if intent in UNCONSTRAINED else question_constraints(question, profile)
    return UnitGate(named_parts(question, constraints), question, floor)
