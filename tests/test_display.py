"""Evidence shown as the reader sees it (issue 36, server/display.py): Markdown rendered
without raw HTML, images or unsafe links; PDF line breaks inside paragraphs joined; the
page gets a tree of allowed elements, never HTML; the route's bounds name the limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.server.display import ALLOWED, reflow, shape_of, to_tree
from citewise.server.routes_display import MAX_ITEMS
from tests._server import running_server


def _walk(tree: list[Any]) -> list[dict[str, Any]]:
    out = []
    for n in tree:
        if isinstance(n, dict):
            out.append(n)
            out.extend(_walk(n["c"]))
    return out


def _text(tree: list[Any]) -> str:
    return "".join(n if isinstance(n, str) else _text(n["c"]) for n in tree)


@pytest.mark.parametrize(
    ("path", "locator", "shape"),
    [
        ("docs/index.md", None, "markdown"),
        ("README.MARKDOWN", None, "markdown"),
        ("reports/annual.pdf", None, "pdf"),
        ("scan.tiff", {"page": 2}, "pdf"),
        ("guide.rst", None, "text"),
        ("notes.txt", {"paragraph": 3}, "text"),
    ],
)
def test_shape_by_path_and_locator(path: str, locator: dict[str, int] | None, shape: str) -> None:
    assert shape_of(path, locator) == shape


def test_markdown_renders_and_raw_html_stays_text() -> None:
    source = (
        "**[A02 Cryptographic Failures](https://owasp.org/a02)** are <b>common</b>.\n\n"
        "<script>window.__pwned=1</script>\n\n"
        "![diagram](http://tracker.example/x.png) [local](javascript:alert(1))\n\n"
        "| year | value |\n|---|---|\n| 2013 | A9 |\n"
    )
    tree = to_tree(source, "markdown")
    tags = [n["t"] for n in _walk(tree)]
    assert "strong" in tags and "table" in tags and "td" in tags
    links = [n for n in _walk(tree) if n["t"] == "a"]
    assert [n["a"].get("href") for n in links] == ["https://owasp.org/a02"]
    text = _text(tree)
    assert "**" not in text  # rendered, not raw source
    assert "<b>common</b>" in text and "<script>" in text  # raw HTML is text, not markup
    assert "[diagram]" in text and "tracker.example" not in text  # an image shows its alt
    assert not {"script", "img", "b"} & set(tags)


def test_pdf_lines_are_reflowed_inside_paragraphs() -> None:
    column = (
        "The Committee found that\nthe well-\nknown rule applies to\nall filings.\n\n"
        "A second\nparagraph."
    )
    assert reflow(column) == (
        "The Committee found that the well-known rule applies to all filings.\n\n"
        "A second paragraph."
    )
    tree = to_tree(column, "pdf")
    assert len(tree) == 2 and [n["t"] for n in tree if isinstance(n, dict)] == ["p", "p"]
    assert to_tree("a <i>b</i>\nc", "text") == [{"t": "pre", "a": {}, "c": ["a <i>b</i>\nc"]}]


MARKUP = list("<>&\"'=/ \n*_[]()!#|-`:jsavcripthx.0")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(MARKUP), max_size=200))
def test_any_markdown_gives_only_allowed_elements_and_safe_links(text: str) -> None:
    for shape in ("markdown", "pdf", "text"):
        for node in _walk(to_tree(text, shape)):
            assert node["t"] in ALLOWED
            assert set(node["a"]) <= ALLOWED[node["t"]]
            href = node["a"].get("href", "https:")
            assert href.lower().startswith(("https:", "http:", "mailto:", "#"))


@pytest.mark.subprocess
def test_the_route_renders_and_refuses_too_much(tmp_path: Path) -> None:
    with running_server(tmp_path / "home") as url:
        items = [
            {"text": "**bold** <b>x</b>", "path": "a.md"},
            {"text": "one\ntwo", "path": "r.pdf", "locator": {"page": 1}},
        ]
        r = httpx.post(url + "/display", json={"items": items}, timeout=30)
        assert r.status_code == 200, r.text
        got = r.json()["items"]
        assert [x["shape"] for x in got] == ["markdown", "pdf"]
        assert got[0]["tree"][0]["c"][0] == {"t": "strong", "a": {}, "c": ["bold"]}
        assert got[1]["tree"] == [{"t": "p", "a": {}, "c": ["one two"]}]
        many = {"items": [{"text": "x"}] * (MAX_ITEMS + 1)}
        r = httpx.post(url + "/display", json=many, timeout=30)
        assert r.status_code == 400  # the server's envelope for an invalid request
        assert r.json()["error"]["code"] == "BAD_REQUEST" and str(MAX_ITEMS) in r.text
