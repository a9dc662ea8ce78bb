"""The web page's status texts in English and Chinese in a real browser (issue 39), and
the screenshots docs/img/ shows: the same :func:`bench.web_screenshots.capture` that
writes them, run into a temporary folder. Then every view's labels (Documents, the trace
drawer, Review, Notes) in the language the browser asks for, and after a Chinese question
in Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.analysis.language import Lang
from citewise.core.messages import keys_under, table
from tests._server import running_server
from tests.test_review_web import held_home
from tests.test_web import _chromium

__all__ = ["held_home"]  # the Review page's held changes (a fixture shared with its test)

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]


def test_status_line_in_english_and_chinese(tmp_path: Path) -> None:
    _chromium()
    pytest.importorskip("playwright.sync_api")
    from bench.web_screenshots import capture

    seen = {s.shot.name: s for s in capture(tmp_path)}

    answered = seen["answered"]
    assert answered.outcome == "answered" and answered.degradation == "none"
    assert answered.status_line.startswith("Answered from the documents")
    assert answered.notes == [
        "Set aside: Harbor Release Notes 2023 (2023.2), superseded by Harbor Release Notes "
        "2024 (2024.2)."
    ]
    assert answered.ask_label == "Ask" and answered.lang == "en"

    degraded = seen["degraded"]
    assert degraded.outcome == "answered" and degraded.degradation != "none"
    line = degraded.status_line
    assert line.startswith("Answered") and "only in part" in line  # says what is partial
    assert "sufficient" not in line and "partial_coverage" not in line

    refused = seen["refused"]
    assert refused.outcome == "insufficient_evidence"
    assert refused.status_line.startswith("Not answered") and "Kafka" in refused.status_line
    assert "degraded" not in refused.status_line

    chinese = seen["answered-zh"]  # a Chinese question: Chinese status and labels
    assert chinese.status_line.startswith("已根据文档作答")
    assert chinese.ask_label == "提问" and chinese.lang == "zh-CN"
    for s in seen.values():
        assert s.path.stat().st_size > 10_000, s.path


# -- the labels of every view (Documents, trace drawer, Review, Notes) ------------------
_LABELLED = """() => {
  const seen = [];
  for (const n of document.querySelectorAll("[data-label]"))
    seen.push([n.dataset.label, n.textContent]);
  for (const n of document.querySelectorAll("[data-label-placeholder]"))
    seen.push([n.dataset.labelPlaceholder, n.placeholder]);
  for (const n of document.querySelectorAll("[data-label-aria]"))
    seen.push([n.dataset.labelAria, n.getAttribute("aria-label")]);
  return seen;
}"""


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Chromium for the tests below (Playwright allows one sync driver at a time)."""
    _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    from bench.web_screenshots import ARGS, CHROMIUM

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def served(chromium: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """The example corpus with its topic notes, served, and a Chromium to look at it."""
    from bench.web_screenshots import serving

    home = tmp_path_factory.mktemp("labels") / "home"
    with serving(home, notes=True) as url:
        yield chromium, url


def _open(served: tuple[Any, str], locale: str) -> Any:
    browser, url = served
    page = browser.new_page(viewport={"width": 1100, "height": 900}, locale=locale)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(url + "/")
    return page


def _wait_for(page: Any, lang: Lang) -> dict[str, str]:
    """The labels in ``lang``, once the page shows them (its tab names are labels)."""
    words = table("web.", lang)
    page.wait_for_function(
        "t => document.getElementById('tab-notes').textContent === t", arg=words["web.tab_notes"]
    )
    return words


def _all_labels_in(page: Any, lang: Lang) -> None:
    """Every labelled element and placeholder of every view shows ``lang``'s text; in
    Chinese none keeps its English text."""
    words, english = table("web.", lang), table("web.", "en")
    seen = page.evaluate(_LABELLED)
    assert {key for key, _ in seen} >= set(keys_under("web.tab_")), seen
    for key, text in seen:
        assert text == words[key], (key, text)
        if lang == "zh":
            assert text != english[key], (key, text)


def _views_in(page: Any, lang: Lang) -> None:
    """What the scripts write in the Documents, Review and Notes views is in ``lang``."""
    from playwright.sync_api import expect

    words = table("web.", lang)
    page.click("#tab-docs")
    row = page.locator("#docs-table tbody tr").first
    expect(row.locator("button")).to_have_text([words["web.btn_versions"], words["web.btn_delete"]])
    row.locator("button").first.click()
    expect(page.locator("#versions-table tbody tr").first).to_be_visible()
    expect(page.locator("#versions h2 [data-label]")).to_have_text(words["web.docs_versions_of"])

    page.click("#tab-review")
    expect(page.locator("#review-empty")).to_have_text(words["web.review_empty"])
    policy = words["web.review_policy"].split("{")[0]
    expect(page.locator("#review-policy")).to_contain_text(policy)

    page.click("#tab-notes")
    first = page.locator("#notes-list button").first
    expect(first).to_be_visible()
    count = page.locator("#notes-list button").count()
    expect(page.locator("#notes-meta")).to_have_text(words["web.notes_count"].format(count=count))
    first.click()
    lines_word = words["web.note_line_where"].split("{path}")[1].split("{start}")[0]
    expect(page.locator("#note-sections .note-line .meta").first).to_contain_text(lines_word)
    expect(page.locator("#note-meta")).to_contain_text(words["web.note_meta"].split("{")[0])
    sections = page.locator("#note-sections h3").all_inner_texts()
    assert sections and set(sections) <= {words[k] for k in keys_under("web.note_section_")}
    page.locator("#note-sections .cite-marker").first.click()  # the cited source's place
    version_word = words["web.cite_where"].split("{path}")[1].split("{version}")[0]
    expect(page.locator("#cite-meta")).to_contain_text(version_word)
    assert not page.errors, page.errors


def test_every_view_in_chinese_when_the_browser_asks_for_it(
    served: tuple[Any, str], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    page = _open(served, "zh-CN")
    zh = _wait_for(page, "zh")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    _all_labels_in(page, "zh")
    _views_in(page, "zh")

    page.click("#tab-docs")  # an upload's report: the file's status in words
    (tmp_path / "upload.md").write_text("# Upload\n\nA short page.\n", encoding="utf-8")
    page.set_input_files("#upload-files", str(tmp_path / "upload.md"))
    page.click("#upload-form button[type=submit]")
    added = zh["web.docs_upload_line"].format(path="upload.md", status=zh["web.docs_status_added"])
    expect(page.locator("#upload-result")).to_have_text(added)
    page.close()


def test_every_view_in_english_until_a_chinese_question_turns_the_page(
    served: tuple[Any, str],
) -> None:
    page = _open(served, "en-US")
    _wait_for(page, "en")
    _all_labels_in(page, "en")
    _views_in(page, "en")

    # A Chinese question turns the page Chinese; the trace drawer and the other views follow.
    page.click("#tab-ask")
    page.fill("#question", "同步失败时如何排查？")
    page.click("#ask-button")
    page.wait_for_selector('#status-line[data-outcome="answered"]', timeout=120_000)
    _wait_for(page, "zh")
    _all_labels_in(page, "zh")
    page.click("#trace-toggle")
    budget = page.locator("#tr-budget").inner_text()
    assert budget.startswith("片段 ") and "fragments" not in budget, budget
    _views_in(page, "zh")
    page.close()


@pytest.mark.usefixtures("dense_off")
def test_held_changes_are_listed_in_chinese(chromium: Any, held_home: Path) -> None:
    """The Review page's rows, buttons, policy and detail lines in the browser's Chinese."""
    from playwright.sync_api import expect

    zh = table("web.", "zh")
    with running_server(held_home) as url:
        page = _open((chromium, url), "zh-CN")
        _wait_for(page, "zh")
        page.click("#tab-review")
        candidate = page.locator('#review-table tr[data-kind="candidate"]').first
        expect(candidate.locator("button")).to_have_text(
            [zh["web.btn_show"], zh["web.btn_approve"], zh["web.btn_reject"]]
        )
        quarantine = page.locator('#review-table tr[data-kind="quarantine"]')
        expect(quarantine.locator("button")).to_have_text(
            [zh["web.btn_show"], zh["web.btn_release"], zh["web.btn_reject"]]
        )
        policy = page.locator("#review-policy")
        expect(policy).to_contain_text("发布方式：review")
        expect(policy).to_contain_text(zh["web.review_over_bytes"].format(bytes=600))
        candidate.locator("button").first.click()
        expect(page.locator("#review-meta")).to_contain_text("提交")
        expect(page.locator("#review-detail [data-label]")).to_have_text(zh["web.review_held"])
        kind = zh["web.review_kind_candidate"]
        expect(page.locator("#review-id")).to_contain_text(f"({kind})")
        expect(page.locator("#review-files h3").first).to_contain_text(
            zh["web.review_change_changed"] + " "
        )
        expect(candidate.locator("td").nth(1)).to_have_text(kind)
        assert not page.errors, page.errors
        page.close()
