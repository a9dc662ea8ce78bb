"""Build and keep current the topic notes of a knowledge base (reads and writes the store).

A rebuild compiles every view's notes from the current documents (pure: extract.py,
topics.py, compile.py) and stores a new revision only for the notes whose quoted lines,
title or links differ from their stored head: a note none of whose source spans changed
keeps its revision. A new revision marks the lines whose text is new (``changed``) and
lists the lines it no longer quotes (``removed``: their source changed or was deleted;
the note's history keeps them). A topic that no longer earns a note gets a revision with
no lines (its history stays).

Views: a principal may only see lines whose sources it may read, and what it sees must
not depend on documents it may not read (the leak suite compares outputs). So notes are
compiled per view from the view's own documents: ``""`` holds the documents everyone may
read, and each principal named in an ``access`` list has a view of everything it may
read. A principal named nowhere reads the ``""`` view.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from citewise.context import StageContext
from citewise.core.access import may_read
from citewise.core.records import Node
from citewise.core.stored import NoteRecord
from citewise.graph.build import KnowledgeGraph
from citewise.notes.compile import Compiler, EdgeQuote, instruction, link_notes
from citewise.notes.extract import Piece, Source, document_pieces, topic_key
from citewise.notes.mentions import MentionIndex
from citewise.notes.models import Note
from citewise.notes.topics import DEFAULT_LIMIT, select_topics

#: The view of the documents everyone may read.
PUBLIC = ""


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """What a rebuild did: per view, the topics given a new revision and those removed."""

    views: tuple[str, ...] = ()
    rebuilt: tuple[tuple[str, str], ...] = ()  # (view, topic id)
    removed: tuple[tuple[str, str], ...] = ()
    unchanged: int = 0
    notes: dict[str, int] = field(default_factory=dict)  # view -> live notes

    def to_json(self) -> dict[str, object]:
        return {
            "views": len(self.views),
            "rebuilt": len(self.rebuilt),
            "removed": len(self.removed),
            "unchanged": self.unchanged,
            "notes": self.notes.get(PUBLIC, 0),
        }


def load_sources(ctx: StageContext) -> list[Source]:
    """The current version of every document, with the revision that version came in."""
    docs = ctx.store.list_documents(ctx.name)
    out: list[Source] = []
    for info, (text, nodes) in zip(docs, ctx.store.document_bodies(ctx.name, docs), strict=True):
        head = next((v for v in ctx.store.list_versions(ctx.name, info.path) if v.is_head), None)
        out.append(
            Source(
                path=info.path,
                doc_id=info.doc_id,
                version_id=info.version_id,
                revision=head.revision if head else 0,
                text=text,
                nodes=tuple(nodes),
                metadata=dict(info.metadata),
            )
        )
    return out


def principals_named(sources: Iterable[Source]) -> list[str]:
    """Every principal an ``access`` list of a current document names, sorted."""
    named: set[str] = set()
    for src in sources:
        access = src.metadata.get("access")
        if isinstance(access, str):
            named.add(access)
        elif isinstance(access, list | tuple):
            named.update(str(a) for a in access)
    return sorted(named)


def view_of(principal: str | None, named: Sequence[str]) -> str:
    """The view a principal reads (see the module docstring)."""
    return principal if principal is not None and principal in named else PUBLIC


def _smallest(nodes: Sequence[Node], start: int, end: int) -> Node | None:
    best: Node | None = None
    for n in nodes:
        inside = n.char_start <= start and end <= n.char_end
        if inside and (
            best is None or n.char_end - n.char_start <= best.char_end - best.char_start
        ):
            best = n
    return best


def _graph_inputs(
    graph: KnowledgeGraph | None, sources: Mapping[str, Source]
) -> tuple[dict[str, int], list[EdgeQuote]]:
    """Titles of graph points by their count of incoming links (containment left out),
    and the typed edges whose source span is a document of the view, as pieces."""
    if graph is None:
        return {}, []
    degree: dict[str, int] = {}
    edges: list[EdgeQuote] = []
    for u, v, data in graph.g.edges(data=True):
        edge = data["edge"]
        if edge.origin == "containment" or u not in graph.points or v not in graph.points:
            continue
        target = graph.points[v]
        degree[target.title] = degree.get(target.title, 0) + 1
        src = sources.get(edge.span.path)
        node = _smallest(src.nodes, edge.span.char_start, edge.span.char_end) if src else None
        if src is None or node is None or edge.span.char_end - edge.span.char_start > 600:
            continue
        piece = Piece(
            src.path,
            edge.span.char_start,
            edge.span.char_end,
            src.text[edge.span.char_start : edge.span.char_end],
            "sentence",
            node,
            node.heading_path,
        )
        edges.append(
            EdgeQuote(topic_key(graph.points[u].title), topic_key(target.title), edge.kind, piece)
        )
    return degree, edges


def compile_view(
    sources: Sequence[Source], graph: KnowledgeGraph | None, *, limit: int = DEFAULT_LIMIT
) -> list[Note]:
    """The notes of one view's documents (pure but for the graph handed in)."""
    by_path = {s.path: s for s in sources}
    pieces = [p for s in sources for p in document_pieces(s)]
    index = MentionIndex(pieces)
    degree, edges = _graph_inputs(graph, by_path)
    compiler = Compiler(by_path, pieces, index, edges)
    notes = [
        n
        for t in select_topics(
            pieces, index, degree, limit=limit, openings=compiler.openings, skip=instruction
        )
        if (n := compiler.note(t))
    ]
    return link_notes(notes, index)


