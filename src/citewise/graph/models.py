"""Typed contracts of the knowledge graph.

Knowledge points are documents, their sections and, for Mermaid flowchart nodes that match no
section, concepts local to one document. Every edge records what the author wrote that makes
it true: its kind, direction, a confidence for how directly the text states it, and the exact
source span (document version, node, character and line range) it was read from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from citewise.analysis.relations import RelationKind as RelationKind
from citewise.core.records import Node

#: The relation types and their vocabulary live in :mod:`citewise.analysis.relations`.
RELATION_KINDS: tuple[RelationKind, ...] = get_args(RelationKind)

#: Edition relations: one text changes the standing of another.
EDITION_KINDS: frozenset[str] = frozenset({"supersedes", "amends", "replaces", "repeals"})
#: Edges that only say where things are, not what they mean.
STRUCTURAL_KINDS: frozenset[str] = frozenset({"part_of", "references"})

PointKind = Literal["document", "section", "concept"]
EdgeOrigin = Literal["containment", "link", "wikilink", "mermaid", "front_matter", "extractor"]

#: Default confidences: how directly the source states the relation.
CONFIDENCE: dict[str, float] = {
    "containment": 1.0,
    "front_matter": 1.0,
    "mermaid_labelled": 0.9,
    "mermaid_unmapped_label": 0.75,
    "mermaid_unlabelled": 0.6,
    "link": 0.7,
    "wikilink": 0.7,
}


@dataclass(frozen=True, slots=True)
class Point:
    """A knowledge point (a graph node).

    ``key`` is the store node id for documents and sections (the document node for a
    document), and ``k_…`` for a concept. ``node_id`` is the store node holding the point's
    evidence: the document or section node, or the Mermaid node a concept was read from.
    """

    key: str
    kind: PointKind
    title: str
    norm_title: str
    doc_id: str
    path: str
    version_id: int
    node_id: str
    heading_path: tuple[str, ...] = ()
    slug: str = ""
    line_start: int = 0
    line_end: int = 0
    char_start: int = 0
    char_end: int = 0
    bibliographic: bool = False


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """Where an edge was read from; ``text`` is exactly ``doc_text[char_start:char_end]``."""

    path: str
    doc_id: str
    version_id: int
    node_id: str
    char_start: int
    char_end: int
    line_start: int
    line_end: int
    text: str

    @property
    def span_id(self) -> str:
        """A citation id (``<node_id>:<start>-<end>``) that the store resolves."""
        return f"{self.node_id}:{self.char_start}-{self.char_end}"


@dataclass(frozen=True, slots=True)
class Ref:
    """An endpoint not known inside one document; the graph builder resolves it.

    - ``path`` (+ optional ``anchor``): a Markdown link or a front-matter target, already
      resolved against the linking document's folder.
    - ``name`` (+ optional ``anchor``): a ``[[wiki link]]``, matched by file stem or title.
    - ``title`` with ``fallback``: a Mermaid label; a unique section or document of that
      title anywhere in the KB, else the ``fallback`` point (a local concept).
    """

    path: str = ""
    anchor: str = ""
    name: str = ""
    title: str = ""
    fallback: str = ""


Endpoint = str | Ref


@dataclass(frozen=True, slots=True)
class Edge:
    """A directed, typed relation ``source -> target``.

    ``directed`` is false for links drawn without an arrowhead (Mermaid ``---``) or with
    both (``<-->``): the stored direction is then the order the author wrote them in.
    """

    source: Endpoint
    target: Endpoint
    kind: RelationKind
    confidence: float
    origin: EdgeOrigin
    span: SourceSpan
    label: str = ""
    directed: bool = True


@dataclass(frozen=True, slots=True)
class DocInput:
    """What an extractor reads: one current document version."""

    doc_id: str
    path: str
    version_id: int
    content_sha256: str
    title: str
    format: str
    metadata: dict[str, Any]
    text: str
    nodes: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class DocExtract:
    """One document's points and (partly unresolved) edges; cached per content hash."""

    doc_id: str
    path: str
    content_sha256: str
    title: str
    document_key: str
    points: tuple[Point, ...]
    edges: tuple[Edge, ...]
    #: store node id -> the innermost point containing it (for chunk membership)
    node_point: dict[str, str] = field(default_factory=dict)
    #: section slug (and explicit ``{#id}``) -> section key
    anchors: dict[str, str] = field(default_factory=dict)
