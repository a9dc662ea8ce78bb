"""The web page at / in a real browser (Debian's Chromium driven by Playwright).

Uploads a document, asks, opens a citation, and checks the evidence pane, status row and
trace drawer; text from documents must never become markup. A screenshot is saved under
tests/artifacts/ (gitignored).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._server import running_server

# CLI subprocesses in these tests run without the dense route (for speed)
pytestmark = [pytest.mark.browser, pytest.mark.subprocess, pytest.mark.usefixtures("dense_off")]


CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).parent / "artifacts"

DOC = """---
title: Key rotation guide
---
# Key rotation

To rotate keys, run `citewise rotate` every 90 days. <img src=x onerror="window.__pwned=1">

## Checks

Confirm the new key is active <b>before</b> retiring the old one.
"""


def _chromium() -> str:
    """Debian's Chromium, installed with apt when missing and possible; else skip."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(["apt-get", "update"], capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "chromium"], capture_output=True, timeout=1200)
    if not Path(CHROMIUM).exists():
        pytest.skip(
            "Chromium is not installed at /usr/bin/chromium and could not be installed "
            "(needs root and apt-get: apt-get install -y chromium)."
        )
    return CHROMIUM


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[object, str]]:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    home = tmp_path_factory.mktemp("web") / "home"
    with running_server(home) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1400})
        yield page, url
        browser.close()


def test_upload_ask_cite(browser_page: tuple[object, str], tmp_path: Path) -> None:
    page, url = browser_page
    p: object = page
    from playwright.sync_api import Page, expect

    assert isinstance(p, Page)
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    p.goto(url + "/")
    expect(p.locator("#kb-picker option")).to_have_count(1)

    # Documents view: upload, then see it listed with its versions.
    src = tmp_path / "rotation.md"
    src.write_text(DOC, "utf-8")
    p.click("#tab-docs")
    p.set_input_files("#upload-files", str(src))
    p.fill("#upload-prefix", "ops")
    p.click("#upload-form button[type=submit]")
    expect(p.locator("#upload-result")).to_contain_text("ops/rotation.md: added")
    row = p.locator('#docs-table tr[data-path="ops/rotation.md"]')
    expect(row).to_have_count(1)
    row.locator("button", has_text="versions").click()
    expect(p.locator("#versions-table tbody tr")).to_have_count(1)

    # Ask: one answer with inline citation markers.
    p.click("#tab-ask")
    p.fill("#question", "How do I rotate keys?")
    p.click("#ask-button")
    marker = p.locator(".cite-marker").first
    expect(marker).to_be_visible(timeout=60_000)
    expect(p.locator("#status-line")).to_have_attribute("data-outcome", "answered")
    expect(p.locator("#status-line")).to_contain_text("Answered from the documents")
    assert int(p.locator("#st-citations").inner_text()) >= 1
    expect(p.locator("#st-graph")).not_to_be_empty()

    # Open the citation: the excerpt is highlighted inside its section.
    marker.click()
    highlight = p.locator("#cite-highlight")
    expect(highlight).to_be_visible()
    expect(highlight).to_contain_text("To rotate keys")
    expect(p.locator("#cite-meta")).to_contain_text("ops/rotation.md")
    expect(p.locator("#cite-meta")).to_contain_text("lines")
    expect(p.locator("#cite-section")).to_have_text("Key rotation")
    expect(p.locator("#cite-text")).to_contain_text("# Key rotation")

    # Evidence pane grouped by role; trace drawer with replay id, routes and budget.
    expect(p.locator("#evidence")).to_be_visible()
    expect(p.locator('#evidence-groups [data-role="direct_evidence"] .fragment')).not_to_have_count(
        0
    )
    p.click("#trace-toggle")
    expect(p.locator("#tr-replay")).to_contain_text("rp_")
    expect(p.locator("#tr-routes tbody tr")).not_to_have_count(0)
    expect(p.locator("#tr-budget")).to_contain_text("tokens")

    # Document text is data: the planted markup is shown as text, never run or rendered.
    expect(p.locator("#evidence")).to_contain_text("<b>before</b>")
    expect(p.locator("#cite-text")).to_contain_text('<img src=x onerror="window.__pwned=1">')
    assert p.locator("#evidence img, #cite-text img, #answer img, #evidence b").count() == 0
    assert p.evaluate("window.__pwned") is None
    assert errors == []

    ARTIFACTS.mkdir(exist_ok=True)
    p.screenshot(path=str(ARTIFACTS / "web.png"), full_page=True)
    assert (ARTIFACTS / "web.png").stat().st_size > 0


