"""The conflict review queue over HTTP (issue 38): /kb/{kb}/conflicts...

``GET /kb/{kb}/conflicts`` lists the conflicts answers met, once per pair of spans, with
their state and decision; ``POST /kb/{kb}/conflicts/{id}/resolve`` records which side
governs. Both need the ``editor`` role; resolving also needs the policy's publishers
(``facade/conflicts.py``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.server.deps import get_caller, get_service

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]


class ResolveBody(BaseModel):
    governs: str = Field(
        min_length=1, max_length=1000, description="The side that governs: a, b or its path."
    )
    until: str | None = Field(
        default=None, max_length=40, description="The last day it holds (YYYY-MM-DD, UTC)."
    )
    note: str = Field(default="", max_length=500, description="Recorded in the ledger.")


@router.get("/kb/{kb}/conflicts", tags=["conflicts"])
def conflict_queue(kb: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Recorded conflicts, oldest first: both sides, state, and the resolution if any."""
    return service.conflict_queue(caller, kb)


@router.post("/kb/{kb}/conflicts/{cid}/resolve", tags=["conflicts"])
def conflict_resolve(
    kb: str, cid: str, body: ResolveBody, caller: CallerDep, service: ServiceDep
) -> dict[str, Any]:
    """Record which side governs (a ``conflict_resolved`` ledger event names the caller)."""
    return service.conflict_resolve(caller, kb, cid, body.governs, body.until, body.note)
