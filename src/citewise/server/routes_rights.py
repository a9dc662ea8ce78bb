"""Takedown over HTTP (issue 38): ``POST /kb/{kb}/takedown`` ``{"path": P, "reason": R}``,
its lifting ``POST /kb/{kb}/untakedown`` (same body) and the retention sweep
``POST /kb/{kb}/retention/apply`` ``{"today": "YYYY-MM-DD"}`` (optional day); a web
address's takedown ``POST /web/takedown`` ``{"url": U, "reason": R}`` and its lifting
``POST /web/untakedown`` (home-wide: an admin key for every base; facade/web_takedown.py).

Needs the ``admin`` role (``roles.py``); the facade checks it again and answers
DOC_NOT_FOUND for a path the caller may not read (``facade/takedown.py``).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.server.deps import get_caller, get_service

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]


class TakedownBody(BaseModel):
    path: str = Field(min_length=1, max_length=4096, description="The document's path.")
    reason: str = Field(min_length=1, max_length=500, description="Recorded in the ledger.")


@router.post("/kb/{kb}/takedown", tags=["governance"])
def takedown(kb: str, body: TakedownBody, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Withhold every stored version of a document from every read (no new ingest)."""
    return service.takedown(caller, kb, body.path, body.reason)


@router.post("/kb/{kb}/untakedown", tags=["governance"])
def untakedown(
    kb: str, body: TakedownBody, caller: CallerDep, service: ServiceDep
) -> dict[str, Any]:
    """Lift a takedown: the document's versions read as before (ledger ``untakedown``)."""
    return service.untakedown(caller, kb, body.path, body.reason)


class RetentionBody(BaseModel):
    today: date | None = Field(default=None, description="Apply as of this day (UTC today).")


@router.post("/kb/{kb}/retention/apply", tags=["governance"])
def retention_apply(
    kb: str, caller: CallerDep, service: ServiceDep, body: RetentionBody | None = None
) -> dict[str, Any]:
    """Run the retention sweep now: versions the rules no longer keep expire."""
    return service.retention_apply(caller, kb, (body or RetentionBody()).today)


class WebTakedownBody(BaseModel):
    url: str = Field(min_length=1, max_length=4096, description="The web page's address.")
    reason: str = Field(min_length=1, max_length=500, description="Recorded in the ledger.")


@router.post("/web/takedown", tags=["governance"])
def web_takedown(body: WebTakedownBody, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Withhold every web snapshot of an address (url or final url), now and later."""
    return service.web_takedown(caller, body.url, body.reason)


@router.post("/web/untakedown", tags=["governance"])
def web_untakedown(body: WebTakedownBody, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Lift a web address's takedown (ledger ``web_untakedown``)."""
    return service.web_untakedown(caller, body.url, body.reason)
