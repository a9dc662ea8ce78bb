"""A DOCX/XLSX/PPTX citation in words and in the web page: the locator said in words
("Sheet 'X' row 5, cells A5:C5", "slide 3 (notes)", "paragraph 12"), the row or paragraph
shown with the cited span marked (everything escaped), and `citewise ask` about the PDF
report, a DOCX and the XLSX sheets of tests/fixtures/documents citing page, paragraph and
cells. Real server on 127.0.0.1; the browser is Debian's Chromium (see tests/test_web.py)."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from citewise.config import IngestConfig
from citewise.core.locator import describe
from citewise.ingest.parse import parse_document
from tests._server import running_server
from tests.conftest import run_cli
from tests.test_web import ARGS, ARTIFACTS, _chromium

DOCS = Path(__file__).parent / "fixtures" / "documents"
EVIL_SHEET = "<i>Berths<i>"
EVIL_CELL = "<img src=x onerror=window.__pwned=1>"


def test_locators_in_words() -> None:
    cells = {"sheet": "Stanley Cups", "row": 5, "cells": "'Stanley Cups'!A5:C5"}
    assert describe(cells) == "Sheet 'Stanley Cups' row 5, cells A5:C5"
    assert describe({"slide": 3, "notes": True}) == "slide 3 (notes)"
    assert describe({"slide": 2, "notes": False, "table": 0, "row": 1}) == (
        "slide 2, table 1, row 2"
    )
    assert describe({"paragraph": 11}) == "paragraph 12"  # 0-based in JSON, 1-based in words
    assert describe({"paragraph": 1, "footnote": "1"}) == "footnote 1 (after paragraph 2)"
    assert describe({"table": 0, "row": 1}) == "table 1, row 2"
    assert describe({"chapter": "ch1.xhtml", "spine_index": 0}) == "chapter ch1.xhtml"
    assert describe({"page": 4, "ocr": True, "degraded": "ocr"}) == (
        "page 4 (OCR) (approximate: ocr)"
    )
    rows = {**cells, "parts": [cells, {**cells, "row": 6, "cells": "'Stanley Cups'!A6:C6"}]}
    assert describe(rows) == (
        "Sheet 'Stanley Cups' row 5, cells A5:C5; Sheet 'Stanley Cups' row 6, cells A6:C6"
    )
    assert describe(None) == "" and describe({}) == ""


def _corpus(root: Path) -> Path:
    root.mkdir()
    shutil.copy(DOCS / "pdf" / "dmca.pdf", root / "dmca.pdf")
    shutil.copy(DOCS / "office" / "stanley-cups.xlsx", root / "stanley-cups.xlsx")
    shutil.copy(DOCS / "office" / "docx2python-example-small.docx", root / "example.docx")
    return root


@pytest.mark.subprocess
def test_cli_ask_cites_pdf_page_docx_paragraph_and_xlsx_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    home = tmp_path / "home"
    run_cli("add", str(_corpus(tmp_path / "corpus")), home=home, check=True)

    def ask(question: str) -> list[dict[str, object]]:
        out = json.loads(run_cli("ask", question, "--json", home=home, check=True).stdout)
        assert out["outcome"] == "answered", out
        cited: list[dict[str, object]] = out["citations"]
        for c in cited:  # every excerpt is what `cite resolve` returns
            shown = json.loads(run_cli("cite", "resolve", str(c["id"]), "--json", home=home).stdout)
            assert shown["text"] == c["excerpt"]
        return cited

    pdf = ask("What does the DMCA say about online service provider liability?")
    assert any("online service providers" in str(c["excerpt"]) for c in pdf)
    parsed = parse_document(
        (DOCS / "pdf" / "dmca.pdf").read_bytes(),
        name="dmca.pdf",
        kb="kb",
        doc_path="dmca.pdf",
        config=IngestConfig(),
    )
    for c in pdf:  # the cited page is the page whose paragraph holds the excerpt
        assert c["path"] == "dmca.pdf"
        start = int(str(c["char_start"]))
        holder = next(
            n for n in parsed.nodes if n.kind == "paragraph" and n.char_start <= start < n.char_end
        )
        assert c["locator"]["page"] == holder.attrs["locator"]["page"]  # type: ignore[index]

    leafs = ask("How many Stanley Cups have the Maple Leafs won?")
    assert {
        "sheet": "Stanley Cups",
        "row": 5,
        "cells": "'Stanley Cups'!A5:C5",
    } in [c["locator"] for c in leafs if c["excerpt"] == "Maple Leafs | TOR | 13"]
    blues = ask("Which team is in STL?")
    assert blues[0]["excerpt"] == "Blues | STL | 1"
    assert blues[0]["locator"] == {
        "sheet": "Stanley Cups",
        "row": 3,
        "cells": "'Stanley Cups'!A3:C3",
    }

    docx = ask("What is the text outside the table?")
    assert docx[0]["path"] == "example.docx" and docx[0]["excerpt"] == "Text outside table"
    assert docx[0]["locator"] == {"paragraph": 0}
    human = run_cli("ask", "What is the text outside the table?", home=home, check=True).stdout
    assert "example.docx:paragraph 1" in human  # the label counts from 1, as the page does


def _evil_xlsx() -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = EVIL_SHEET
    ws.append(["Pier", "Vessel", "Cargo"])
    ws.append(["Pier 3", "Orca", "grain"])
    ws.append(["Pier 7", EVIL_CELL, "liquefied gas for the harbor"])
    ws.append(["Pier 9", "Tern", "timber"])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("fmtweb") / "home"
    with running_server(home) as url:
        files = [
            ("files", ("stanley-cups.xlsx", (DOCS / "office" / "stanley-cups.xlsx").read_bytes())),
            ("files", ("berths.xlsx", _evil_xlsx())),
            ("files", ("tables.docx", (DOCS / "office" / "word_tables.docx").read_bytes())),
        ]
        r = httpx.post(url + "/kb/default/documents", files=files, timeout=120)
        assert r.status_code == 201, r.text
        yield url


def test_resolved_citation_carries_the_locator_in_words(served: str) -> None:
    hit = httpx.post(
        served + "/kb/default/search",
        json={"query": "Maple Leafs TOR", "mode": "lexical"},
        timeout=60,
    ).json()["hits"][0]
    resolved = httpx.get(served + "/citations/" + hit["citation_id"], timeout=60).json()
    loc = resolved["extra"]["locator"]
    assert resolved["extra"]["locator_words"] == describe(loc)
    assert resolved["extra"]["locator_words"].startswith("Sheet 'Stanley Cups")


def _open_first_citation(page: object, url: str, question: str) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.goto(url + "/")
    page.fill("#question", question)
    page.click("#ask-button")
    marker = page.locator(".cite-marker").first
    expect(marker).to_be_visible(timeout=60_000)


@pytest.mark.browser
@pytest.mark.subprocess
def test_web_page_opens_an_xlsx_and_a_docx_citation_at_its_row(served: str) -> None:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import expect

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        try:
            p = browser.new_page(viewport={"width": 1200, "height": 1200})
            errors: list[str] = []
            p.on("pageerror", lambda exc: errors.append(str(exc)))

            _open_first_citation(p, served, "Which pier takes liquefied gas for the harbor?")
            markers = p.locator(".cite-marker")
            titles = [markers.nth(i).get_attribute("title") or "" for i in range(markers.count())]
            index = next(i for i, t in enumerate(titles) if t.startswith("berths.xlsx"))
            markers.nth(index).click()
            where = p.locator("#cite-where")
            expect(where).to_contain_text(f"Sheet '{EVIL_SHEET}' row 3, cells A3:C3")
            # the row is the context; the cited span is marked; markup stays text
            expect(p.locator("#cite-text")).to_contain_text(EVIL_CELL)
            expect(p.locator("#cite-highlight")).to_contain_text("Pier 7")
            assert p.locator("#cite-text").inner_text().strip().startswith("Pier 7")
            assert p.locator("#citation-view i, #citation-view img").count() == 0
            assert p.evaluate("() => window.__pwned === undefined")

            question = "What does the uniform table hold in Cell 2.1?"
            asked = httpx.post(served + "/kb/default/ask", json={"question": question}, timeout=120)
            row = next(
                c
                for c in asked.json()["citations"]
                if c["path"] == "tables.docx" and "row" in (c["locator"] or {})
            )
            _open_first_citation(p, served, question)
            title = f"tables.docx lines {row['line_start']}-{row['line_end']}"
            p.locator(f'.cite-marker[title="{title}"]').first.click()
            expect(p.locator("#cite-where")).to_contain_text(describe(row["locator"]))
            expect(p.locator("#cite-where")).to_contain_text("table 1, row ")
            expect(p.locator("#cite-highlight")).to_contain_text("Cell 2.1")
            assert errors == []
            ARTIFACTS.mkdir(exist_ok=True)
            p.screenshot(path=str(ARTIFACTS / "web_office.png"), full_page=True)
        finally:
            browser.close()
