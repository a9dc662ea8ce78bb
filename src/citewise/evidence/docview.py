"""One document version's text and node tree, with the lookups the evidence stage needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from citewise.core.records import Node
from citewise.evidence.models import Fragment, Role
from citewise.evidence.tokens import estimate_tokens
from citewise.ingest.chunking import chunk_members
from citewise.store.adhash import line_range, span_id


@dataclass
class DocView:
    doc_id: str
    path: str
    version_id: int
    revision: int
    text: str
    nodes: list[Node]
    by_id: dict[str, Node] = field(init=False)
    units: list[Node] = field(init=False)  # chunk members, in document order
    section_of: dict[str, str | None] = field(init=False)  # unit id -> section id
    section_units: dict[str | None, list[Node]] = field(init=False)
    children: dict[str, list[Node]] = field(init=False)

    def __post_init__(self) -> None:
        self.by_id = {n.id: n for n in self.nodes}
        members = chunk_members(self.nodes)
        self.units = [n for n, _ in members]
        self.section_of = {n.id: s for n, s in members}
        self.section_units = {}
        for n, s in members:
            self.section_units.setdefault(s, []).append(n)
        self.children = {}
        for n in self.nodes:
            if n.parent_id is not None:
                self.children.setdefault(n.parent_id, []).append(n)

    def unit_of(self, node_id: str) -> Node | None:
        """The chunk member that is or contains ``node_id``."""
        node = self.by_id.get(node_id)
        while node is not None:
            if node.id in self.section_of:
                return node
            node = self.by_id.get(node.parent_id) if node.parent_id else None
        return None

    def container(self, start: int, end: int, hint: Node) -> Node:
        """The smallest node (from ``hint`` upwards) whose range holds [start, end)."""
        node: Node | None = hint
        while node is not None:
            if node.char_start <= start and end <= node.char_end:
                return node
            node = self.by_id.get(node.parent_id) if node.parent_id else None
        root = next((n for n in self.nodes if n.parent_id is None), hint)
        return root

    def fragment(
        self,
        role: Role,
        start: int,
        end: int,
        *,
        cite: Node,
        node_ids: tuple[str, ...],
        reason: str,
        rank: float,
        kind: str = "",
        heading_path: tuple[str, ...] | None = None,
    ) -> Fragment:
        text = self.text[start:end]
        first, last = line_range(self.text, start, end)
        return Fragment(
            role=role,
            doc_id=self.doc_id,
            path=self.path,
            revision=self.revision,
            version_id=self.version_id,
            node_ids=node_ids,
            line_start=first,
            line_end=last,
            char_start=start,
            char_end=end,
            heading_path=cite.heading_path if heading_path is None else heading_path,
            text=text,
            tokens=estimate_tokens(text),
            truncated=False,
            citation_id=span_id(cite.id, start, end),
            reason=reason,
            rank=rank,
            kind=kind or cite.kind,
        )
