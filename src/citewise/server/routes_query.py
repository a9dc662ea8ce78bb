"""Questions: search, evidence, ask; citations; the graph around a node."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from citewise.analysis.asof import parse_as_of
from citewise.analysis.language import from_accept_language
from citewise.errors import UsageError
from citewise.facade.caller import Caller
from citewise.facade.service import Scope, Service
from citewise.server.deps import get_caller, get_service, jsonable
from citewise.server.streaming import MEDIA_TYPE, stream_answer

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]


class Filters(BaseModel):
    """Narrowing only: the principal always comes from the API key."""

    path_prefixes: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, str] = Field(default_factory=dict)
    #: Editions: null = default (current-only for regulation editions unless the question
    #: names one), true = current only, false = all editions (docs/regulations.md).
    current_only: bool | None = None
    #: Answer as the law stood on this date (YYYY-MM-DD).
    as_of: str | None = None

    def scope(self) -> Scope:
        day = parse_as_of(self.as_of).isoformat() if self.as_of is not None else None
        return Scope(
            tuple(self.path_prefixes),
            tuple(self.tags),
            tuple(sorted(self.metadata.items())),
            self.current_only,
            day,
        )


class SearchBody(BaseModel):
    query: str
    top_k: int = Field(default=10, ge=1, le=1000)
    mode: Literal["lexical", "vector", "hybrid"] = "hybrid"
    filters: Filters = Field(default_factory=Filters)
    #: Search the documents as they were at this revision (your numbering; issue 38).
    revision: int | None = Field(default=None, strict=True)


class EvidenceBody(BaseModel):
    query: str
    profile: Literal["base", "causal", "deep"] | None = None
    rse: bool = True
    filters: Filters = Field(default_factory=Filters)
    #: Gather evidence from the documents as they were at this revision (issue 38).
    revision: int | None = Field(default=None, strict=True)


class AskBody(BaseModel):
    question: str
    trace: bool = False
    filters: Filters = Field(default_factory=Filters)
    #: Check regulation citations against the web second source (docs/regulations.md).
    verify_web: bool = False
    #: The caller's conditions (``{"platform": "linux"}``); the question's own win.
    conditions: dict[str, str] = Field(default_factory=dict)
    #: Lineage ids (conversation, turn, task, parent), recorded in the ledger entry.
    lineage: dict[str, str] = Field(default_factory=dict)
    #: Answer from the documents as they were at this revision (issue 38).
    revision: int | None = Field(default=None, strict=True)
    #: The language of citewise's own words: "en" or "zh" (over ``Accept-Language``;
    #: default: the question's language).
    lang: str | None = None


@router.post("/kb/{kb}/search", tags=["questions"])
def search(kb: str, body: SearchBody, caller: CallerDep, service: ServiceDep) -> Any:
    """Ranked hits with exact citations (same JSON as ``citewise search --json``)."""
    result = service.search(
        caller,
        kb,
        body.query,
        scope=body.filters.scope(),
        top_k=body.top_k,
        mode=body.mode,
        revision=body.revision,
    )
    out: dict[str, Any] = jsonable(result)
    return _with_withheld(out, service, caller, kb, body.query, body.filters.scope())


@router.post("/kb/{kb}/evidence", tags=["questions"])
def evidence(kb: str, body: EvidenceBody, caller: CallerDep, service: ServiceDep) -> Any:
    """The budgeted context pack (same JSON as ``citewise evidence --json``)."""
    pack = service.evidence(
        caller,
        kb,
        body.query,
        scope=body.filters.scope(),
        profile=body.profile,
        rse=body.rse,
        revision=body.revision,
    )
    return _with_withheld(pack.to_json(), service, caller, kb, body.query, body.filters.scope())


def _with_withheld(
    out: dict[str, Any], service: Service, caller: Caller, kb: str, query: str, scope: Scope | None
) -> dict[str, Any]:
    """``withheld``: the documents withheld from the caller that would have matched, as
    ``{title, reason, owner}`` (policy ``redaction: metadata``; absent otherwise)."""
    view = service.withheld(caller, kb, query, scope=scope)
    return out | {"withheld": view} if view else out


@router.post("/kb/{kb}/ask", tags=["questions"], response_model=None)
def ask(
    kb: str,
    body: AskBody,
    caller: CallerDep,
    service: ServiceDep,
    stream: Annotated[bool, Query(description="Send server-sent events")] = False,
    accept_language: Annotated[str | None, Header()] = None,
) -> dict[str, Any] | StreamingResponse:
    """One answer (same JSON as ``citewise ask --json [--trace]``).

    With ``?stream=true``: ``text/event-stream`` with a ``status`` event, one ``sentence``
    event per released sentence and its citations, then an ``answer`` event holding the
    same object as the plain request (server/streaming.py). The words citewise writes
    itself (status, refusals, notes) are in ``lang``, else the first of English and
    Chinese ``Accept-Language`` names, else the question's language."""
    scope = body.filters.scope()
    lang = body.lang if body.lang is not None else from_accept_language(accept_language)

    def run() -> Any:
        return service.ask(
            caller,
            kb,
            body.question,
            scope=scope,
            verify_web=body.verify_web,
            conditions=body.conditions,
            lineage=body.lineage,
            revision=body.revision,
            lang=lang,
        )

    if not stream:
        return run().to_json(with_trace=body.trace)  # type: ignore[no-any-return]
    service.kb(caller, kb)  # not found / not allowed: a plain HTTP error, before the stream
    if not body.question.strip():
        raise UsageError("The question is empty.", hint="Pass the question to answer.")
    events = stream_answer(
        run,
        kb=kb,
        question=body.question,
        with_trace=body.trace,
    )
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(events, media_type=MEDIA_TYPE, headers=headers)


@router.get("/citations/{citation_id}", tags=["citations"])
def citation(citation_id: str, caller: CallerDep, service: ServiceDep) -> Any:
    """Exact text and provenance of a node, chunk or span id (as ``citewise cite resolve``)."""
    return jsonable(service.resolve(caller, citation_id))


@router.get("/citations/{citation_id}/page.png", tags=["citations"])
def citation_page(
    citation_id: str, caller: CallerDep, service: ServiceDep, part: int = 0
) -> Response:
    """The PDF page of a citation rendered server-side (PNG) with the cited boxes
    highlighted; ``part`` picks the page of a citation that spans several. The image is at
    most ``max_render_pixels``: ``X-Citewise-Render-Scale`` gives the pixels per point used
    and ``X-Citewise-Render-Lowered: true`` says a large page was rendered smaller."""
    page = service.citation_page(caller, citation_id, part)
    headers = {
        "Cache-Control": "private",
        "X-Citewise-Render-Scale": f"{page.scale:.6g}",
        "X-Citewise-Render-Lowered": "true" if page.lowered else "false",
    }
    return Response(page.png, media_type="image/png", headers=headers)


@router.get("/kb/{kb}/graph/{node:path}", tags=["graph"])
def graph(kb: str, node: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """A knowledge point and its readable edges, each with its evidence span."""
    return service.graph(caller, kb, node)
