"""What the route modules share with the app, below both: the request's service and
caller, the error envelope, JSON conversion and the static folder.

``app.py`` imports the route modules and the routes import only this module, so the app
and its routes do not import each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from citewise.facade.caller import Caller
from citewise.facade.service import Service
from citewise.jsonable import to_jsonable
from citewise.server.auth import KeyStore

STATIC = Path(__file__).parent / "static"


def envelope(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


def get_caller(request: Request) -> Caller:
    keys: KeyStore = request.app.state.keys
    auth = request.headers.get("authorization", "")
    token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
    token = token or request.headers.get("x-api-key")
    return keys.authenticate(token)


def jsonable(obj: Any) -> Any:
    return to_jsonable(obj)
