"""Titles without attribute-list and HTML syntax (ingest/titles.py, Markdown headings)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.config import IngestConfig
from citewise.ingest.parse import parse_document
from citewise.ingest.titles import clean_title

DOCS = next(
    (
        p / "shared" / "data" / "docs-corpora"
        for p in Path(__file__).resolve().parents[1:4]
        if (p / "shared").is_dir()
    ),
    Path("/nonexistent"),
)
_LEFTOVER = re.compile(r"\{\s*[:#.]|</?[A-Za-z][^<>]*>")


def _sections(src: str) -> tuple[str | None, list[tuple[str, ...]]]:
    doc = parse_document(src.encode(), name="a.md", kb="k", doc_path="a.md", config=IngestConfig())
    return doc.title, [n.heading_path for n in doc.nodes if n.kind == "section"]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        # mkdocs-material style: an image heading with a kramdown attribute list
        ('icon{: style="height:80px;width:80px" align="right"}', "icon"),
        # Python-Markdown attr_list anchors, as in the Typer documentation
        ("Create a Project { #create-a-project }", "Create a Project"),
        ("Learn More { #learn-more }", "Learn More"),
        ("Options {.lead #opts}", "Options"),
        ('Title <small>beta</small> <img src="x.png">', "Title beta"),
        ("Release notes <!-- hidden -->", "Release notes"),
        # braces and angle brackets that are text stay
        ("GET /users/{id}", "GET /users/{id}"),
        ("Generic List<T> and a < b", "Generic List<T> and a < b"),
        ("<br>", "<br>"),
    ],
)
def test_clean_title(raw: str, shown: str) -> None:
    assert clean_title(raw) == shown


def test_markdown_titles_and_heading_paths_are_clean() -> None:
    title, paths = _sections(
        '# ![icon](img/icon.svg){: style="height:80px;width:80px" align="right"}\n\nIntro.\n\n'
        "## Create a Project { #create-a-project }\n\nBody.\n\n"
        "## Install <small>optional</small>\n\nMore.\n"
    )
    assert title == "icon"
    assert paths == [("icon",), ("icon", "Create a Project"), ("icon", "Install optional")]


@given(st.text(max_size=80))
def test_clean_title_is_idempotent_and_never_empty_for_text(raw: str) -> None:
    once = clean_title(raw)
    assert clean_title(once) == once or not once
    assert bool(once) == bool(raw.split())


@pytest.mark.skipif(not DOCS.is_dir(), reason="needs ../shared/data/docs-corpora")
def test_shared_docs_corpora_titles_have_no_markup() -> None:
    checked = 0
    for path in sorted(DOCS.glob("*/docs/**/*.md")):
        doc = parse_document(
            path.read_bytes(), name=path.name, kb="k", doc_path=path.name, config=IngestConfig()
        )
        for name in [doc.title or "", *(p for n in doc.nodes for p in n.heading_path)]:
            assert not _LEFTOVER.search(name), (path, name)
            checked += 1
    assert checked > 100