STREAM_DOC = b"""# Backups

Nightly backups run at 02:00 UTC and are kept for 35 days. <i>restore</i> needs a ticket.

## Restore

To restore a backup, open a ticket and run `citewise restore --from <date>`.
"""


def test_the_page_streams_sentences_then_shows_the_same_answer(
    browser_page: tuple[object, str],
) -> None:
    """The ask box reads ``/ask?stream=true``: sentences appear one by one with clickable
    citations, and the final answer equals the non-streamed API answer."""
    import httpx

    page, url = browser_page
    p: object = page
    from playwright.sync_api import Page, expect

    assert isinstance(p, Page)
    files = [("files", ("ops/backups.md", STREAM_DOC, "text/markdown"))]
    assert httpx.post(url + "/kb/default/documents", files=files, timeout=60).status_code == 201
    question = "How do I restore a backup?"
    plain = httpx.post(url + "/kb/default/ask", json={"question": question}, timeout=60).json()
    assert plain["outcome"] == "answered"

    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    p.goto(url + "/")
    p.click("#tab-ask")
    # Record every streamed sentence the page shows before the final render replaces them.
    p.evaluate(
        """() => { window.__streamed = [];
        new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes)
          if (n.classList && n.classList.contains('streamed-sentence'))
            window.__streamed.push([n.textContent, n.querySelectorAll('.cite-marker').length]);
        }).observe(document.getElementById('answer'), { childList: true }); }"""
    )
    with p.expect_response(lambda r: "/ask?stream=true" in r.url) as streamed:
        p.fill("#question", question)
        p.click("#ask-button")
    assert streamed.value.headers["content-type"].startswith("text/event-stream")
    expect(p.locator("#status-line")).to_have_attribute("data-outcome", "answered", timeout=60_000)

    seen = p.evaluate("window.__streamed")
    assert seen, "no sentence was rendered from the stream"
    assert all(markers >= 1 for _, markers in seen)  # each streamed sentence is cited
    shown = p.locator("#answer").inner_text()
    assert " ".join(shown.split()) == " ".join(plain["answer"].split())
    assert p.locator("#answer .cite-marker").count() == plain["answer"].count("[")
    p.locator("#answer .cite-marker").first.click()
    expect(p.locator("#cite-meta")).to_contain_text("ops/backups.md")
    assert p.locator("#answer i").count() == 0  # document text stays text
    assert errors == []


def test_the_page_shows_the_second_source_state(
    browser_page: tuple[object, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the box ticked the page asks with ``verify_web`` and shows each citation's
    state next to its marker and in the citation view (degraded here: the product policy
    never fetches the stand-in page on 127.0.0.1)."""
    import httpx

    from tests._web_hosts import Route, searx_route, web_host
    from tests.test_web_verify import CLAUSE_B, Q_B, REG_B, reg_page

    page, url = browser_page
    p: object = page
    from playwright.sync_api import Page, expect

    assert isinstance(p, Page)
    files = [("files", ("regs/reg-b.md", REG_B, "text/markdown"))]
    assert httpx.post(url + "/kb/default/documents", files=files, timeout=60).status_code == 201
    with web_host() as pages, web_host() as engine:
        pages.routes["/p"] = Route(reg_page("2017", CLAUSE_B))
        engine.routes["/search"] = searx_route(
            [{"url": pages.url("/p"), "title": "", "content": ""}]
        )
        monkeypatch.setenv("CITEWISE_WEB_SEARCH_URL", engine.base)
        monkeypatch.setenv("CITEWISE_WEB_ALLOWED_HOSTS", "127.0.0.1")
        p.goto(url + "/")
        p.click("#tab-ask")
        p.check("#verify-web")
        p.fill("#question", Q_B)
        p.click("#ask-button")
        expect(p.locator("#answer .verify-state").first).to_have_text("degraded", timeout=60_000)
        p.locator("#answer .cite-marker").first.click()
        expect(p.locator("#cite-verify")).to_contain_text("second source: degraded")
        assert len(engine.seen) == 1 and pages.seen == []
