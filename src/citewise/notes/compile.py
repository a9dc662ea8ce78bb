"""A note per topic (pure): quotations chosen from the pieces that mention the topic,
sorted into the note's sections, and links between notes whose topics relate.

Sections and the rule that fills each (every line is a piece, i.e. an exact span):

- ``definition``: pieces whose definition subject is the topic (extract.py);
- ``relations``: graph edges with the topic at one end whose type is a dependency,
  containment or edition relation (:data:`RELATION_KINDS`), then pieces mentioning the
  topic whose wording states such a relation (analysis/relations.py);
- ``used``: pieces mentioning the topic whose wording states a use or configuration or
  reads as an instruction (the answer stage's how-to cue, answer/coverage.py, read with
  inline code blanked), and code blocks that mention it (usage examples);
- ``figures``: pieces mentioning the topic that state a comparable fact (a value with
  its qualifiers: sufficiency/facts.py);
- ``conflicts``: pairs of those facts that state different values for the same thing in
  the same scope (sufficiency/conflicts.py);
- ``discussed``: first the opening sentence of a section the topic heads when it names
  the topic (openings.py, detail :data:`~citewise.notes.openings.OPENS`: it introduces the
  topic without the form of a definition), then per document a section heading that names
  the topic, else the first piece that mentions it (where the document discusses it).

A span is quoted once per note (the first section that takes it keeps it). A note is kept
when it quotes at least :data:`MIN_LINES` lines and either defines the topic or quotes
two documents: a single passing mention is no note. It must also quote something besides
section titles: a list of headings ("Installation", "Basic Example" in two documents)
says nothing about its topic. A note of one document without a definition is kept only
when a one-document rule selected its topic (a section opening names it, or an API name
the document discusses: topics.py) and it quotes two lines besides section titles. Two
notes link when a line of one mentions the other's topic (both ways).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from citewise.answer.composition.coverage import _INSTRUCTION
from citewise.core.records import sha256_text
from citewise.notes.extract import Piece, Source, prose_of, relation_kinds, topic_key
from citewise.notes.mentions import MentionIndex
from citewise.notes.models import Note, NoteLine, Section, Topic
from citewise.notes.openings import OPENS, section_openings, term_forms
from citewise.notes.topics import api_name, keyword_arguments
from citewise.sufficiency.conflicts import find_conflicts
from citewise.sufficiency.facts import Fact, extract_facts

RELATION_KINDS = frozenset({"requires", "part_of", "replaces", "supersedes", "amends", "repeals"})
USE_KINDS = frozenset({"uses", "configures"})
#: Lines per section at most, and links per note.
PER_SECTION: dict[Section, int] = {
    "definition": 3,
    "relations": 6,
    "used": 6,
    "figures": 6,
    "conflicts": 4,
    "discussed": 8,
}
MAX_LINKS = 12
MIN_LINES = 2

#: What :meth:`Compiler.note` hands its section readers: quote a piece in a section.
_Take = Callable[[Piece, Section, str], None]


def instruction(text: str) -> bool:
    """Whether ``text`` reads as an instruction (a step, an imperative opening, "you can
    ..."), by the answer stage's how-to cue on the prose (inline code blanked, so a name
    written as code does not make a sentence a step)."""
    prose = prose_of(text)
    m = _INSTRUCTION.search(prose)
    # The cue's verbs count where an instruction puts them, at the start ("Run ...", "将
    # ...", "1. ..."); inside a sentence they are prose ("...并将有关情况通报...").
    return m is not None and (m.start() == 0 or prose[m.start() :].startswith(("you", "we")))


@dataclass(frozen=True, slots=True)
class EdgeQuote:
    """A graph edge's source span as a piece, with the keys of its two ends."""

    source: str
    target: str
    kind: str
    piece: Piece


def line_of(piece: Piece, src: Source, section: Section, detail: str = "") -> NoteLine:
    """The note line quoting ``piece`` of ``src``, with its exact citation."""
    first, last = piece.lines
    return NoteLine(
        section=section,
        id=f"{piece.node.id}:{piece.start}-{piece.end}",
        path=src.path,
        doc_id=src.doc_id,
        version_id=src.version_id,
        revision=src.revision,
        node_id=piece.node.id,
        line_start=first,
        line_end=last,
        char_start=piece.start,
        char_end=piece.end,
        excerpt=piece.text,
        sha256=sha256_text(piece.text),
        heading_path=piece.heading_path,
        detail=detail,
    )


