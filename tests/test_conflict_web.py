"""The Conflicts page in a real browser (Debian's Chromium driven by Playwright, issue 38):
a conflict an answer recorded is listed with both sides; a reader is refused with the
server's message naming the role; an editor outside the policy's publishers reads but
gets no form; a publisher resolves it with side A and sees the state change; the next
answer names the resolution. A document path carrying markup stays text."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from citewise.kb import Home
from citewise.server.auth import KeyStore
from tests._server import running_server
from tests.test_conflict_review import WHEN, set_policy
from tests.test_slot_conflicts import GUIDE, REPORT
from tests.test_web import ARGS, ARTIFACTS, _chromium

pytestmark = [pytest.mark.browser, pytest.mark.subprocess, pytest.mark.usefixtures("dense_off")]

STATIC = Path(__file__).parents[1] / "src" / "citewise" / "server" / "static"
# Markup in a file name: the page shows document paths, and a path is the document's to
# choose (no "/" in a name, so the tag has no closing form).
MARKED = "report<img src=x onerror=window.__pwned=1>.txt"


def test_the_conflicts_script_puts_document_text_on_the_page_as_text_only() -> None:
    js = (STATIC / "conflicts.js").read_text("utf-8")
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|\beval\(|new Function", js)
    page = (STATIC / "index.html").read_text("utf-8")
    assert '<script src="/static/conflicts.js"></script>' in page


def _home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Two documents stating different dates for one inspection (the report under a
    marked-up name); keys for a reader, an editor and the policy's one publisher."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / MARKED).write_text(REPORT, encoding="utf-8")
    (corpus / "guide.md").write_text(GUIDE, encoding="utf-8")
    home = tmp_path / "home"
    with Home.open(home) as h:
        kb = h.kb()
        assert kb.add([corpus]).ok
        set_policy(kb, "publishers: [alice]\n")
    keys = KeyStore(home)
    roles = {"rita": "reader", "bob": "editor", "alice": "editor"}
    return home, {name: keys.add(name, name, ["*"], role) for name, role in roles.items()}


def _ask(url: str, key: str) -> dict[str, object]:
    r = httpx.post(
        url + "/kb/default/ask", json={"question": WHEN}, headers={"X-API-Key": key}, timeout=120
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_conflicts_page_lists_both_sides_refuses_and_resolves(tmp_path: Path) -> None:
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import expect

    home, keys = _home(tmp_path)
    with running_server(home) as url, sync_api.sync_playwright() as pw:
        assert _ask(url, keys["rita"])["degradation"] == "conflict"  # recorded here
        browser = pw.chromium.launch(executable_path=exe, args=ARGS)
        p = browser.new_page(viewport={"width": 1200, "height": 1200})
        errors: list[str] = []
        p.on("pageerror", lambda exc: errors.append(str(exc)))
        p.add_init_script(f"localStorage.setItem('citewise-key', {keys['rita']!r})")
        p.goto(url + "/")
        expect(p.locator("#kb-picker option")).to_have_count(1)

        def use_key(name: str) -> None:
            p.fill("#api-key", keys[name])
            p.locator("#api-key").blur()  # the field's own change event, once

        # a reader: the server's 403, naming the role it needs
        p.click("#tab-conflicts")
        expect(p.locator("#view-ask")).to_be_hidden()
        expect(p.locator("#error")).to_contain_text("editor")
        expect(p.locator("#conflicts-list .conflict")).to_have_count(0)

        # an editor outside the publishers: both sides, no form
        use_key("bob")
        card = p.locator("#conflicts-list .conflict")
        expect(card).to_have_count(1)
        expect(p.locator("#error")).to_be_hidden()
        expect(card).to_have_attribute("data-state", "open")
        expect(p.locator("#conflicts-policy")).to_contain_text("conflict handling: degrade")
        expect(p.locator("#conflicts-policy")).to_contain_text("not resolve")
        side_a = card.locator('.conflict-side[data-side="a"]')
        side_b = card.locator('.conflict-side[data-side="b"]')
        expect(side_a.locator("h3")).to_have_text("side A: guide.md")
        expect(side_a).to_contain_text("19 April 2024")
        expect(side_b.locator("h3")).to_have_text(f"side B: {MARKED}")  # the markup is text
        expect(side_b).to_contain_text("12 March 2024")
        assert card.locator("form").count() == 0
        assert side_a.get_attribute("data-governs") is None  # open: no side governs

        # the publisher: resolve with side A, until a day, with a note
        use_key("alice")
        form = card.locator("form.conflict-resolve")
        expect(form).to_have_count(1)
        form.locator('select[name="governs"]').select_option("a")
        until = form.locator('input[name="until"]')
        until.fill("soon")  # not a day: the server's error names the form
        form.locator("button", has_text="resolve").click()
        expect(p.locator("#error")).to_contain_text("YYYY-MM-DD")
        expect(card).to_have_attribute("data-state", "open")
        until.fill("2999-12-31")
        form.locator('input[name="note"]').fill("<b>the guide</b> is current")
        form.locator("button", has_text="resolve").click()
        expect(card).to_have_attribute("data-state", "resolved")
        expect(side_a).to_have_attribute("data-governs", "true")
        expect(side_b).to_have_attribute("data-governs", "false")
        expect(form.locator('select[name="governs"]')).to_have_value("a")
        line = card.locator(".conflict-resolution")
        expect(line).to_contain_text("guide.md governs; resolved by alice")
        expect(line).to_contain_text("holds until 2999-12-31")
        expect(line).to_contain_text("<b>the guide</b> is current")
        assert p.locator("#view-conflicts img, #view-conflicts b").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        p.screenshot(path=str(ARTIFACTS / "conflicts.png"), full_page=True)

        # other tabs hide the view again
        p.click("#tab-review")
        expect(p.locator("#view-conflicts")).to_be_hidden()
        expect(p.locator("#view-review")).to_be_visible()
        assert p.evaluate("window.__pwned") is None

        # a reader of Chinese (Accept-Language): the same record in the catalogue's words
        zh = browser.new_context(locale="zh-CN").new_page()
        zh.on("pageerror", lambda exc: errors.append(str(exc)))
        zh.add_init_script(f"localStorage.setItem('citewise-key', {keys['bob']!r})")
        zh.goto(url + "/")
        expect(zh.locator("#tab-conflicts")).to_have_text("来源冲突")
        zh.click("#tab-conflicts")
        expect(zh.locator(".conflict-state")).to_have_text("已裁定")
        expect(zh.locator(".conflict-resolution")).to_contain_text("以 guide.md 为准；由 alice")
        assert errors == []
        browser.close()

        answered = _ask(url, keys["rita"])
        assert answered["degradation"] != "conflict"
        assert "19 April 2024" in str(answered["answer"])
        lines = answered["display"]["lines"]  # type: ignore[index]
        assert any(f"guide.md governs over {MARKED} until 2999-12-31" in x for x in lines)
