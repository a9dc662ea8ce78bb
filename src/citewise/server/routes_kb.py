"""Knowledge bases and documents: /kb, /kb/{id}, /kb/{id}/documents/..."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from citewise.errors import CitewiseError
from citewise.facade.caller import Caller
from citewise.facade.service import Service, Upload
from citewise.server.deps import envelope, get_caller, get_service, jsonable
from citewise.server.metrics import MetricsDep

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]
ServiceDep = Annotated[Service, Depends(get_service)]

_STATUS: dict[str, int] = {}


class KBCreate(BaseModel):
    name: str = Field(min_length=1, max_length=64)
    description: str = ""


class KBPatch(BaseModel):
    description: str


class RevertBody(BaseModel):
    version: int


@router.get("/kb", tags=["kb"])
def list_kbs(caller: CallerDep, service: ServiceDep) -> list[dict[str, Any]]:
    """Knowledge bases this key may use; document counts count only readable documents."""
    return service.list_kbs(caller)


@router.post("/kb", tags=["kb"], status_code=201)
def create_kb(body: KBCreate, caller: CallerDep, service: ServiceDep) -> Any:
    """Create a knowledge base (keys with access to all bases only)."""
    return jsonable(service.create_kb(caller, body.name, body.description))


@router.get("/kb/{kb}", tags=["kb"])
def get_kb(kb: str, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    return service.kb_info(caller, kb)


@router.patch("/kb/{kb}", tags=["kb"])
def patch_kb(kb: str, body: KBPatch, caller: CallerDep, service: ServiceDep) -> dict[str, Any]:
    """Change a knowledge base's description."""
    return service.update_kb(caller, kb, body.description)


@router.delete("/kb/{kb}", tags=["kb"])
def delete_kb(
    kb: str, caller: CallerDep, service: ServiceDep, force: bool = False
) -> dict[str, Any]:
    """Delete a base; refused (409 BASE_IN_USE, nothing written) while it holds documents."""
    service.delete_kb(caller, kb, force=force)
    return {"deleted": kb}


@router.get("/kb/{kb}/documents", tags=["documents"])
def list_documents(
    kb: str,
    caller: CallerDep,
    service: ServiceDep,
    query: str = "",
    prefix: str = "",
    tag: str = "",
    limit: Annotated[int | None, Query(ge=1, le=10_000)] = None,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> dict[str, Any]:
    """Readable documents of the current revision; query matches path or title."""
    return service.documents(
        caller, kb, query=query, prefix=prefix, tag=tag, limit=limit, offset=offset
    )


@router.post("/kb/{kb}/documents", tags=["documents"])
def upload(
    kb: str,
    caller: CallerDep,
    service: ServiceDep,
    metrics: MetricsDep,
    files: Annotated[list[UploadFile], File(description="One or more documents.")],
    prefix: Annotated[str, Form(description="Folder to place the files under.")] = "",
    metadata: Annotated[
        str,
        Form(
            description="Fields every uploaded file gets, as a sidecar gives them: a JSON "
            'object such as {"access": ["finance"], "tags": ["q3"]} (access, tags, title, '
            "edition, status, ...). Malformed: 400 BAD_METADATA, nothing written."
        ),
    ] = "",
) -> JSONResponse:
    """Ingest uploaded files with the CLI's rules. 201 when all succeed, 207 when some
    failed (the per-file report says why), the first error's envelope when all failed."""
    uploads = [Upload(f.filename or "", f.file) for f in files]
    report = service.upload(caller, kb, uploads, prefix, metadata)
    metrics.ingested(kb, report.files)
    failed = [f for f in report.files if f.status == "failed"]
    if failed and len(failed) == len(report.files):
        first = failed[0]
        status = _status_of(first.code or "")
        return envelope(first.code or "INGEST_FAILED", first.message or "Ingest failed.", status)
    return JSONResponse(jsonable(report), status_code=207 if failed else 201)


def _status_of(code: str) -> int:
    if not _STATUS:
        import citewise.errors as errors
        import citewise.server.auth as auth

        for mod in (errors, auth):
            for obj in vars(mod).values():
                if isinstance(obj, type) and issubclass(obj, CitewiseError):
                    _STATUS.setdefault(obj.code, obj.http_status)
    return _STATUS.get(code, 422)


@router.get("/kb/{kb}/documents/{doc:path}/versions", tags=["documents"])
def versions(kb: str, doc: str, caller: CallerDep, service: ServiceDep) -> Any:
    """Versions, newest first (is_head marks the current one)."""
    return jsonable(service.versions(caller, kb, doc))


@router.post("/kb/{kb}/documents/{doc:path}/revert", tags=["documents"])
def revert(kb: str, doc: str, body: RevertBody, caller: CallerDep, service: ServiceDep) -> Any:
    """Restore a version by re-adding its exact bytes (the revert is itself a version)."""
    return jsonable(service.revert(caller, kb, doc, body.version))


@router.get("/kb/{kb}/documents/{doc:path}", tags=["documents"])
def get_document(
    kb: str, doc: str, caller: CallerDep, service: ServiceDep, nodes: bool = False
) -> dict[str, Any]:
    """One document's head and metadata; nodes=true adds its node tree."""
    return service.document(caller, kb, doc, nodes=nodes)


@router.delete("/kb/{kb}/documents/{doc:path}", tags=["documents"])
def delete_document(kb: str, doc: str, caller: CallerDep, service: ServiceDep) -> Any:
    """Remove from the current revision; history stays resolvable."""
    return jsonable(service.delete_document(caller, kb, doc))
