"""First-hour fixes of issue 39: each found by trying the project as a new user."""

from __future__ import annotations

import asyncio
import re
from importlib.metadata import version
from pathlib import Path

import httpx
from typer.testing import CliRunner

from citewise.cli.root import app
from tests._server import running_server


def test_cli_version_prints_the_installed_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"citewise {version('citewise')}"


def test_health_reports_the_installed_version(tmp_path: Path) -> None:
    with running_server(tmp_path / "home") as url:
        body = httpx.get(url + "/health", timeout=30).json()
    assert body == {"status": "ok", "auth": "none", "version": version("citewise")}


def test_mcp_server_info_carries_the_installed_version() -> None:
    from mcp import Client

    from citewise.mcp_server import build_server
    from citewise.server.auth import LOCAL
    from citewise.server.service import Service

    server = build_server(Service.__new__(Service), LOCAL)

    async def info() -> tuple[str, str]:
        async with Client(server) as client:
            assert client.server_info is not None
            return client.server_info.name, client.server_info.version

    assert asyncio.run(info()) == ("citewise", version("citewise"))


def test_the_page_has_an_icon_and_no_icon_request_is_a_404(tmp_path: Path) -> None:
    with running_server(tmp_path / "home") as url, httpx.Client(base_url=url) as c:
        page = c.get("/").text
        icons = re.findall(r'<link rel="icon"[^>]*href="([^"]+)"', page)
        assert icons, "the page names no icon, so browsers ask for /favicon.ico"
        for href in [*icons, "/favicon.ico"]:
            r = c.get(href)
            assert r.status_code == 200, href
            assert r.headers["content-type"].startswith("image/svg+xml"), href
            assert r.text.lstrip().startswith("<svg"), href