def _same(a: Note, b: Note) -> bool:
    def sig(n: Note) -> tuple[object, ...]:
        return (n.topic.title, n.links, [(x.section, x.id, x.detail) for x in n.lines])

    return sig(a) == sig(b)


def next_revision(new: Note | None, head: Note | None) -> Note | None:
    """The revision to store for a topic (None: nothing changed): lines whose text the
    head did not quote are marked ``changed``; the head's lines it no longer quotes are
    listed as ``removed``."""
    if new is None:
        if head is None or not head.lines:
            return None
        return Note(head.topic, (), (), head.revision + 1, head.lines)
    if head is not None and _same(new, head):
        return None
    before = {x.key for x in head.lines} if head else set()
    after = {x.key for x in new.lines}
    lines = tuple(replace(x, changed=head is not None and x.key not in before) for x in new.lines)
    removed = tuple(x for x in head.lines if x.key not in after) if head else ()
    return Note(new.topic, lines, new.links, (head.revision if head else 0) + 1, removed)


def store_view(ctx: StageContext, view: str, notes: Sequence[Note]) -> tuple[list[str], int]:
    """Store the new revisions of ``view``; (topic ids given one, notes left as they were)."""
    heads = {r.topic: Note.from_json(r.body) for r in ctx.store.note_heads(ctx.name, view)}
    fresh = {n.topic.id: n for n in notes}
    records: list[NoteRecord] = []
    for topic in sorted(set(heads) | set(fresh)):
        nxt = next_revision(fresh.get(topic), heads.get(topic))
        if nxt is not None:
            records.append(NoteRecord(ctx.name, view, topic, nxt.revision, nxt.to_json()))
    ctx.store.save_notes(ctx.name, records)
    return [r.topic for r in records], len(set(heads) | set(fresh)) - len(records)


def _reader(principal: str | None) -> Callable[[Mapping[str, Any]], bool]:
    def keep(metadata: Mapping[str, Any]) -> bool:
        return may_read(metadata, principal)

    return keep


def rebuild_notes(ctx: StageContext, *, limit: int = DEFAULT_LIMIT) -> RebuildReport:
    """Compile every view's notes and store what changed (module docstring)."""
    sources = load_sources(ctx)
    named = principals_named(sources)
    try:
        graph: KnowledgeGraph | None = ctx.index.graph.sync()
    except Exception:
        graph = None
    rebuilt: list[tuple[str, str]] = []
    removed: list[tuple[str, str]] = []
    unchanged = 0
    live: dict[str, int] = {}
    for view in [PUBLIC, *named]:
        principal = view or None
        visible = [s for s in sources if may_read(s.metadata, principal)]
        g = graph.restricted(("notes", view), _reader(principal)) if graph else None
        notes = compile_view(visible, g, limit=limit)
        topics, same = store_view(ctx, view, notes)
        ids = {n.topic.id for n in notes}
        rebuilt.extend((view, t) for t in topics if t in ids)
        removed.extend((view, t) for t in topics if t not in ids)
        unchanged += same
        live[view] = len(notes)
    return RebuildReport(tuple([PUBLIC, *named]), tuple(rebuilt), tuple(removed), unchanged, live)
