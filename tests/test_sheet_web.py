"""A spreadsheet citation in the web page (issue 36): the cited table drawn as the sheet
shows it (column letters, row numbers, the sheet named), the cited cells highlighted, a
citation narrowed to one cell highlighting that cell only, everything escaped. Real
server on 127.0.0.1; the browser is Debian's Chromium (see tests/test_web.py)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import httpx
import pytest

from tests._server import running_server
from tests.test_web import ARGS, ARTIFACTS, _chromium

SHEET = "Harbour <b>2024"  # markup in a sheet name stays text
EVIL = "<img src=x onerror=window.__pwned=1>"


def _workbook() -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = SHEET
    ws.append(["Pier", "Vessel", "Cargo"])
    ws.append(["Pier 3", "Orca", "grain"])
    ws.append(["Pier 7", EVIL, "liquefied gas for the harbor"])
    ws.append(["Pier 9", "Tern", "timber"])
    # a second table beside the first, after a blank column: a table of its own
    for r, values in enumerate([["Crane", "Tonnes"], ["C1", 40], ["C2", 65]], start=1):
        for c, v in enumerate(values, start=5):
            ws.cell(row=r, column=c, value=v)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("sheetweb") / "home"
    with running_server(home) as url:
        files = [("files", ("harbour.xlsx", _workbook()))]
        r = httpx.post(url + "/kb/default/documents", files=files, timeout=120)
        assert r.status_code == 201, r.text
        yield url


@pytest.mark.browser
@pytest.mark.subprocess
def test_web_page_shows_the_sheet_and_highlights_the_cited_cells(served: str) -> None:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import expect

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        try:
            p = browser.new_page(viewport={"width": 1200, "height": 1200})
            errors: list[str] = []
            p.on("pageerror", lambda exc: errors.append(str(exc)))
            p.goto(served + "/")
            p.fill("#question", "Which pier takes liquefied gas for the harbor?")
            p.click("#ask-button")
            marker = p.locator('.cite-marker[title^="harbour.xlsx"]').first
            expect(marker).to_be_visible(timeout=60_000)
            marker.click()
            grid = p.locator("#cite-sheet table.sheet-grid")
            expect(grid).to_be_visible()
            expect(grid.locator("caption")).to_contain_text(f"sheet {SHEET}")
            # the first table only (the crane table is a table of its own), lettered
            heads = grid.locator("thead tr").first.locator("th").all_inner_texts()
            assert heads == ["", "A", "B", "C"]
            cited = grid.locator("td.sheet-cited").all_inner_texts()
            assert cited == ["Pier 7", EVIL, "liquefied gas for the harbor"]  # row 3, as text
            row3 = grid.locator("tbody tr").nth(1)
            assert row3.locator("th").inner_text() == "3"
            assert "Crane" not in grid.inner_text()
            assert p.locator("#cite-sheet img, #cite-sheet b").count() == 0
            # a citation narrowed to one cell highlights that cell only
            one = p.evaluate(
                """async () => {
                  const id = state.answer.citations.find((c) => c.path === "harbour.xlsx").id;
                  const cited = await api("GET", "/citations/" + encodeURIComponent(id));
                  const doc = await api("GET", "/kb/default/documents/harbour.xlsx?nodes=true");
                  cited.extra.locator.cells = cited.extra.locator.cells.split("!")[0] + "!C3";
                  showSheet(cited, doc.nodes);
                  return [...document.querySelectorAll("#cite-sheet td.sheet-cited")]
                    .map((td) => [td.id, td.textContent]);
                }"""
            )
            assert one == [["cite-cell", "liquefied gas for the harbor"]]
            got = p.evaluate("(ref) => sheetRange(ref)", "'Q1 ''n'''!B3:C5")
            assert got == {"c0": 2, "r0": 3, "c1": 3, "r1": 5}
            assert p.evaluate("() => window.__pwned === undefined")
            assert errors == []
            ARTIFACTS.mkdir(exist_ok=True)
            p.screenshot(path=str(ARTIFACTS / "web_sheet.png"), full_page=True)
        finally:
            browser.close()
