"""The evidence panel shows excerpts as the reader sees them (issue 36): a Markdown
excerpt rendered (bold, links) with its planted markup still text, a PDF excerpt with its
column line breaks joined, and the exact source one click away. Real server on 127.0.0.1,
Debian's Chromium (see tests/test_web.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._server import running_server
from tests.test_web import ARGS, ARTIFACTS, _chromium

pytestmark = [pytest.mark.browser, pytest.mark.subprocess, pytest.mark.usefixtures("dense_off")]

DOCS = Path(__file__).parent / "fixtures" / "documents"
GUIDE = b"""# Cipher guide

**Rotate the signing keys** <img src=x onerror="window.__pwned=1"> every 90 days, as the
[key policy](https://example.org/policy) says.
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("displayweb") / "home"
    with running_server(home) as url:
        files = [
            ("files", ("guide.md", GUIDE)),
            ("files", ("dmca.pdf", (DOCS / "pdf" / "dmca.pdf").read_bytes())),
        ]
        r = httpx.post(url + "/kb/default/documents", files=files, timeout=120)
        assert r.status_code == 201, r.text
        yield url


def _ask(page: object, url: str, question: str) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.goto(url + "/")
    page.fill("#question", question)
    page.click("#ask-button")
    expect(page.locator(".cite-marker").first).to_be_visible(timeout=60_000)


def test_markdown_rendered_pdf_reflowed_source_kept(served: str) -> None:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import expect

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        try:
            p = browser.new_page(viewport={"width": 1200, "height": 1400})
            errors: list[str] = []
            p.on("pageerror", lambda exc: errors.append(str(exc)))

            _ask(p, served, "How often are the signing keys rotated?")
            md = p.locator('.fragment .shown[data-shape="markdown"]').first
            expect(md).to_be_visible(timeout=30_000)
            expect(md.locator("strong")).to_contain_text("Rotate the signing keys")
            link = md.locator("a")
            expect(link).to_have_attribute("href", "https://example.org/policy")
            expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")
            assert "**" not in md.inner_text()
            expect(md).to_contain_text('<img src=x onerror="window.__pwned=1">')  # text
            assert p.locator("#evidence img, #evidence script").count() == 0
            # the exact source stays one click away
            source = p.locator(".fragment details.source").first
            source.locator("summary").click()
            expect(source.locator("pre")).to_contain_text("**Rotate the signing keys**")

            _ask(p, served, "What does the DMCA say about online service provider liability?")
            pdf = p.locator('.fragment .shown[data-shape="pdf"]').first
            expect(pdf).to_be_visible(timeout=30_000)
            raw = pdf.locator("xpath=ancestor::div[contains(@class,'fragment')]//details/pre")
            raw_text = raw.first.text_content() or ""
            shown = pdf.text_content() or ""
            assert "\n" in raw_text.strip()  # the PDF's own line breaks
            assert "\n" not in shown.strip()  # joined inside the paragraph
            assert " ".join(shown.split()) == " ".join(raw_text.replace("-\n", "-").split())
            assert p.evaluate("() => window.__pwned === undefined")
            assert errors == []
            ARTIFACTS.mkdir(exist_ok=True)
            p.screenshot(path=str(ARTIFACTS / "web_display.png"), full_page=True)
        finally:
            browser.close()