class Compiler:
    """Compiles notes over one view's pieces (facts are read once per piece)."""

    def __init__(
        self,
        sources: Mapping[str, Source],
        pieces: Sequence[Piece],
        index: MentionIndex,
        edges: Sequence[EdgeQuote] = (),
    ) -> None:
        self.sources = sources
        self.pieces = pieces
        self.index = index
        self.edges = edges
        self._facts: dict[int, list[Fact]] = {}
        self._defines: dict[str, list[int]] = {}
        for i, p in enumerate(pieces):
            if p.defines:
                self._defines.setdefault(topic_key(p.defines), []).append(i)
        self.openings = section_openings(pieces, skip=instruction)
        self.parameters = keyword_arguments(pieces)

    def facts(self, i: int) -> list[Fact]:
        got = self._facts.get(i)
        if got is None:
            p = self.pieces[i]
            got = (
                []
                if p.kind in ("heading", "code")
                else extract_facts(
                    p.text, base_offset=p.start, heading_path=p.heading_path, doc_path=p.path
                )
            )
            self._facts[i] = got
        return got

    def note(self, topic: Topic) -> Note | None:
        """``topic``'s note, or None when it does not earn one (module docstring)."""
        taken: set[tuple[str, int, int]] = set()
        lines: list[NoteLine] = []
        prose: list[Piece] = []  # the pieces taken that are not headings

        def take(piece: Piece, section: Section, detail: str) -> None:
            span = (piece.path, piece.start, piece.end)
            if span in taken or sum(x.section == section for x in lines) >= PER_SECTION[section]:
                return
            taken.add(span)
            lines.append(line_of(piece, self.sources[piece.path], section, detail))
            if piece.kind != "heading":
                prose.append(piece)

        # A plural key's singular is the same term ("exit codes" in "an exit code").
        forms = term_forms(topic.key)
        mentioned = sorted({i for form in forms for i in self.index.find(form)})
        for i in self._defines.get(topic.key, []):
            take(self.pieces[i], "definition", "")
        for edge in self.edges:
            if edge.kind in RELATION_KINDS and topic.key in (edge.source, edge.target):
                take(edge.piece, "relations", edge.kind)
        self._by_wording(mentioned, take)
        self._figures(mentioned, take)
        for i in self.openings.get(topic.key, []):
            take(self.pieces[i], "discussed", OPENS)
        self._discussed(mentioned, take)
        self._explained(topic.key, mentioned, take)
        one_doc = topic.key in self.openings or (
            "named" in topic.kinds and (api_name(topic.key) or topic.key in self.parameters)
        )
        return self._kept(topic, lines, len(prose), one_doc)

    def _discussed(self, mentioned: list[int], take: _Take) -> None:
        first: dict[str, Piece] = {}
        for i in mentioned:
            p = self.pieces[i]
            if p.path not in first or (p.kind == "heading" and first[p.path].kind != "heading"):
                first[p.path] = p
        for p in first.values():
            take(p, "discussed", "")

    def _explained(self, key: str, mentioned: list[int], take: _Take) -> None:
        """After a section opening that names the topic, the next piece of that document
        that mentions it (the section goes on about its subject: "The Session object
        allows ..." then "A Session object has all the methods of ...")."""
        for i in self.openings.get(key, []):
            later = (j for j in mentioned if j > i and self.pieces[j].path == self.pieces[i].path)
            j = next((j for j in later if self.pieces[j].kind != "heading"), None)
            if j is not None:
                take(self.pieces[j], "discussed", "")

    def _by_wording(self, mentioned: list[int], take: _Take) -> None:
        for i in mentioned:
            p = self.pieces[i]
            if p.kind == "heading":
                continue
            kinds = relation_kinds(p.text) if p.kind != "code" else ()
            rel = [k for k in kinds if k in RELATION_KINDS]
            if rel:
                take(p, "relations", rel[0])
            elif p.kind == "code" or any(k in USE_KINDS for k in kinds):
                take(p, "used", next((k for k in kinds if k in USE_KINDS), "example"))
            elif instruction(p.text):
                take(p, "used", "instruction")

    def _figures(self, mentioned: list[int], take: _Take) -> None:
        stated: list[Fact] = []
        owner: dict[int, Piece] = {}
        for i in mentioned:
            for fact in self.facts(i):
                stated.append(fact)
                owner[id(fact)] = self.pieces[i]
        for conflict in find_conflicts(stated)[:2]:
            for fact in (conflict.a, conflict.b):
                take(owner[id(fact)], "conflicts", f"{conflict.attribute}: {fact.value}")
        for fact in stated:
            take(owner[id(fact)], "figures", f"{fact.attribute}: {fact.value}")

    @staticmethod
    def _kept(topic: Topic, lines: list[NoteLine], prose: int, one_doc: bool) -> Note | None:
        """The note when it earns its place (module docstring); ``prose``: its lines that
        are not section titles; ``one_doc``: a rule of one document selected the topic (a
        section opening names it, or it is an API name: topics.py)."""
        docs = {line.path for line in lines}
        defined = any(x.section == "definition" for x in lines)
        opened = one_doc and prose >= MIN_LINES
        if not prose or len(lines) < MIN_LINES or not (defined or opened or len(docs) >= 2):
            return None
        order = {s: n for n, s in enumerate(PER_SECTION)}
        lines.sort(key=lambda x: order[x.section])
        return Note(topic=topic, lines=tuple(lines))


def link_notes(notes: Sequence[Note], index: MentionIndex) -> list[Note]:
    """``notes`` with their links: A and B link when a line of one mentions the other's
    topic; each note keeps its :data:`MAX_LINKS` strongest links (lines mentioning)."""
    spans: dict[str, set[tuple[str, int, int]]] = {
        n.topic.id: {(x.path, x.char_start, x.char_end) for x in n.lines} for n in notes
    }
    strength: dict[str, Counter[str]] = {n.topic.id: Counter() for n in notes}
    for b in notes:
        mentioning = {
            (index.pieces[i].path, index.pieces[i].start, index.pieces[i].end)
            for i in index.find(b.topic.key)
        }
        for a in notes:
            if a.topic.id == b.topic.id:
                continue
            shared = len(spans[a.topic.id] & mentioning)
            if shared:
                strength[a.topic.id][b.topic.id] += shared
                strength[b.topic.id][a.topic.id] += shared
    best = {
        a: {t for t, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_LINKS]}
        for a, c in strength.items()
    }
    # A link is kept when each note has the other among its strongest: links stay two-way.
    return [
        Note(n.topic, n.lines, tuple(sorted(t for t in best[n.topic.id] if n.topic.id in best[t])))
        for n in notes
    ]
