"""A PDF through the CLI and MCP: the add report names NEEDS_OCR/ENCRYPTED files, and
`ask`/`search`/`cite resolve` (CLI) and the MCP tools carry the page locator."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.test_mcp import _data, _run

FIXTURES = Path(__file__).parent / "fixtures" / "documents" / "pdf"
QUESTION = "What does Title I of the DMCA implement?"

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.setenv("CITEWISE_OCR", "off")  # linn.pdf stays needs_ocr, fast


def _home(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("dmca.pdf", "libreoffice-writer-password.pdf", "linn.pdf"):
        shutil.copy(FIXTURES / name, src / name)
    home = tmp_path / "home"
    added = run_cli("add", str(src), home=home)
    assert added.returncode != 0  # some files failed: the batch says so
    assert "ENCRYPTED" in added.stderr and "NEEDS_OCR" in added.stderr
    return home


def test_cli_json_and_human_output_carry_the_page(tmp_path: Path) -> None:
    home = _home(tmp_path)
    asked = json.loads(run_cli("ask", QUESTION, "--json", home=home, check=True).stdout)
    assert asked["outcome"] == "answered"
    cited = asked["citations"][0]
    assert cited["path"] == "dmca.pdf" and cited["locator"]["page"] >= 1
    page = cited["locator"]["page"]
    human = run_cli("ask", QUESTION, home=home, check=True).stdout
    assert f"dmca.pdf:p. {page}" in human
    shown = run_cli("cite", "resolve", cited["id"], home=home, check=True).stdout
    assert f"place:    p. {page}" in shown and "lines of the extracted text" in shown
    resolved = json.loads(run_cli("cite", "resolve", cited["id"], "--json", home=home).stdout)
    assert resolved["text"] == cited["excerpt"]
    assert resolved["extra"]["locator"]["page"] == page


def test_mcp_tools_carry_the_page(tmp_path: Path) -> None:
    home = _home(tmp_path)

    async def body(s: Any) -> dict[str, Any]:
        return {
            "recall": _data(await s.call_tool("recall_knowledge", {"query": "WIPO treaties"})),
            "ask": _data(await s.call_tool("ask", {"question": QUESTION})),
        }

    out = _run(home, None, body)
    hit = out["recall"]["hits"][0]
    assert hit["path"] == "dmca.pdf" and hit["locator"]["page"] >= 1
    assert out["ask"]["citations"][0]["locator"]["boxes"]
