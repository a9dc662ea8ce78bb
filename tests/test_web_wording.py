"""The web page's status texts in English and Chinese in a real browser (issue 39), and
the screenshots docs/img/ shows: the same :func:`bench.web_screenshots.capture` that
writes them, run into a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_web import _chromium

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
