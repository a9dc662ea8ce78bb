"""Takedown over HTTP (issue 38): ``POST /kb/{kb}/takedown`` ``{"path": P, "reason": R}``.

Needs the ``admin`` role (``roles.py``); the facade checks it again and answers
DOC_NOT_FOUND for a path the caller may not read (``facade/takedown.py``).
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


class TakedownBody(BaseModel):
    path: str = Field(min_length=1, max_length=4096, description="The document's path.")
    reason: str = Field(min_length=1, max_length=500, description="Recorded in the ledger.")


@router.post("/kb/{kb}/takedown", tags=["governance"])
def takedown(kb: str, body: TakedownBody, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Withhold every stored version of a document from every read (no new ingest)."""
    return service.takedown(caller, kb, body.path, body.reason)
