"""The knowledge graph: points (documents, sections, concepts) and author-written edges."""

from citewise.graph.build import BuildStats, KBGraph, KnowledgeGraph, join_graph
from citewise.graph.extract import EdgeExtractor, doc_input_from_parsed, extract_document
from citewise.graph.models import DocExtract, DocInput, Edge, Point, Ref, RelationKind, SourceSpan
from citewise.graph.select import (
    Anchor,
    GraphDiagnostics,
    Neighbor,
    NeighborSupport,
    graph_boost,
    graph_context,
    neighbor_support,
    select_anchor,
    select_neighbors,
)

__all__ = [
    "Anchor",
    "BuildStats",
    "DocExtract",
    "DocInput",
    "Edge",
    "EdgeExtractor",
    "GraphDiagnostics",
    "KBGraph",
    "KnowledgeGraph",
    "Neighbor",
    "NeighborSupport",
    "Point",
    "Ref",
    "RelationKind",
    "SourceSpan",
    "doc_input_from_parsed",
    "extract_document",
    "graph_boost",
    "graph_context",
    "join_graph",
    "neighbor_support",
    "select_anchor",
    "select_neighbors",
]
