"""First-hour fixes of issue 39: each found by trying the project as a new user."""

from __future__ import annotations

import asyncio
import inspect
import io
import re
from collections.abc import Iterator
from importlib.metadata import version
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from typer.main import get_command
from typer.testing import CliRunner

from citewise.cli import output as ui
from citewise.cli.root import app
from citewise.kb import Home
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

    from citewise.facade.caller import LOCAL
    from citewise.facade.service import Service
    from citewise.mcp_server import build_server

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


def test_sync_names_each_stale_citation_and_its_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "retry.md").write_text(
        "# Retry\n\nThe default retry limit is 5 attempts for every job.\n", encoding="utf-8"
    )
    (folder / "keys.md").write_text(
        "# Keys\n\nRotate the signing keys every 90 days.\n", encoding="utf-8"
    )
    home = tmp_path / "home"
    with Home.open(home) as h:
        kb = h.kb()
        assert kb.sync(folder).ok
        retry = kb.ask("What is the default retry limit?")
        keys = kb.ask("How often are the signing keys rotated?")
    (retry_cite,) = [c.id for c in retry.citations]
    (keys_cite,) = [c.id for c in keys.citations]
    (folder / "retry.md").write_text(
        "# Retry\n\nThe default retry limit is 7 attempts for every job.\n", encoding="utf-8"
    )
    (folder / "keys.md").unlink()
    out = io.StringIO()
    monkeypatch.setattr(ui, "out", Console(file=out, width=400, highlight=False))

    result = CliRunner().invoke(app, ["sync", str(folder), "--home", str(home)])

    assert result.exit_code == 0, result.output
    lines = {ln.split()[2]: ln for ln in out.getvalue().splitlines() if ln.startswith("stale")}
    # after the colon: the document, the cited range and what changed (old -> new text)
    assert lines[retry.trace_id] == (
        f"stale answer {retry.trace_id} (1 citation(s)): retry.md lines 3-3 changed "
        '(cited span changed in version 2): "The default retry limit is 5 attempts for '
        'every job." -> "The default retry limit is 7 attempts for every job." '
        f"[{retry_cite}]; question: What is the default retry limit?"
    )
    assert lines[keys.trace_id] == (
        f"stale answer {keys.trace_id} (1 citation(s)): keys.md lines 3-3 deleted "
        f"(document removed) [{keys_cite}]; question: How often are the signing keys rotated?"
    )


FORMAT_GROUPS = (
    "Markdown, reST, plain text, HTML, XML",
    "CSV/TSV, RTF",
    "PDF, DOCX, PPTX, XLSX, ODT, EPUB",
    "DOC, XLS, PPT",
    "ODS, ODP",
)


@pytest.mark.parametrize("width", [60, 80, 120])
def test_add_help_never_splits_a_format_group(width: int) -> None:
    result = CliRunner().invoke(app, ["add", "--help"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= width  # rendered at the asked width
    for group in FORMAT_GROUPS:
        assert any(group in line for line in lines), f"{group!r} split at width {width}"


def _commands(command: Any, path: str = "citewise") -> Iterator[tuple[str, Any]]:
    yield path, command
    for name, sub in (getattr(command, "commands", None) or {}).items():
        yield from _commands(sub, f"{path} {name}")


def test_no_help_text_keeps_a_line_break_mid_sentence() -> None:
    # typer keeps the docstring's line breaks after a command's first paragraph, so there a
    # break must end a sentence or start an indented list line
    bad = []
    for path, command in _commands(get_command(app)):
        for paragraph in inspect.cleandoc(command.help or "").split("\n\n")[1:]:
            lines = paragraph.split("\n")
            for line, after in pairwise(lines):
                if not line.rstrip().endswith((".", ":", "!", "?")) and not after.startswith(" "):
                    bad.append(f"{path}: {line!r}")
    assert not bad
