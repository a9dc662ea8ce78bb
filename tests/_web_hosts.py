"""Local web hosts that speak real HTTP on 127.0.0.1, for the second-source tests.

:class:`WebHost` serves a mutable route table from a thread: each route is a
:class:`Route` (status, headers, body) or a callable that writes the response itself
(slow bodies, endless bodies). Every request is recorded (path and Host header) so a test
can prove what was, and was not, asked for. :func:`searx_route` answers like SearXNG's
``/search?format=json`` from a list of results.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Raw:
    """A route that writes the whole response itself."""

    write: Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Dynamic:
    """A route computed from the query string."""

    answer: Callable[[dict[str, list[str]]], Route]


@dataclass
class WebHost:
    port: int
    routes: dict[str, Route | Raw | Dynamic]
    seen: list[tuple[str, str]] = field(default_factory=list)  # (path with query, Host)
    sni: list[str | None] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


def html_page(title: str, *paragraphs: str) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>".encode()


def searx_route(results: list[dict[str, str]]) -> Dynamic:
    """A SearXNG JSON answer: ``{"query": ..., "results": [{url, title, content}]}``."""

    def answer(query: dict[str, list[str]]) -> Route:
        doc: dict[str, Any] = {"query": query.get("q", [""])[0], "results": results}
        return Route(json.dumps(doc).encode(), content_type="application/json")

    return Dynamic(answer)


def slow_body(chunks: int, delay: float) -> Raw:
    def write(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.end_headers()
        for _ in range(chunks):
            h.wfile.write(b"<p>slow</p>")
            h.wfile.flush()
            time.sleep(delay)

    return Raw(write)


def _endless(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/plain")
    h.end_headers()
    block = b"x" * 65536
    try:
        for _ in range(2000):
            h.wfile.write(block)
    except (BrokenPipeError, ConnectionResetError):
        pass


#: No Content-Length, then more bytes than any cap.
ENDLESS = Raw(_endless)


def self_signed(name: str, folder: Path) -> tuple[Path, Path]:
    """A certificate for ``name`` (its own CA) and its key, as PEM files in ``folder``."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / f"{name}.crt", folder / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@contextmanager
def web_host(
    routes: dict[str, Any] | None = None, *, tls: tuple[Path, Path] | None = None
) -> Iterator[WebHost]:
    """Serve ``routes``; with ``tls`` (cert, key) over HTTPS, recording each TLS server name
    (SNI) the clients sent in ``host.sni``."""
    host = WebHost(0, dict(routes or {}))

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            host.seen.append((self.path, self.headers.get("Host", "")))
            route = host.routes.get(parts.path)
            if route is None:
                self.send_error(404)
                return
            if isinstance(route, Raw):
                route.write(self)
                return
            if isinstance(route, Dynamic):
                route = route.answer(parse_qs(parts.query))
            self.send_response(route.status)
            self.send_header("Content-Type", route.content_type)
            self.send_header("Content-Length", str(len(route.body)))
            for k, v in route.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(route.body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if tls is not None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*tls)

        def note_sni(sock: ssl.SSLObject, name: str | None, _ctx: ssl.SSLContext) -> None:
            host.sni.append(name)

        ctx.sni_callback = note_sni  # type: ignore[assignment]
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    host.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield host
    finally:
        server.shutdown()
        server.server_close()
