"""Questions: search, evidence, ask; citations; the graph around a node."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, Field

from citewise.server.auth import Caller
from citewise.server.deps import get_caller, get_service, jsonable
from citewise.server.service import Scope, Service

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]


class Filters(BaseModel):
    """Narrowing only: the principal always comes from the API key."""

    path_prefixes: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, str] = Field(default_factory=dict)

    def scope(self) -> Scope:
        return Scope(
            tuple(self.path_prefixes), tuple(self.tags), tuple(sorted(self.metadata.items()))
        )


class SearchBody(BaseModel):
    query: str
    top_k: int = Field(default=10, ge=1, le=1000)
    mode: Literal["lexical", "vector", "hybrid"] = "hybrid"
    filters: Filters = Field(default_factory=Filters)


class EvidenceBody(BaseModel):
    query: str
    profile: Literal["base", "causal", "deep"] | None = None
    rse: bool = True
    filters: Filters = Field(default_factory=Filters)


class AskBody(BaseModel):
    question: str
    trace: bool = False
    filters: Filters = Field(default_factory=Filters)
    #: Check regulation citations against the web second source (docs/regulations.md).
    verify_web: bool = False


@router.post("/kb/{kb}/search", tags=["questions"])
def search(kb: str, body: SearchBody, caller: CallerDep, service: ServiceDep) -> Any:
    """Ranked hits with exact citations (same JSON as ``citewise search --json``)."""
    result = service.search(
        caller, kb, body.query, scope=body.filters.scope(), top_k=body.top_k, mode=body.mode
    )
    return jsonable(result)


@router.post("/kb/{kb}/evidence", tags=["questions"])
def evidence(kb: str, body: EvidenceBody, caller: CallerDep, service: ServiceDep) -> Any:
    """The budgeted context pack (same JSON as ``citewise evidence --json``)."""
    pack = service.evidence(
        caller, kb, body.query, scope=body.filters.scope(), profile=body.profile, rse=body.rse
    )
    return pack.to_json()


@router.post("/kb/{kb}/ask", tags=["questions"])
def ask(kb: str, body: AskBody, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """One answer (same JSON as ``citewise ask --json [--trace]``)."""
    answer = service.ask(
        caller, kb, body.question, scope=body.filters.scope(), verify_web=body.verify_web
    )
    return answer.to_json(with_trace=body.trace)


@router.get("/citations/{citation_id}", tags=["citations"])
def citation(citation_id: str, caller: CallerDep, service: ServiceDep) -> Any:
    """Exact text and provenance of a node, chunk or span id (as ``citewise cite resolve``)."""
    return jsonable(service.resolve(caller, citation_id))


@router.get("/citations/{citation_id}/page.png", tags=["citations"])
def citation_page(
    citation_id: str, caller: CallerDep, service: ServiceDep, part: int = 0
) -> Response:
    """The PDF page of a citation rendered server-side (PNG) with the cited boxes
    highlighted; ``part`` picks the page of a citation that spans several."""
    png = service.citation_page(caller, citation_id, part)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private"})


@router.get("/kb/{kb}/graph/{node:path}", tags=["graph"])
def graph(kb: str, node: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """A knowledge point and its readable edges, each with its evidence span."""
    return service.graph(caller, kb, node)
