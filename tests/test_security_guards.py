"""Issue 13, items 1, 6 and 9 (key in URL): authentication never switches off, keyless
servers answer loopback clients only (per request), cross-site writes and foreign Host
headers are refused, and every response carries the browser hardening headers.

Real servers on this machine: 127.0.0.1, and 0.0.0.0 reached through this machine's own
non-loopback address when it has one; the ASGI-level client address stands in otherwise.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from citewise.server.auth import KeyStore
from tests._server import running_server, serving
from tests.conftest import run_cli

DOC = b"# Runbook\n\nRestart the pump before noon.\n"
STATIC = Path(__file__).resolve().parents[1] / "src" / "citewise" / "server" / "static"


pytestmark = pytest.mark.usefixtures("dense_off")


def _files(name: str = "run.md", data: bytes = DOC) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, data, "text/markdown"))]


def _code(r: httpx.Response) -> str:
    code: str = r.json()["error"]["code"]
    return code


# -- item 1: authentication cannot switch off at run time ---------------------------------
@pytest.mark.subprocess
def test_removing_the_last_key_or_the_keys_file_keeps_requiring_keys(tmp_path: Path) -> None:
    home = tmp_path / "home"
    token = KeyStore(home).add("ops", "ops", ["*"])
    with running_server(home) as url:
        ok = httpx.get(url + "/kb", headers={"X-API-Key": token})
        assert ok.status_code == 200
        assert run_cli("keys", "remove", "ops", home=home, check=True).returncode == 0
        for method, path, body in (
            ("GET", "/kb", None),
            ("POST", "/kb", {"name": "opened"}),
            ("DELETE", "/kb/default?force=true", None),
            ("GET", "/health/models", None),
        ):
            r = httpx.request(method, url + path, json=body)
            assert r.status_code == 401 and _code(r) == "UNAUTHORIZED", (path, r.text)
        assert httpx.get(url + "/health").json()["auth"] == "api_keys"
        (home / "keys.yaml").unlink()
        r = httpx.post(url + "/kb/default/documents", files=_files())
        assert r.status_code == 401 and _code(r) == "UNAUTHORIZED"
        # A broken keys file is no way in either.
        (home / "keys.yaml").write_text("keys: [unclosed", "utf-8")
        assert httpx.get(url + "/kb").status_code >= 400
    (home / "keys.yaml").unlink()
    with running_server(home) as url:  # restarted keyless: nothing was written meanwhile
        assert [(k["name"], k["document_count"]) for k in httpx.get(url + "/kb").json()] == [
            ("default", 0)
        ]


def test_a_key_added_while_running_stays_required_after_removal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_server(home) as url:
        assert httpx.get(url + "/kb").status_code == 200  # keyless: loopback is served
        KeyStore(home).add("tmp", "tmp", ["*"])
        assert httpx.get(url + "/kb").status_code == 401
        KeyStore(home).remove("tmp")
        assert httpx.get(url + "/kb").status_code == 401


def test_keyless_app_refuses_a_non_loopback_client_address(tmp_path: Path) -> None:
    """Keyless: a client address that is not loopback is refused, per request (ASGI level:
    tests send traffic only to loopback, so the far client is given as the ASGI peer)."""
    from citewise.kb import Home
    from citewise.server.app import create_app

    async def get(app: object, client: tuple[str, int]) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=client)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return await c.get("/kb")

    with Home.open(tmp_path / "home") as h:
        app = create_app(h, bound_host="0.0.0.0")
        far = asyncio.run(get(app, ("203.0.113.9", 40000)))
        assert far.status_code == 403 and _code(far) == "LOOPBACK_ONLY"
        near = asyncio.run(get(app, ("127.0.0.1", 40000)))
        assert near.status_code == 200 and near.json()[0]["name"] == "default"


# -- item 6: cross-site writes, DNS rebinding, browser hardening headers -------------------
@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("guards") / "home"
    with running_server(home) as url:
        yield url


def _total(url: str) -> int:
    total: int = httpx.get(url + "/kb/default/documents").json()["total"]
    return total


def test_cross_origin_writes_are_refused_and_write_nothing(open_server: str) -> None:
    url = open_server
    before = _total(url)
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": url.replace("127.0.0.1", "localhost").rsplit(":", 1)[0] + ":1"},
        {"Sec-Fetch-Site": "cross-site"},
    ):
        r = httpx.post(url + "/kb/default/documents", files=_files(), headers=headers)
        assert r.status_code == 403 and _code(r) == "CROSS_ORIGIN", (headers, r.text)
        r = httpx.delete(url + "/kb/default?force=true", headers=headers)
        assert r.status_code == 403 and _code(r) == "CROSS_ORIGIN"
    assert _total(url) == before
    # The server's own page (same origin) and non-browser clients (no Origin) may write.
    own = httpx.post(url + "/kb/default/documents", files=_files(), headers={"Origin": url})
    assert own.status_code == 201, own.text
    plain = httpx.post(url + "/kb/default/documents", files=_files("b.md"))
    assert plain.status_code == 201 and _total(url) == before + 2
    # Reads from another origin are not state-changing; CORS keeps their answers unread.
    assert httpx.get(url + "/kb", headers={"Origin": "http://evil.example"}).status_code == 200


def test_only_expected_host_headers_are_answered(open_server: str) -> None:
    url = open_server
    port = url.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", "attacker.localhost.example"):
        r = httpx.get(url + "/kb", headers={"Host": host})
        assert r.status_code == 400 and _code(r) == "HOST_NOT_ALLOWED", host
        r = httpx.post(url + "/kb/default/documents", files=_files(), headers={"Host": host})
        assert r.status_code == 400
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "192.0.2.7"):
        r = httpx.get(url + "/kb", headers={"Host": host})
        assert r.status_code == 200, (host, r.text)


def test_allowed_hosts_and_the_bound_host_are_configurable(tmp_path: Path) -> None:
    from citewise.kb import Home
    from citewise.server.app import create_app

    async def get(app: object, host: str) -> int:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as c:
            return (await c.get("/health", headers={"Host": host})).status_code

    with Home.open(tmp_path / "home") as h:
        app = create_app(h, bound_host="kb.lan", allowed_hosts=["Docs.Internal:8765"])
        got = {
            host: asyncio.run(get(app, host)) for host in ("kb.lan:80", "docs.internal", "x.lan")
        }
    assert got == {"kb.lan:80": 200, "docs.internal": 200, "x.lan": 400}


def test_every_response_carries_csp_and_framing_headers(open_server: str) -> None:
    url = open_server
    for r in (
        httpx.get(url + "/"),
        httpx.get(url + "/static/app.js"),
        httpx.get(url + "/kb"),
        httpx.get(url + "/kb/nope"),
        httpx.get(url + "/kb", headers={"Host": "evil.example"}),
    ):
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, r.url
        assert "unsafe-inline" not in csp
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"


def test_the_web_page_needs_nothing_the_csp_forbids() -> None:
    """The page loads only same-origin files and has no inline script, style or handler."""
    html = (STATIC / "index.html").read_text("utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert not re.search(r"<style|\sstyle=|\son[a-z]+=", html, re.I)
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    js = (STATIC / "app.js").read_text("utf-8")
    assert not re.search(r"\beval\(|new Function|setAttribute\(\s*['\"](style|on)", js)


# -- item 9: a key in the query string -----------------------------------------------------
class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_key_in_query_string_is_refused_and_never_logged(tmp_path: Path) -> None:
    from citewise.kb import Home
    from citewise.server.app import create_app

    home = tmp_path / "home"
    token = KeyStore(home).add("ops", "ops", ["*"])
    capture = _Capture()
    with Home.open(home) as h, serving(create_app(h), log_level="info") as url:
        logging.getLogger("uvicorn.access").addHandler(capture)
        try:
            for query in (f"api_key={token}", f"key={token}", f"q=1&x={token}", "token=abc"):
                r = httpx.get(f"{url}/kb?{query}")
                assert r.status_code == 400 and _code(r) == "KEY_IN_URL", query
                assert token not in r.text
            assert httpx.get(url + "/kb", headers={"X-API-Key": token}).status_code == 200
        finally:
            logging.getLogger("uvicorn.access").removeHandler(capture)
    assert any("/kb?" in line for line in capture.lines), capture.lines
    assert all(token not in line for line in capture.lines)
