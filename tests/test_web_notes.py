"""The web page's Notes view (issue 40), in Debian's Chromium: the list, a note's sections,
its lines opening the same citation view as answers, links between notes, and document
text shown as text only (never markup). Skipped, with the reason, without Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citewise.kb import Home
from citewise.server.deps import STATIC
from tests._server import running_server
from tests.test_web import ARGS, ARTIFACTS, _chromium

pytestmark = [pytest.mark.browser, pytest.mark.subprocess, pytest.mark.usefixtures("dense_off")]

DOCS = {
    "glossary.md": (
        "# Glossary\n\n## Sync cursor\n\n"
        'A **sync cursor** is an opaque token <img src=x onerror="window.__pwned=1"> that '
        "records how far the service has read.\n\n## Batch\n\n"
        "A **batch** is the group of changes written in one transaction.\n"
    ),
    "ops.md": (
        "# Operations\n\n## Sync cursor\n\nUse `cursorctl` to reset the sync cursor of a "
        "batch.\n\n## Batch\n\nRun `cursorctl flush` to write the current batch.\n"
    ),
}


def test_the_notes_script_puts_document_text_on_the_page_as_text_only() -> None:
    js = (STATIC / "notes.js").read_text("utf-8")
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|\beval\(|new Function", js)


def test_notes_view_lists_shows_and_cites(tmp_path: Path) -> None:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import expect

    src = tmp_path / "src"
    for rel, text in DOCS.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, "utf-8")
    home = tmp_path / "home"
    with Home.open(home) as h:
        kb = h.kb()
        assert kb.add([src]).ok
        kb.build_notes()
    with running_server(home) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        p = browser.new_page(viewport={"width": 1200, "height": 1200})
        errors: list[str] = []
        p.on("pageerror", lambda exc: errors.append(str(exc)))
        p.goto(url + "/")
        expect(p.locator("#kb-picker option")).to_have_count(1)
        p.click("#tab-notes")
        expect(p.locator("#view-notes")).to_be_visible()
        expect(p.locator("#view-ask")).to_be_hidden()
        item = p.locator("#notes-list button", has_text="sync cursor")
        expect(item).to_have_count(1)
        item.click()
        expect(p.locator("#note-title")).to_have_text("sync cursor")
        expect(p.locator("#note-sections h3").first).to_have_text("Definition")
        line = p.locator(".note-line").first
        expect(line).to_contain_text('<img src=x onerror="window.__pwned=1">')
        # the line's citation opens the citation view with the quoted span marked
        line.locator(".cite-marker").click()
        expect(p.locator("#cite-highlight")).to_be_visible()
        expect(p.locator("#cite-highlight")).to_contain_text("A **sync cursor** is an opaque")
        expect(p.locator("#cite-meta")).to_contain_text("glossary.md")
        # a related note opens from the links
        p.locator("#note-links button", has_text="batch").click()
        expect(p.locator("#note-title")).to_have_text("batch")
        assert p.locator("#view-notes img").count() == 0
        assert p.evaluate("window.__pwned") is None
        # back to Ask: the citation view goes home, the notes view hides
        p.click("#tab-ask")
        expect(p.locator("#view-notes")).to_be_hidden()
        assert p.evaluate("document.getElementById('citation-view').parentNode.id") == "view-ask"
        assert errors == []
        ARTIFACTS.mkdir(exist_ok=True)
        p.click("#tab-notes")
        p.locator("#notes-list button", has_text="sync cursor").click()
        p.screenshot(path=str(ARTIFACTS / "web-notes.png"), full_page=True)
        browser.close()
