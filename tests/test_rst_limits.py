"""Hostile reStructuredText: nesting that would take docutils past Python's recursion limit
fails the one file with a clear parse-limit error (the batch goes on), and a format
parser's own crash on any input fails its file alone, never the batch."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.config import IngestConfig, ParseLimits
from citewise.errors import BrokenFile, ParseLimitExceeded
from citewise.ingest import formats, rst_guard
from citewise.ingest.extracted import Extracted, TextSource
from citewise.ingest.formats import FormatSpec
from citewise.ingest.parse import parse_document
from citewise.ingest.rst import indent_depth
from citewise.kb import Home

#: Each line one level deeper than the last: docutils nests a block quote per level.
DEEP_QUOTES = "".join("  " * i + "x\n\n" for i in range(3000))
#: Lists nested on one line: no indentation shows it.
ONE_LINE_LISTS = "- " * 2000 + "x\n"


@pytest.fixture(autouse=True)
def _lexical(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batches here are about parsing: no dense route (and no model in the fast loop)."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")


def _parse(name: str, text: str, limits: ParseLimits | None = None) -> object:
    config = IngestConfig(limits=limits or ParseLimits())
    return parse_document(text.encode("utf-8"), name=name, kb="kb", doc_path=name, config=config)


def test_indent_depth_counts_nested_levels_not_indented_lines() -> None:
    assert indent_depth("a\n\n  b\n\n    c\n\n  d\n\ne\n") == 2
    assert indent_depth("a\n   b\n   c\n   d\n") == 1
    assert indent_depth("a\n\tb\n") == 1  # a tab is 8 columns, one level
    assert indent_depth("") == 0


def test_deep_indentation_is_refused_before_docutils_parses_it() -> None:
    with pytest.raises(ParseLimitExceeded) as err:
        _parse("deep.rst", DEEP_QUOTES)
    message = str(err.value)
    assert "deep.rst" in message and "nesting depth 2999" in message
    assert "CITEWISE_PARSE_MAX_DEPTH" in message  # says how to raise it


def test_nesting_on_one_line_is_a_clear_error_not_a_recursion_error() -> None:
    with pytest.raises(ParseLimitExceeded, match=r"lists\.rst: blocks nest too deeply"):
        _parse("lists.rst", ONE_LINE_LISTS)


def test_moderate_nesting_still_parses() -> None:
    doc = _parse("ok.rst", "Title\n=====\n\n" + "- " * 40 + "deep item\n")
    assert any("deep item" in n.text for n in doc.nodes)  # type: ignore[attr-defined]


def test_a_hostile_rst_file_fails_alone_and_the_batch_goes_on(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "deep.rst").write_text(DEEP_QUOTES, "utf-8")
    (src / "lists.rst").write_text(ONE_LINE_LISTS, "utf-8")
    (src / "good.md").write_text("# Harbor\n\nPilots board at the buoy.\n", "utf-8")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        report = kb.add([src])
        status = {f.path: (f.status, f.code) for f in report.files}
        assert status["deep.rst"] == ("failed", "PARSE_LIMIT")
        assert status["lists.rst"] == ("failed", "PARSE_LIMIT")
        assert status["good.md"][0] == "added"
        assert [d.path for d in kb.store.list_documents(kb.name)] == ["good.md"]


class _Boom(RuntimeError):
    pass


def _crashing(src: TextSource) -> Extracted:
    raise _Boom(f"secret-looking file content: {src.text[:20]}")


def _recursing(src: TextSource) -> Extracted:
    raise RecursionError("maximum recursion depth exceeded")


@pytest.fixture
def crashing_formats() -> Iterator[None]:
    formats.register(FormatSpec("crash", (".crash",), parse_text=_crashing))
    formats.register(FormatSpec("recur", (".recur",), parse_text=_recursing))
    try:
        yield
    finally:
        formats.unregister("crash")
        formats.unregister("recur")


def test_a_parser_crash_is_a_broken_file_error_that_does_not_quote_the_file(
    crashing_formats: None,
) -> None:
    with pytest.raises(BrokenFile) as err:
        _parse("a.crash", "TOP SECRET body")
    message = str(err.value)
    assert "a.crash: the crash parser could not read this file (_Boom)" in message
    assert "TOP SECRET" not in message
    with pytest.raises(ParseLimitExceeded, match=r"a\.recur: the file nests too deeply"):
        _parse("a.recur", "x")


def test_a_parser_crash_fails_one_file_of_a_batch(crashing_formats: None, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "bad.crash").write_text("anything", "utf-8")
    (src / "good.md").write_text("# Harbor\n\nPilots board at the buoy.\n", "utf-8")
    with Home.open(tmp_path / "home") as h:
        report = h.kb().add([src])
    status = {f.path: (f.status, f.code) for f in report.files}
    assert status == {"bad.crash": ("failed", "BROKEN_FILE"), "good.md": ("added", "")}


def test_indentation_inside_literal_blocks_does_not_count() -> None:
    """A diagram or deeply nested code is text to docutils: it never refuses a real file."""
    stair = "Diagram::\n\n" + "".join(" " * (i + 1) + "*\n" for i in range(150)) + "\nAfter.\n"
    code = ".. code-block:: python\n\n" + "".join("    " * (i + 1) + "x\n" for i in range(150))
    assert indent_depth(stair) == 0 and indent_depth(code) == 0
    doc = _parse("diagram.rst", "Title\n=====\n\n" + stair)
    assert any("After." in n.text for n in doc.nodes)  # type: ignore[attr-defined]
    # a note's body is parsed for blocks: its nesting still counts
    note = ".. note::\n\n" + "".join("  " * (i + 1) + "x\n\n" for i in range(150))
    assert indent_depth(note) == 150
    with pytest.raises(ParseLimitExceeded, match="nesting depth 150"):
        _parse("note.rst", note)


def _grid(rows: int, cols: int) -> str:
    line = "+" + "---+" * cols + "\n"
    return line + ("|" + " a |" * cols + "\n" + line) * rows


@pytest.mark.subprocess
def test_a_large_rst_file_is_stopped_at_the_time_limit_inside_docutils(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past IN_PROCESS_CHARS the parse runs in a child process killed when the file's time
    runs out: the limit holds although docutils cannot be interrupted (the table below
    takes docutils seconds; the limit is a small fraction of that)."""
    big = "Title\n=====\n\n" + _grid(400, 100)
    assert len(big) > rst_guard.IN_PROCESS_CHARS
    timeouts: list[float] = []
    real_run = subprocess.run

    def spy(*args: Any, **kwargs: Any) -> Any:
        timeouts.append(kwargs["timeout"])
        return real_run(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(subprocess, "run", spy)
        with pytest.raises(ParseLimitExceeded, match="parse time exceeds"):
            _parse("table.rst", big, ParseLimits(max_seconds=0.2))
    assert len(timeouts) == 1 and 0 < timeouts[0] <= 0.2  # killed at the file's limit


@pytest.mark.subprocess
def test_the_child_process_parses_like_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Harbor\n======\n\n* one\n\n  ::\n\n      code()\n\n`SNI`_, or so.\n"
    here = _parse("a.rst", text)
    monkeypatch.setattr(rst_guard, "IN_PROCESS_CHARS", 10)
    there = _parse("a.rst", text)
    assert [(n.kind, n.char_start, n.char_end) for n in there.nodes] == [  # type: ignore[attr-defined]
        (n.kind, n.char_start, n.char_end)
        for n in here.nodes  # type: ignore[attr-defined]
    ]
    # an error in the child is this file's error, with its message
    with pytest.raises(ParseLimitExceeded, match="nesting depth 2999"):
        _parse("deep.rst", DEEP_QUOTES)
