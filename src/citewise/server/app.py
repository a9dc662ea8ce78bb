"""The HTTP API: FastAPI over :class:`~citewise.facade.service.Service`.

Every error leaves as one envelope ``{"error": {"code", "message"}}`` with the error's
stable code and HTTP status; unexpected failures become ``INTERNAL`` 500 without a stack
trace or internal path (the traceback goes to the server log only).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from pathlib import Path

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citewise.answer.otel import enable_from_env
from citewise.errors import CitewiseError, FileTooLarge, RequestTooLarge
from citewise.facade.service import Service
from citewise.facade.warmup import NoWarmup, Warmup
from citewise.kb import Home
from citewise.server import (
    metrics,
    openai_compat,
    routes_conflicts,
    routes_conversations,
    routes_display,
    routes_health,
    routes_kb,
    routes_notes,
    routes_query,
    routes_review,
    routes_rights,
    routes_sync,
)
from citewise.server.auth import KeyStore
from citewise.server.deps import STATIC, envelope
from citewise.server.roles import check_role

log = logging.getLogger("citewise.server")
#: Most files one upload request may carry (the request body cap is this many times the
#: per-file limit, plus room for the multipart framing).
MAX_FILES_PER_UPLOAD = 16
#: Cap of a JSON (non-upload) request body; questions and filters are far smaller.
DEFAULT_JSON_BYTES = 1024 * 1024

_HTTP_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "FILE_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
}


class BodyLimit:
    """Counts request body bytes as they stream in and stops at the cap: uploads
    (``multipart/form-data``) have ``limit`` (FILE_TOO_LARGE), every other body (JSON)
    the much smaller ``json_limit`` (REQUEST_TOO_LARGE)."""

    def __init__(self, app: ASGIApp, limit: int, json_limit: int = DEFAULT_JSON_BYTES) -> None:
        self.app = app
        self.limit = limit
        self.json_limit = json_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        upload = headers.get(b"content-type", b"").lower().startswith(b"multipart/")
        limit = self.limit if upload else self.json_limit
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _too_large(limit, upload)(scope, receive, send)
            return
        seen = 0
        exceeded = False

        async def limited() -> Message:
            nonlocal seen, exceeded
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    exceeded = True
                    raise _request_too_large(limit, upload)
            return message

        async def guarded(message: Message) -> None:
            if not exceeded:  # once over the cap, the app's own response is replaced
                await send(message)

        try:
            await self.app(scope, limited, guarded)
        except (FileTooLarge, RequestTooLarge):
            if not exceeded:
                raise
        if exceeded:
            await _too_large(limit, upload)(scope, receive, send)


def _request_too_large(limit: int, upload: bool = True) -> CitewiseError:
    if not upload:
        return RequestTooLarge(
            f"The request body is over the {limit:,}-byte limit for JSON requests.",
            hint="Send a shorter request, or start the server with a larger --max-json-bytes.",
        )
    return FileTooLarge(
        f"The request body is over the {limit:,}-byte limit.",
        hint="Upload fewer or smaller files per request.",
    )


def _too_large(limit: int, upload: bool = True) -> JSONResponse:
    exc = _request_too_large(limit, upload)
    return envelope(exc.code, str(exc), exc.http_status)


def create_app(
    home: Home,
    *,
    max_upload_bytes: int | None = None,
    max_json_bytes: int = DEFAULT_JSON_BYTES,
    bound_host: str = "127.0.0.1",
    allowed_hosts: Iterable[str] = (),
    sync_roots: Iterable[Path] = (),
    warm: bool = False,
) -> FastAPI:
    """The API for ``home``. The caller keeps ``home`` open while the app serves.

    ``bound_host`` and ``allowed_hosts`` decide which ``Host`` headers are answered
    (:mod:`citewise.server.guards`); whether keys are required is fixed at creation when
    keys exist then, and becomes fixed as soon as one is added later. ``warm``: load every
    model and warm each knowledge base in a thread started now; ``GET /health/ready``
    answers 503 until it is done (:mod:`citewise.facade.warmup`)."""
    from citewise.server.guards import Guard, GuardConfig, install_log_scrub

    service = Service(
        home, max_upload_bytes=max_upload_bytes, sync_roots=tuple(Path(p) for p in sync_roots)
    )
    app = FastAPI(
        dependencies=[Depends(check_role)],  # each route's role (server/roles.py)
        title="citewise",
        version="0.1.0",
        description="Evidence-grounded knowledge base: search, evidence packs and answers "
        "whose every sentence carries an exact, checkable citation.",
    )
    app.state.service = service
    keys = KeyStore(home.settings.home)
    app.state.keys = keys
    app.state.metrics = metrics.Metrics(service)
    app.state.tracing = enable_from_env()  # OTLP spans when OTEL_EXPORTER_OTLP_ENDPOINT is set
    if app.state.tracing != "off":
        log.info("tracing %s", app.state.tracing)
    install_log_scrub()

    @app.exception_handler(CitewiseError)
    async def _citewise(_: Request, exc: CitewiseError) -> JSONResponse:
        return envelope(exc.code, str(exc), exc.http_status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors()[:5]:
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        return envelope("BAD_REQUEST", "Invalid request: " + "; ".join(parts) + ".", 400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "HTTP_ERROR")
        message = exc.detail if isinstance(exc.detail, str) else "Request failed."
        return envelope(code, message, exc.status_code)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return envelope("INTERNAL", "Internal error; see the server log.", 500)

    app.include_router(routes_health.router)
    app.include_router(routes_kb.router)
    app.include_router(routes_query.router)
    app.include_router(routes_conversations.router)
    app.include_router(routes_sync.router)
    app.include_router(routes_review.router)
    app.include_router(routes_rights.router)
    app.include_router(routes_conflicts.router)
    app.include_router(routes_notes.router)
    app.include_router(routes_display.router)
    app.include_router(metrics.router)
    app.include_router(openai_compat.router)
    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(
        BodyLimit,
        limit=service.max_upload_bytes * MAX_FILES_PER_UPLOAD + 1024 * 1024,
        json_limit=max_json_bytes,
    )
    # Added last, so it runs first: host, key-in-URL, loopback and origin checks.
    app.add_middleware(Guard, keys=keys, config=GuardConfig.build(bound_host, allowed_hosts))
    app.state.warmup = _warmup(app, service) if warm else NoWarmup()
    app.state.warmup.start()  # last: the app is complete when its first request is sent
    return app


def _warmup(app: FastAPI, service: Service) -> Warmup:
    """The facade's warm-up of ``service``'s home, then the app's own first request."""
    from citewise.config import DEFAULT_KB
    from citewise.server.warm_http import first_request

    http = ("http: first request", functools.partial(first_request, app, DEFAULT_KB))
    return Warmup(service.home, service.lock.read, after=[http])
