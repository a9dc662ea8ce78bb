"""Topic notes (notes/): the list and one note, as the caller may see them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.server.deps import get_caller, get_service

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]


@router.get("/kb/{kb}/notes", tags=["notes"])
def notes(kb: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Every topic note the caller may see: title, revision, line counts, links."""
    return service.notes(caller, kb)


@router.get("/kb/{kb}/notes/{topic}", tags=["notes"])
def note(kb: str, topic: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """One note (topic id or title): its quoted lines, each with its exact citation; 404
    NOTE_NOT_FOUND when the caller may read none of its lines."""
    return service.note(caller, kb, topic)
