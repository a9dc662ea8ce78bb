"""GET /health, GET /health/ready, GET /health/models, the web page at /, its icon and
its labels."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from citewise import installed_version
from citewise.analysis.language import from_accept_language, parse_lang
from citewise.core.messages import table
from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.server.auth import KeyStore
from citewise.server.deps import STATIC, get_caller, get_service

router = APIRouter()


@router.get("/", include_in_schema=False)
def index() -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    """The page's icon, also for clients that ask for /favicon.ico whatever the page says
    (browsers viewing a JSON route directly), so that they get an icon rather than a 404."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/ui/labels", include_in_schema=False)
def labels(
    response: Response,
    lang: str | None = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> dict[str, str]:
    """The web page's labels (``web.*`` keys of core/messages.py) in ``lang`` (``en`` or
    ``zh``), else the first of them ``Accept-Language`` names, else English; the language
    chosen is the ``Content-Language`` header (the page sets its ``lang`` from it)."""
    chosen = parse_lang(lang) if lang else from_accept_language(accept_language) or "en"
    response.headers["Content-Language"] = chosen
    return table("web.", chosen)


@router.get("/health", tags=["health"])
def health(request: Request) -> dict[str, Any]:
    """Liveness, the installed citewise version, and whether API keys are required (no
    secrets, no paths)."""
    keys: KeyStore = request.app.state.keys
    auth = "api_keys" if keys.required else "none"
    return {"status": "ok", "auth": auth, "version": installed_version()}


@router.get("/health/ready", tags=["health"])
def health_ready(request: Request) -> JSONResponse:
    """Readiness: 503 with the warm-up steps still ``pending`` while the server loads its
    models and warms each knowledge base (facade/warmup.py), then 200 with each step's
    status and time. Liveness stays ``GET /health`` (200 throughout)."""
    warmup = request.app.state.warmup
    return JSONResponse(warmup.report(), status_code=200 if warmup.ready else 503)


@router.get("/health/models", tags=["health"])
def health_models(
    caller: Annotated[Caller, Depends(get_caller)],
    service: Annotated[Service, Depends(get_service)],
) -> dict[str, Any]:
    """Per knowledge base: dense encoder status, model, precision (int8 or fp32, and why
    fp32 when int8 was wanted), fingerprint, vectors, last error."""
    return service.models(caller)
