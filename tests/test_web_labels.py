"""The web page's labels beyond the Ask view (core/web_labels.py, issue 39): every code the
page turns into words has a label, and the page fills a label's fields the way
``str.format`` does."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import get_args

import pytest

from citewise.core.messages import CATALOGUE, keys_under
from citewise.core.records import FileStatus
from citewise.notes.models import SECTION_TITLES, Section

STATIC = Path(__file__).parents[1] / "src" / "citewise" / "server" / "static"


def test_every_note_section_has_a_label_in_both_languages() -> None:
    for code in get_args(Section):
        key = f"web.note_section_{code}"
        assert key in CATALOGUE, key
        assert CATALOGUE[key]["en"] == SECTION_TITLES[code]  # the English the JSON gives
        assert CATALOGUE[key]["zh"] != CATALOGUE[key]["en"], key
    notes_js = (STATIC / "notes.js").read_text(encoding="utf-8")
    assert set(re.findall(r'"(web\.note_section_[a-z]+)"', notes_js)) == set(
        keys_under("web.note_section_")
    )


def test_every_upload_status_has_a_label() -> None:
    app_js = (STATIC / "app.js").read_text(encoding="utf-8")
    for code in get_args(FileStatus):
        key = f"web.docs_status_{code}"
        assert CATALOGUE[key]["en"] == code and f'{code}: "{key}"' in app_js, key


def test_no_chinese_label_is_its_english_text() -> None:
    for key in keys_under("web."):
        assert CATALOGUE[key]["zh"] != CATALOGUE[key]["en"], key


@pytest.mark.subprocess
def test_the_page_fills_every_label_as_python_formats_it() -> None:
    """app.js's ``fill`` run by Node on every ``web.*`` key in both languages."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (apt-get install -y nodejs)")
    app = (STATIC / "app.js").read_text(encoding="utf-8")
    fill_src = app[app.index("function label(") : app.index("// Labels of the page")]
    cases = []
    for key in keys_under("web."):
        fields = {n: f"<{n}>" for n in re.findall(r"\{(\w+)\}", CATALOGUE[key]["en"])}
        for lang in ("en", "zh"):
            cases.append((key, lang, fields, CATALOGUE[key][lang].format(**fields)))
    script = (
        "const labels = { table: {} };\n"
        + fill_src
        + "\nconst cases = "
        + json.dumps(cases)
        + ";\n"
        "const catalogue = " + json.dumps({k: dict(v) for k, v in CATALOGUE.items()}) + ";\n"
        "for (const [key, lang, fields, want] of cases) {\n"
        "  labels.table = { [key]: catalogue[key][lang] };\n"
        "  const got = fill(key, fields);\n"
        "  if (got !== want) {\n"
        "    console.log(JSON.stringify([key, lang, got, want]));\n"
        "    process.exit(1);\n"
        "  }\n"
        "}\n"
    )
    done = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
