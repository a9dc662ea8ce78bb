"""The facade's reads of topic notes (notes/): each caller sees its view's notes with only
the lines whose sources it may read; a note with no such line reads exactly like one that
does not exist (``NOTE_NOT_FOUND``), and revision numbers are the caller's own (changes
to documents it may not read never move them)."""

from __future__ import annotations

from typing import Any

from citewise.core.access import RevisionView
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.notes.models import SECTION_TITLES, Note, NoteLine
from citewise.notes.read import NoteReader


def line_json(line: NoteLine, view: RevisionView) -> dict[str, Any]:
    """A line as interfaces show it: its citation, with the caller's revision number."""
    return {**line.to_json(), "revision": view.number(line.revision)}


def note_summary(note: Note) -> dict[str, Any]:
    return {
        "topic": note.topic.id,
        "title": note.topic.title,
        "kinds": list(note.topic.kinds),
        "revision": note.revision,
        "lines": len(note.lines),
        "changed": sum(1 for x in note.lines if x.changed),
        "documents": len({x.path for x in note.lines}),
        "sections": {s: len(note.section(s)) for s in SECTION_TITLES if note.section(s)},
        "links": list(note.links),
    }


def note_json(note: Note, view: RevisionView, titles: dict[str, str]) -> dict[str, Any]:
    """The whole note: sections in order, each line with its citation; links with titles."""
    return {
        **note_summary(note),
        "section_titles": dict(SECTION_TITLES),
        "items": [line_json(x, view) for x in note.lines],
        "removed": [line_json(x, view) for x in note.removed],
        "links": [{"topic": t, "title": titles.get(t, t)} for t in note.links],
        "generated": False,
    }


class Notes(ServiceBase):
    """Topic notes as the caller may see them."""

    def notes(self, caller: Caller, name: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            found = NoteReader(kb.context, caller.principal).notes()
        listed = sorted(found.values(), key=lambda n: (n.topic.title.casefold(), n.topic.id))
        return {"kb": name, "count": len(listed), "notes": [note_summary(n) for n in listed]}

    def note(self, caller: Caller, name: str, topic: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            reader = NoteReader(kb.context, caller.principal)
            note = reader.find(topic)
            titles = {t: n.topic.title for t, n in reader.notes().items()}
            view = self._view(caller, name)
        return {"kb": name, **note_json(note, view, titles)}
