"""Fuzz every upload parse entry point (decode, front matter, Markdown, text, HTML, XML,
reStructuredText and the whole ``parse_document``) with hostile shapes: deep and unbalanced
nesting, many headings and cells, long lines, entities, control characters, arbitrary bytes.

Each input must either parse (with exact offsets: every node's text is its slice of the
document) or fail with a :class:`~citewise.errors.CitewiseError` (a clear per-file error).
Per file, memory is capped (tracemalloc peak) and time is capped by the parse limits
(``max_seconds``), never by a timed assertion.

Quick by default (a few dozen examples per format); a longer run:
``CITEWISE_FUZZ_EXAMPLES=3000 pytest -m fuzz tests/test_fuzz_parsers.py``.
"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.config import IngestConfig, ParseLimits
from citewise.errors import CitewiseError
from citewise.ingest.decode import decode_bytes
from citewise.ingest.frontmatter import split_front_matter
from citewise.ingest.html import parse_html
from citewise.ingest.limits import ParseBudget
from citewise.ingest.markdown import parse_markdown
from citewise.ingest.parse import parse_document
from citewise.ingest.text import parse_text
from citewise.ingest.xml import parse_xml

pytestmark = pytest.mark.fuzz

EXAMPLES = int(os.environ.get("CITEWISE_FUZZ_EXAMPLES", "30"))
#: Limits small enough that hostile shapes reach them inside small inputs.
LIMITS = ParseLimits(max_depth=40, max_nodes=2_000, max_seconds=5.0, max_text_ratio=16)
CONFIG = IngestConfig(limits=LIMITS)
#: Peak traced memory per input: a fixed allowance plus a multiple of the input size.
MEMORY_BASE = 16 * 1024 * 1024
MEMORY_PER_BYTE = 400

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # time is capped by LIMITS.max_seconds inside the parser
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=EXAMPLES <= 100,  # the quick run is reproducible
)

_WORDS = st.sampled_from(
    ["alpha", "Beta", "第一章", "总则", "§ 1002.4", "7.3.2", "Article 5", "x" * 300, "", " "]
)
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
    max_size=40,
)
_PIECE = st.one_of(_WORDS, _TEXT)


def _tree(tags: list[str], closing: bool = True) -> st.SearchStrategy[str]:
    """Nested elements of ``tags`` with text, sometimes unclosed or deeply repeated."""
    leaf = _PIECE

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        def wrap(tag: str, inner: list[str], close: bool, attr: str) -> str:
            end = f"</{tag}>" if close or not closing else ""
            return f"<{tag}{attr}>{''.join(inner)}{end}"

        attrs = st.sampled_from(["", ' class="language-py"', " label='1016-1-b'", ' onerror="x"'])
        return st.builds(
            wrap, st.sampled_from(tags), st.lists(children, max_size=4), st.booleans(), attrs
        )

    return st.recursive(leaf, extend, max_leaves=60)


def _deep(tags: list[str]) -> st.SearchStrategy[str]:
    """One tag nested ``n`` deep (past the depth limit or not), optionally left open."""
    return st.builds(
        lambda tag, n, close, body: f"<{tag}>{body}" * n + (f"</{tag}>" * n if close else ""),
        st.sampled_from(tags),
        st.integers(1, 1500),
        st.booleans(),
        _PIECE,
    )


HTML_TAGS = ["ul", "ol", "li", "p", "div", "table", "tr", "td", "th", "thead", "h1", "h3", "h6",
             "pre", "code", "blockquote", "b", "script", "nav", "title", "img", "br"]  # fmt: skip
XML_TAGS = ["part", "section", "P", "FP", "paragraph", "HD", "subject", "SECTION", "E", "title"]
MD_LINES = st.sampled_from(
    ["# h", "###### deep", "> quote", ">>>>>>>>>> nested", "- item", "  - sub", "1. step",
     "|a|b|", "|-|-|", "|1|2|", "```", "```mermaid", "    code", "---", "", "text *em* **b**",
     "<div>", "[link](u)", "- " * 30 + "x", "> " * 30 + "y", "\t-\t", "===", "第一条 总则"]
)  # fmt: skip
MARKDOWN = st.one_of(
    st.lists(st.one_of(MD_LINES, _PIECE), max_size=80).map("\n".join),
    st.builds(lambda line, n: (line + "\n") * n, MD_LINES, st.integers(1, 3000)),
)
RST_LINES = st.sampled_from(
    ["Title", "=====", "-----", "~~~~~", "- item", "  - sub", "* star", "1. step", "#. auto",
     "  indented", "      deeper", "::", ".. note::", ".. code-block:: python", ".. toctree::",
     ".. include:: /etc/passwd", ".. raw:: html", "   :file: /etc/passwd", ".. |s| replace:: |s|",
     "|s|", ":ref:`x <y>`", "``lit``", "`link`_", ".. _y:", "+---+---+", "| a | b |", "=== ===",
     "term", "   definition", ":field: value", "| line", "- " * 30 + "x", "  " * 30 + "q", ""]
)  # fmt: skip
RST = st.one_of(
    st.lists(st.one_of(RST_LINES, _PIECE), max_size=80).map("\n".join),
    st.builds(lambda line, n: (line + "\n") * n, RST_LINES, st.integers(1, 2000)),
    st.integers(1, 3000).map(lambda n: "".join("  " * i + "x\n\n" for i in range(n))),
)
HTML = st.one_of(_tree(HTML_TAGS, closing=False), _deep(HTML_TAGS))
XML = st.one_of(
    _tree(XML_TAGS).map(lambda body: f"<regulation>{body}</regulation>"),
    _deep(XML_TAGS),
    _TEXT.map(lambda t: f"<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a '{t}'>]><x>&a;</x>"),
)
FRONT = st.builds(
    lambda body, rest: f"---\n{body}\n---\n{rest}",
    st.one_of(
        st.lists(st.sampled_from(["title: x", "tags: [a, b]", "a: &a [x]", "b: *a", "- 1",
                                  "[" * 50, "{a: {b: {c: d}}}", "access: ''", "k: |"]),
                 max_size=6).map("\n".join),
        _TEXT,
    ),
    _PIECE,
)  # fmt: skip


def _capped(run: Callable[[], object], size: int) -> None:
    """Run one parse: success or a CitewiseError, within the memory cap."""
    tracemalloc.start()
    try:
        run()
    except CitewiseError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= MEMORY_BASE + MEMORY_PER_BYTE * size, f"peak {peak:,} B for {size:,} B"


def _whole(name: str, data: bytes) -> None:
    def run() -> None:
        doc = parse_document(data, name=name, kb="kb", doc_path=name, config=CONFIG)
        assert len(doc.nodes) <= LIMITS.max_nodes + 1
        for n in doc.nodes:
            assert doc.text[n.char_start : n.char_end] == n.text

    _capped(run, len(data))


@FUZZ
@given(st.binary(max_size=2000))
def test_decode_accepts_text_or_refuses_clearly(data: bytes) -> None:
    _capped(lambda: decode_bytes(data, "f.txt"), len(data))


@FUZZ
@given(FRONT)
def test_front_matter(text: str) -> None:
    _capped(lambda: split_front_matter(text, "f.md"), len(text.encode()))
    _whole("f.md", text.encode("utf-8"))


@FUZZ
@given(MARKDOWN)
def test_markdown(text: str) -> None:
    _capped(lambda: parse_markdown(text, 0, None, ParseBudget("f.md", LIMITS)), len(text))
    _whole("f.md", text.encode("utf-8"))


@FUZZ
@given(st.lists(st.one_of(_PIECE, st.just("\n\n"), st.just("\r")), max_size=200).map("".join))
def test_text(text: str) -> None:
    _capped(lambda: parse_text(text, 0, ParseBudget("f.txt", LIMITS)), len(text))
    _whole("f.txt", text.encode("utf-8"))


@FUZZ
@given(HTML)
def test_html(text: str) -> None:
    _capped(lambda: parse_html(text, "f.html", ParseBudget("f.html", LIMITS)), len(text))
    _whole("f.html", text.encode("utf-8"))


@FUZZ
@given(XML)
def test_xml(text: str) -> None:
    _capped(lambda: parse_xml(text, "f.xml", ParseBudget("f.xml", LIMITS)), len(text))
    _whole("f.xml", text.encode("utf-8"))


@FUZZ
@given(RST)
def test_rst(text: str) -> None:
    _whole("f.rst", text.encode("utf-8"))
