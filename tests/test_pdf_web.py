"""A PDF citation over HTTP and in the web page: the cited page rendered server-side with
the cited boxes highlighted (real server on 127.0.0.1; the browser test uses Debian's
Chromium like tests/test_web.py)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from citewise.ingest.pdf_render import SCALE, pixel_boxes
from tests._server import running_server
from tests.test_web import ARGS, ARTIFACTS, _chromium

PDF = Path(__file__).parent / "fixtures" / "documents" / "pdf" / "dmca.pdf"
QUESTION = "What does Title I of the DMCA implement?"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("pdfweb") / "home"
    with running_server(home) as url:
        files = [("files", ("dmca.pdf", PDF.read_bytes(), "application/pdf"))]
        r = httpx.post(url + "/kb/default/documents", files=files, timeout=120)
        assert r.status_code == 201, r.text
        yield url


def _cited(url: str) -> dict[str, Any]:
    r = httpx.post(url + "/kb/default/ask", json={"question": QUESTION}, timeout=120)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["outcome"] == "answered"
    first: dict[str, Any] = body["citations"][0]
    return first


def test_citation_json_and_page_image_with_highlighted_boxes(served: str) -> None:
    c = _cited(served)
    loc = c["locator"]
    assert loc["page"] >= 1 and loc["boxes"]
    resolved = httpx.get(served + "/citations/" + c["id"], timeout=60).json()
    assert resolved["extra"]["format"] == "pdf"
    assert resolved["extra"]["locator"]["page"] == loc["page"]

    r = httpx.get(served + f"/citations/{c['id']}/page.png", timeout=60)
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(r.content)).convert("RGB")
    # US letter at 1.5 px per point
    assert image.size == (round(612 * SCALE), round(792 * SCALE))
    (left, top, right, bottom), *_ = pixel_boxes(loc["boxes"], 0, 612, 792, SCALE)
    assert 0 <= left < right <= image.width and 0 <= top < bottom <= image.height
    # the highlight tints the box: no pure white inside, pure white far outside
    inside = [image.getpixel((x, (top + bottom) // 2)) for x in range(left + 2, right - 2, 7)]
    assert all(px != (255, 255, 255) for px in inside)
    assert any(px[2] < 200 and px[0] > 150 for px in inside)  # yellow-ish: little blue
    assert image.getpixel((3, 3)) == (255, 255, 255)


def test_page_image_is_refused_for_a_non_pdf_citation(served: str) -> None:
    files = [("files", ("note.md", b"# Note\n\nPlain text citation.\n", "text/plain"))]
    assert httpx.post(served + "/kb/default/documents", files=files, timeout=60).is_success
    hit = httpx.post(
        served + "/kb/default/search",
        json={"query": "plain text citation", "mode": "lexical"},
        timeout=60,
    ).json()["hits"][0]
    assert hit["path"] == "note.md" and hit["locator"] is None
    r = httpx.get(served + f"/citations/{hit['citation_id']}/page.png", timeout=60)
    assert r.status_code == 400 and r.json()["error"]["code"] == "BAD_REQUEST"
    missing = httpx.get(served + "/citations/n_000000000000000000000000/page.png", timeout=60)
    assert missing.status_code == 404


@pytest.mark.browser
@pytest.mark.subprocess
def test_web_page_shows_the_cited_pdf_page(served: str) -> None:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import expect

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        try:
            p = browser.new_page(viewport={"width": 1200, "height": 1400})
            errors: list[str] = []
            p.on("pageerror", lambda exc: errors.append(str(exc)))
            p.goto(served + "/")
            p.fill("#question", QUESTION)
            p.click("#ask-button")
            marker = p.locator(".cite-marker").first
            expect(marker).to_be_visible(timeout=60_000)
            marker.click()
            expect(p.locator("#cite-meta")).to_contain_text("dmca.pdf")
            expect(p.locator("#cite-meta")).to_contain_text("page ")
            img = p.locator("#cite-pages img.cite-page").first
            expect(img).to_be_visible(timeout=30_000)
            p.wait_for_function(
                "() => { const i = document.querySelector('#cite-pages img');"
                " return i && i.complete && i.naturalWidth > 0; }"
            )
            assert img.evaluate("i => i.naturalWidth") == round(612 * SCALE)
            expect(p.locator("#evidence")).to_contain_text("dmca.pdf:page ")
            assert (
                p.locator(".cite-marker").first.get_attribute("title").startswith("dmca.pdf page ")
            )
            assert errors == []
            ARTIFACTS.mkdir(exist_ok=True)
            p.screenshot(path=str(ARTIFACTS / "web_pdf.png"), full_page=True)
        finally:
            browser.close()
