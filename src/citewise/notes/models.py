"""Typed contracts of topic notes.

A :class:`NoteLine` is a quotation: ``excerpt`` is exactly the cited document text at
``char_start:char_end`` of version ``version_id`` and ``id`` is the span id the store
resolves (``<node_id>:<start>-<end>``). A note holds nothing else but its topic's title
(itself taken from the sources), links to related notes and its revision bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: The sections of a note, in the order a note shows them.
Section = Literal["definition", "relations", "used", "figures", "conflicts", "discussed"]
SECTIONS: tuple[Section, ...] = (
    "definition",
    "relations",
    "used",
    "figures",
    "conflicts",
    "discussed",
)
SECTION_TITLES: dict[Section, str] = {
    "definition": "Definition",
    "relations": "Requires / part of / replaced by",
    "used": "Configured or used",
    "figures": "Figures",
    "conflicts": "Conflicts",
    "discussed": "Discussed in",
}

#: Why a topic was selected: a defined term, a heading several documents share, a graph
#: point several edges point to, a named term (code name) several documents use, or a
#: Chinese word several documents use.
TopicKind = Literal["defined", "heading", "graph", "named", "zh_word"]


@dataclass(frozen=True, slots=True)
class Topic:
    """A salient topic: ``id`` is stable (derived from ``key``, the normalised title)."""

    id: str
    title: str
    key: str
    kinds: tuple[TopicKind, ...]
    documents: int


@dataclass(frozen=True, slots=True)
class NoteLine:
    """One quotation with its exact citation. ``changed`` is set by the rebuild: the line's
    text was not in the note's previous revision."""

    section: Section
    id: str
    path: str
    doc_id: str
    version_id: int
    revision: int
    node_id: str
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    excerpt: str
    sha256: str
    heading_path: tuple[str, ...] = ()
    detail: str = ""
    changed: bool = False

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies a line across revisions: its section, document and text."""
        return (self.section, self.path, self.sha256)

    def to_json(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "id": self.id,
            "path": self.path,
            "doc_id": self.doc_id,
            "version_id": self.version_id,
            "revision": self.revision,
            "node_id": self.node_id,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "excerpt": self.excerpt,
            "sha256": self.sha256,
            "heading_path": list(self.heading_path),
            "detail": self.detail,
            "changed": self.changed,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NoteLine:
        return cls(**{**data, "heading_path": tuple(data.get("heading_path") or ())})


@dataclass(frozen=True, slots=True)
class Note:
    """A compiled note of one topic at one revision (``lines`` empty: the topic is gone)."""

    topic: Topic
    lines: tuple[NoteLine, ...]
    links: tuple[str, ...] = ()
    revision: int = 0
    removed: tuple[NoteLine, ...] = ()

    def section(self, name: Section) -> list[NoteLine]:
        return [line for line in self.lines if line.section == name]

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic.id,
            "title": self.topic.title,
            "key": self.topic.key,
            "kinds": list(self.topic.kinds),
            "documents": self.topic.documents,
            "revision": self.revision,
            "links": list(self.links),
            "lines": [line.to_json() for line in self.lines],
            "removed": [line.to_json() for line in self.removed],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Note:
        topic = Topic(
            id=data["topic"],
            title=data["title"],
            key=data.get("key", data["topic"]),
            kinds=tuple(data.get("kinds") or ()),
            documents=int(data.get("documents") or 0),
        )
        return cls(
            topic=topic,
            lines=tuple(NoteLine.from_json(x) for x in data.get("lines") or ()),
            links=tuple(data.get("links") or ()),
            revision=int(data.get("revision") or 0),
            removed=tuple(NoteLine.from_json(x) for x in data.get("removed") or ()),
        )
