"""The review queue over HTTP (issue 38): /kb/{kb}/review...

``GET /kb/{kb}/review`` lists pending candidates and quarantined files with the base's
policy; ``GET /kb/{kb}/review/{id}`` shows one (diffs, warnings, provenance);
``POST .../approve``, ``.../release`` publish, ``.../reject`` discards. Every route needs
the ``editor`` role (``roles.py``); deciding also needs the policy's publishers
(``facade/review.py``).
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


class RejectBody(BaseModel):
    reason: str = Field(default="", max_length=500, description="Recorded in the ledger.")


@router.get("/kb/{kb}/review", tags=["review"])
def review_queue(kb: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Pending candidates and quarantined files, oldest first, with the base's policy."""
    return service.review_queue(caller, kb)


@router.get("/kb/{kb}/review/{ref}", tags=["review"])
def review_show(kb: str, ref: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """One held entry: each document's line diff against the published version, its
    parse warnings and provenance."""
    return service.review_show(caller, kb, ref)


@router.post("/kb/{kb}/review/{ref}/approve", tags=["review"])
def review_approve(kb: str, ref: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Publish a candidate as one revision (a ledger event names the reviewer)."""
    return service.review_decide(caller, kb, ref, "approve")


@router.post("/kb/{kb}/review/{ref}/release", tags=["review"])
def review_release(kb: str, ref: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Publish a quarantined file (a ledger event names the reviewer)."""
    return service.review_decide(caller, kb, ref, "release")


@router.post("/kb/{kb}/review/{ref}/reject", tags=["review"])
def review_reject(
    kb: str, ref: str, caller: CallerDep, service: ServiceDep, body: RejectBody | None = None
) -> dict[str, Any]:
    """Discard a candidate or quarantined file (a ledger event names the reviewer)."""
    return service.review_decide(caller, kb, ref, "reject", body.reason if body else "")
