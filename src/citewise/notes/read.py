"""Reading topic notes as a principal (the facade's reads go through here).

A principal reads its view (rebuild.py) and, on top of it, only lines whose document it
may read now (a document restricted after the last rebuild drops out at once). A note
with no visible line does not exist for it; links to such notes are left out. The note's
revisions are counted in its view, so they depend only on documents the view holds.
"""

from __future__ import annotations

from citewise.context import StageContext
from citewise.core.access import may_read
from citewise.errors import NoteNotFound
from citewise.notes.extract import topic_key
from citewise.notes.models import Note, NoteLine
from citewise.notes.rebuild import principals_named, view_of
from citewise.notes.topics import topic_id


class NoteReader:
    """The notes ``principal`` may see in one knowledge base (read once per request)."""

    def __init__(self, ctx: StageContext, principal: str | None) -> None:
        self.ctx = ctx
        docs = ctx.store.list_documents(ctx.name)
        self.principal = principal
        self._current = {d.path for d in docs}
        self._readable = {d.path for d in docs if may_read(d.metadata, principal)}
        self._gone: dict[tuple[str, int], bool] = {}
        named = sorted({p for d in docs for p in _access(d.metadata)})
        self.view = view_of(principal, named)
        self._notes: dict[str, Note] | None = None

    def may_read(self, line: NoteLine) -> bool:
        """Whether the principal may read the line's source: a current document by its
        current metadata, a deleted one by what its quoted version was stored with."""
        if line.path in self._current:
            return line.path in self._readable
        key = (line.path, line.version_id)
        if key not in self._gone:
            meta = self.ctx.store.version_metadata(self.ctx.name, line.path).get(line.version_id)
            self._gone[key] = meta is not None and may_read(meta, self.principal)
        return self._gone[key]

    def _visible(self, note: Note) -> Note | None:
        lines = tuple(x for x in note.lines if x.path in self._readable)
        if not lines:
            return None
        removed = tuple(x for x in note.removed if self.may_read(x))
        return Note(note.topic, lines, note.links, note.revision, removed)

    def notes(self) -> dict[str, Note]:
        """Every note the principal may see, by topic id (links to unseen notes dropped)."""
        if self._notes is None:
            heads = self.ctx.store.note_heads(self.ctx.name, self.view)
            seen = {
                n.topic.id: n
                for r in heads
                if (n := self._visible(Note.from_json(r.body))) is not None
            }
            self._notes = {
                t: Note(
                    n.topic, n.lines, tuple(x for x in n.links if x in seen), n.revision, n.removed
                )
                for t, n in seen.items()
            }
        return self._notes

    def find(self, topic: str) -> Note:
        """A note by topic id or title (any case); NoteNotFound when the principal has none."""
        notes = self.notes()
        if topic in notes:
            return notes[topic]
        key = topic_key(topic)
        if topic_id(key) in notes:
            return notes[topic_id(key)]
        raise NoteNotFound(
            f"No note on {topic!r} in knowledge base {self.ctx.name!r}.",
            hint="List the notes (citewise notes list) and pass a topic id or title.",
        )

    def history(self, topic: str) -> list[Note]:
        """The note's revisions the principal may see, oldest first (lines it may not read
        left out; a revision that then equals the one before is left out too)."""
        note = self.find(topic)
        out: list[Note] = []
        for r in self.ctx.store.note_history(self.ctx.name, self.view, note.topic.id):
            n = Note.from_json(r.body)
            lines = tuple(x for x in n.lines if self.may_read(x))
            if out and [x.id for x in out[-1].lines] == [x.id for x in lines]:
                continue
            out.append(Note(n.topic, lines, (), n.revision, ()))
        return out


def _access(metadata: dict[str, object]) -> list[str]:
    access = metadata.get("access")
    if isinstance(access, str):
        return [access]
    if isinstance(access, list | tuple):
        return [str(a) for a in access]
    return []


__all__ = ["NoteReader", "principals_named"]
