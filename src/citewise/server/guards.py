"""Request guards that run before any route: who may connect, from where, and how.

One pure-ASGI middleware (:class:`Guard`) checks, for every HTTP request, in this order:

1. ``Host`` is expected (DNS rebinding): a loopback name, the bound host, a configured
   allowed host, or an IP literal (a rebinding page always arrives with its own DNS name).
2. No API key in the query string (keys go in a header; a URL lands in logs and history).
3. With no API keys configured *now* and none at start-up, only loopback clients are
   answered (checked per request, so removing the last key never opens the server); with
   keys at start-up, :class:`~citewise.server.auth.KeyStore` keeps requiring one.
4. A state-changing request (anything but GET/HEAD/OPTIONS) from a browser page must come
   from the server's own origin (``Origin``, else ``Sec-Fetch-Site``).

Every response gets CSP, ``X-Frame-Options``, ``X-Content-Type-Options`` and
``Referrer-Policy``, errors and unhandled exceptions included (an exception no handler
answered becomes the ``INTERNAL`` 500 here, inside the headers). Refusals use the one error
envelope.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citewise.errors import CitewiseError, CrossOrigin, HostNotAllowed, KeyInURL, LoopbackOnly
from citewise.server.auth import TOKEN_PREFIX, KeyStore

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: Query parameters that look like a credential; a request carrying one is refused.
KEY_PARAMS = frozenset(
    {"key", "api_key", "apikey", "api-key", "x-api-key", "token", "access_token", "auth",
     "authorization", "bearer"}
)  # fmt: skip
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
#: FastAPI's interactive docs load their script and style from a CDN with inline boot code.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "img-src 'self' data: https://fastapi.tiangolo.com; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
_log = logging.getLogger("citewise.server")


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        return False


def host_name(value: str) -> str:
    """The name part of a ``Host`` header or URL netloc (no port, no brackets, lower case)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


@dataclass(frozen=True, slots=True)
class GuardConfig:
    """What the guard accepts. ``bound_host`` is the interface the server listens on."""

    allowed_hosts: frozenset[str] = field(default_factory=frozenset)
    bound_host: str = "127.0.0.1"

    @classmethod
    def build(cls, bound_host: str = "127.0.0.1", extra: Iterable[str] = ()) -> GuardConfig:
        names = {*LOOPBACK_NAMES, *(host_name(h) for h in extra if h.strip())}
        if bound_host and bound_host not in ("0.0.0.0", "::"):
            names.add(host_name(bound_host) if ":" not in bound_host else bound_host.lower())
        return cls(frozenset(names), bound_host)

    def host_ok(self, host: str) -> bool:
        name = host_name(host)
        return bool(name) and (name in self.allowed_hosts or _is_ip(name))


def key_in_query(query: str) -> bool:
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name.lower() in KEY_PARAMS or value.startswith(TOKEN_PREFIX):
            return True
    return False


def same_origin(origin: str, host: str, scheme: str) -> bool:
    parts = urlsplit(origin)
    if not parts.scheme or not parts.netloc:
        return False  # "null" (sandboxed frames, file: pages) is never our own origin
    default = {"http": "80", "https": "443"}
    o_port = str(parts.port or default.get(parts.scheme, ""))
    h_name = host_name(host)
    h_port = host.rsplit(":", 1)[1] if ":" in host.rsplit("]", 1)[-1] else default.get(scheme, "")
    return parts.scheme == scheme and host_name(parts.netloc) == h_name and o_port == h_port


class Guard:
    """The ASGI middleware; ``keys`` is the server's key store (it knows the start state)."""

    def __init__(self, app: ASGIApp, keys: KeyStore, config: GuardConfig) -> None:
        self.app = app
        self.keys = keys
        self.config = config
        install_log_scrub()  # again here: the server configures logging after create_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path") or "")
        csp = DOCS_CSP if path.startswith(DOCS_PATHS) else CSP

        started = False

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers") or [])
                headers += [
                    (b"content-security-policy", csp.encode()),
                    (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                ]
                message = {**message, "headers": headers}
            await send(message)

        try:
            self.check(scope)
        except CitewiseError as exc:
            response = JSONResponse(
                {"error": {"code": exc.code, "message": str(exc)}}, status_code=exc.http_status
            )
            await response(scope, receive, with_headers)
            return
        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            # An error no handler answered: the 500 leaves through this middleware too, so
            # it carries the same headers as every other response (Starlette's own error
            # middleware sits outside every added one and would send it bare).
            _log.exception("unhandled error on %s %s", scope.get("method"), path)
            if started:
                raise  # part of a response is out: nothing more can be said on it
            response = JSONResponse(
                {"error": {"code": "INTERNAL", "message": "Internal error; see the server log."}},
                status_code=500,
            )
            await response(scope, receive, with_headers)

    def check(self, scope: Scope) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if not self.config.host_ok(host):
            raise HostNotAllowed(
                f"Host {host_name(host)!r} is not served here.",
                hint="Use the server's own address, or start it with --allowed-host NAME.",
            )
        if key_in_query(scope.get("query_string", b"").decode("latin-1")):
            raise KeyInURL(
                "API keys are not accepted in the URL.",
                hint="Send the key as 'Authorization: Bearer KEY' or 'X-API-Key: KEY'.",
            )
        if not self.keys.required:
            client = scope.get("client")
            if client is None or not is_loopback(str(client[0])):
                raise LoopbackOnly(
                    "This server has no API keys and answers loopback clients only.",
                    hint="Add a key with 'citewise keys add', or connect from this machine.",
                )
        if scope.get("method", "GET") not in SAFE_METHODS:
            origin = headers.get("origin")
            scheme = str(scope.get("scheme") or "http")
            if origin is not None and not same_origin(origin, host, scheme):
                raise CrossOrigin(
                    f"Cross-origin request from {origin[:100]!r} refused.",
                    hint="Call the API from the server's own page, or without an Origin header.",
                )
            if origin is None and headers.get("sec-fetch-site") in ("cross-site", "same-site"):
                raise CrossOrigin(
                    "Cross-site request refused.",
                    hint="Call the API from the server's own page.",
                )


class AccessLogScrub(logging.Filter):
    """Masks key-like query values in uvicorn's access log (the request is refused anyway)."""

    _TOKEN = re.compile(re.escape(TOKEN_PREFIX) + r"[A-Za-z0-9_\-]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self.scrub(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = self.scrub(record.msg)
        return True

    def scrub(self, text: str) -> str:
        if "?" not in text and TOKEN_PREFIX not in text:
            return text
        path, sep, query = text.partition("?")
        if sep:
            pairs = []
            for part in query.split("&"):
                name, eq, value = part.partition("=")
                if eq and (name.lower() in KEY_PARAMS or value.startswith(TOKEN_PREFIX)):
                    value = "[REDACTED]"
                pairs.append(name + eq + value)
            text = path + sep + "&".join(pairs)
        return self._TOKEN.sub("[REDACTED]", text)


def install_log_scrub() -> None:
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, AccessLogScrub) for f in logger.filters):
        logger.addFilter(AccessLogScrub())
