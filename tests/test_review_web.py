"""The Review page in a real browser (Debian's Chromium driven by Playwright, issue 38):
list, diff, approve, reject and release; document text in a diff is shown as text, never
run or rendered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from citewise.kb import Home
from tests._server import running_server
from tests.test_review import EXTRA, GUIDE, set_policy, write
from tests.test_web import ARGS, ARTIFACTS, _chromium

pytestmark = [pytest.mark.browser, pytest.mark.subprocess, pytest.mark.usefixtures("dense_off")]

MARKUP = '<img src=x onerror="window.__pwned=1">'
GUIDE_V2 = GUIDE.replace("90 days", f"45 days {MARKUP}")
REJECTED = "# Draft\n\nThe OCELOTRUBY draft should never be published.\n"
BIG = EXTRA + "Padding for the size rule. " * 30


@pytest.fixture
def held_home(tmp_path: Path) -> Iterator[Path]:
    """A published guide; then (review mode, quarantine over 600 bytes) a candidate that
    changes it, a candidate to reject and a quarantined file."""
    home = tmp_path / "home"
    with Home.open(home) as h:
        kb = h.kb()
        assert kb.add([write(tmp_path / "a", {"guide.md": GUIDE})]).ok
        set_policy(home, "publication: review\nquarantine: {max_bytes: 600}\n")
        kb.add([write(tmp_path / "b", {"guide.md": GUIDE_V2, "big.md": BIG})])
        kb.add([write(tmp_path / "c", {"draft.md": REJECTED})])
    yield home


def test_review_page_lists_diffs_approves_rejects_and_releases(held_home: Path) -> None:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import expect

    with running_server(held_home) as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        p = browser.new_page(viewport={"width": 1200, "height": 1400})
        errors: list[str] = []
        p.on("pageerror", lambda exc: errors.append(str(exc)))
        p.goto(url + "/")
        expect(p.locator("#kb-picker option")).to_have_count(1)
        p.click("#tab-review")
        expect(p.locator("#view-ask")).to_be_hidden()
        rows = p.locator("#review-table tbody tr")
        expect(rows).to_have_count(3)
        expect(p.locator("#review-policy")).to_contain_text("publication: review")
        expect(p.locator('#review-table tr[data-kind="quarantine"]')).to_contain_text("big.md")

        guide = p.locator('#review-table tr[data-kind="candidate"]', has_text="guide.md")
        guide.locator("button", has_text="show").click()
        diff = p.locator('#review-files .review-file[data-path="guide.md"] .diff')
        expect(diff.locator(".del")).to_contain_text("every 90 days")
        expect(diff.locator(".add")).to_contain_text(MARKUP)  # the markup is text
        assert p.locator("#review-files img").count() == 0
        expect(p.locator("#review-detail h3").first).to_have_text("changed guide.md")
        ARTIFACTS.mkdir(exist_ok=True)
        p.screenshot(path=str(ARTIFACTS / "review.png"), full_page=True)

        guide.locator("button", has_text="approve").click()
        expect(rows).to_have_count(2)
        draft = p.locator('#review-table tr[data-kind="candidate"]', has_text="draft.md")
        draft.locator("button", has_text="reject").click()
        expect(rows).to_have_count(1)
        p.locator('#review-table tr[data-kind="quarantine"] button', has_text="release").click()
        expect(rows).to_have_count(0)
        expect(p.locator("#review-empty")).to_be_visible()
        assert p.evaluate("window.__pwned") is None
        assert errors == []
        browser.close()

        docs = httpx.get(url + "/kb/default/documents").json()["documents"]
        assert sorted(d["path"] for d in docs) == ["big.md", "guide.md"]
        hits = httpx.post(url + "/kb/default/search", json={"query": "45 days"}).json()["hits"]
        assert any("45 days" in h["excerpt"] for h in hits)
        gone = httpx.post(url + "/kb/default/search", json={"query": "OCELOTRUBY"}).json()
        assert not any("OCELOTRUBY" in h["excerpt"] for h in gone["hits"])
