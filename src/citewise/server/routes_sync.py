"""Folder sync over HTTP: POST /kb/{kb}/sync (only folders under the server's sync roots)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.server.deps import get_caller, get_service, jsonable

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]


class SyncBody(BaseModel):
    folder: str = Field(default="", max_length=4096, description="Relative to the sync root.")
    root: int = Field(default=0, ge=0, description="Which --sync-root (0 = the first).")
    dry_run: bool = False


@router.post("/kb/{kb}/sync", tags=["documents"])
def sync(kb: str, body: SyncBody, caller: CallerDep, service: ServiceDep) -> Any:
    """Mirror a server-side folder into the base's current revision: one revision, a
    per-file status report, and saved answers made stale. The folder must lie under a
    root the operator allowed with ``citewise serve --sync-root``; else 403."""
    report = service.sync(caller, kb, body.folder, root=body.root, dry_run=body.dry_run)
    data: dict[str, Any] = jsonable(report)
    data["counts"] = report.counts
    return data
