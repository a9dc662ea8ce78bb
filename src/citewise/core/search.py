"""Typed contracts of the recall stage."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypedDict

RouteName = Literal["identifier", "lexical", "vector", "graph", "rerank"]
RecallRouteStatus = Literal["ok", "degraded", "unavailable", "skipped"]
SearchMode = Literal["lexical", "vector", "hybrid"]
RecallOutcome = Literal["ok", "insufficient_evidence"]


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Scope applied inside every route's candidate generation (never after truncation).

    ``principal`` None means an anonymous caller: only documents without an ``access:``
    list are visible. A document's ``access`` list names the principals that may read it.
    """

    path_prefixes: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    principal: str | None = None
    #: Editions (recall/editions.py): None = current-only for regulation editions unless
    #: the question names an edition; True = current-only for every document; False = all
    #: editions (superseded ones only ranked lower). Applied before ranking.
    current_only: bool | None = None
    #: ISO date: answer as the law stood that day (editions in force then only).
    as_of: str | None = None


def filters_json(filters: SearchFilters | None) -> dict[str, Any]:
    """The filters as recorded in replay conditions; the edition switches only when set
    (so conditions, and the replay ids made from them, stay as they were without them)."""
    out = asdict(filters or SearchFilters())
    for key in ("current_only", "as_of"):
        if out[key] is None:
            del out[key]
    return out


@dataclass(frozen=True, slots=True)
class RouteDiagnostic:
    route: RouteName
    status: RecallRouteStatus
    candidates: int
    top_score: float | None
    threshold: float | None
    ms: float
    reason: str = ""
    #: Candidates a stage removed from the pool (the rerank threshold); 0 for other routes.
    dropped: int = 0


@dataclass(frozen=True, slots=True)
class Hit:
    """A ranked chunk with its exact citation (the excerpt never includes the breadcrumb)."""

    rank: int
    score: float
    chunk_id: str
    citation_id: str
    doc_id: str
    path: str
    title: str
    version_id: int
    revision: int
    node_ids: tuple[str, ...]
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    excerpt: str
    sha256: str
    route_ranks: dict[str, int] = field(default_factory=dict)
    #: Where the excerpt is in the original file (page, boxes, ...); None for text
    #: formats, whose lines and offsets already point into the file. See core/locator.py.
    locator: dict[str, Any] | None = None
    #: Regulation edition and clause (regulation, edition, clause, effective_date, status)
    #: when the document is an edition of a regulation; None otherwise.
    regulation: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Abstention:
    reason: str
    criterion: str  # vector_threshold, lexical_only, no_candidates, ...


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    mode: SearchMode
    revision: int
    outcome: RecallOutcome
    hits: tuple[Hit, ...]
    #: Routes that actually ran, in the order they ran.
    routes: tuple[str, ...]
    #: Every route considered for this mode, with its status (ok, degraded, unavailable,
    #: skipped), candidate count, top score, threshold, time and reason.
    diagnostics: tuple[RouteDiagnostic, ...]
    #: How strong the retrieval criterion behind the hits is: identifier, vector_threshold,
    #: lexical_only, lexical_meaning, or (when abstaining) no_candidates, lexical_coverage,
    #: vector_threshold.
    criterion: str
    scope_mode: str = "pre_filter"
    abstention: Abstention | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    #: The id under which this search is recorded, when asked for (MCP recall_knowledge;
    #: read back with ``KnowledgeBase.recall``).
    recall_id: str | None = None
    #: Graph diagnostics (anchor, degrees, windows, fallback) when the graph route ran;
    #: the evidence stage reads its neighbor windows. Not part of the JSON contract.
    graph: Any = field(default=None, repr=False, compare=False)
    #: The edition filter applied before ranking and the outcome of a lookup of a named
    #: edition (recall/editions.py); None when no regulation edition is in scope.
    editions: dict[str, Any] | None = None
    #: The :class:`~citewise.recall.editions.EditionScope` behind ``editions`` (evidence
    #: and answers label their fragments with it). Not part of the JSON contract.
    edition_scope: Any = field(default=None, repr=False, compare=False, metadata={"json": False})


class RetrievalJSON(TypedDict, total=False):
    """What a recall ranked and why, without timings
    (:func:`citewise.recall.search.search_summary`): an answer's ``retrieval`` trace
    section and the retrieval part of its ledger conditions."""

    revision: int
    outcome: RecallOutcome
    criterion: str
    routes: list[str]
    hits: list[list[str]]  # [chunk id, sha256] per hit, in rank order
    diagnostics: list[dict[str, Any]]  # RouteDiagnostic without its time
    abstention: dict[str, Any] | None  # Abstention
    editions: dict[str, Any]  # the edition filter, when a regulation edition was in scope
