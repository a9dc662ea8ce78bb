"""The format registry: a format registered here (a toy text format and a toy binary one)
is walked, parsed, stored and searchable with no other list touched; and the built-in
table is the one every reader sees."""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.config import IngestConfig
from citewise.errors import EmptyFile, UnsupportedFormat
from citewise.ingest import formats
from citewise.ingest.extracted import Extracted, TextSource
from citewise.ingest.formats import FormatSpec
from citewise.ingest.limits import ParseBudget
from citewise.ingest.parse import parse_document
from citewise.ingest.tree import RawNode, collapse_ws
from citewise.ingest.walker import SourceFile, WalkProblem, walk
from citewise.kb import Home

_LINE = re.compile(r"[^\n]+")


def _lines(text: str) -> list[RawNode]:
    """Every non-empty line is a paragraph; offsets slice ``text`` exactly."""
    return [
        RawNode("paragraph", m.start(), m.end(), collapse_ws(m.group()))
        for m in _LINE.finditer(text)
    ]


def parse_toy(src: TextSource) -> Extracted:
    """Toy text format: the first line is the title, each later line a paragraph."""
    nodes = _lines(src.text)
    return Extracted(src.text, nodes[1:], title=nodes[0].search_text if nodes else None)


def parse_ztoy(raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    """Toy binary format: zlib-compressed UTF-8 lines (bytes in, extracted text out)."""
    assert budget.name == name  # the file's own parse budget is handed over
    budget.step()
    text = zlib.decompress(raw).decode("utf-8")
    return Extracted(text, _lines(text), metadata={"packed": True})


@pytest.fixture
def toy_formats() -> Iterator[None]:
    formats.register(FormatSpec("toy", (".toy",), parse_text=parse_toy))
    formats.register(FormatSpec("ztoy", (".ztoy",), binary=True, parse_bytes=parse_ztoy))
    try:
        yield
    finally:
        formats.unregister("toy")
        formats.unregister("ztoy")


def _corpus(root: Path) -> Path:
    root.mkdir()
    (root / "harbor.toy").write_text(
        "Harbor almanac\nPilots board inbound tankers at the quarantine buoy.\n", "utf-8"
    )
    packed = zlib.compress(b"Lighthouse ledger\nThe fog signal sounds every thirty seconds.\n")
    assert b"\x00" in packed or not packed.isascii()  # not text: decoding it would fail
    (root / "beacon.ztoy").write_bytes(packed)
    (root / "other.qqq").write_text("not a registered format", "utf-8")
    return root


def test_registered_formats_are_walked_parsed_and_searchable(
    toy_formats: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _corpus(tmp_path / "corpus")
    found = {f.rel_path: f for f in walk(root)}
    assert isinstance(found["harbor.toy"], SourceFile)
    assert isinstance(found["beacon.ztoy"], SourceFile)
    skipped = found["other.qqq"]
    assert isinstance(skipped, WalkProblem) and skipped.code == "UNSUPPORTED_FORMAT"
    assert ".toy" in skipped.message and ".ztoy" in skipped.message

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        report = kb.add([root])
        assert [(f.path, f.status) for f in report.files] == [
            ("beacon.ztoy", "added"),
            ("harbor.toy", "added"),
            ("other.qqq", "skipped"),
        ]
        docs = {d.path: d for d in kb.documents()}
        assert docs["harbor.toy"].format == "toy" and docs["harbor.toy"].title == "Harbor almanac"
        assert docs["beacon.ztoy"].format == "ztoy"
        assert docs["beacon.ztoy"].metadata == {"packed": True}

        hit = kb.search("quarantine buoy", mode="lexical").hits[0]
        assert hit.path == "harbor.toy"
        assert hit.excerpt == "Pilots board inbound tankers at the quarantine buoy."
        cited = h.resolve(hit.citation_id)
        assert cited.text == hit.excerpt and cited.line_start == 2

        hit = kb.search("fog signal", mode="lexical").hits[0]
        assert hit.path == "beacon.ztoy"
        assert hit.excerpt == "Lighthouse ledger\nThe fog signal sounds every thirty seconds."
        assert h.resolve(hit.citation_id).text == hit.excerpt  # cited from the extracted text


def test_binary_parser_gets_bytes_and_its_text_is_what_nodes_slice(toy_formats: None) -> None:
    raw = zlib.compress(b"Tide table\nHigh water at 06:12.\n")
    doc = parse_document(raw, name="t.ztoy", kb="kb", doc_path="t.ztoy", config=IngestConfig())
    assert doc.format == "ztoy" and doc.text == "Tide table\nHigh water at 06:12.\n"
    assert [n.text for n in doc.nodes if n.kind == "paragraph"] == [
        "Tide table",
        "High water at 06:12.",
    ]
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text
    with pytest.raises(EmptyFile):
        parse_document(b"", name="e.ztoy", kb="kb", doc_path="e.ztoy", config=IngestConfig())
    with pytest.raises(EmptyFile, match="no text could be extracted"):
        empty = zlib.compress(b"  \n")
        parse_document(empty, name="e.ztoy", kb="kb", doc_path="e.ztoy", config=IngestConfig())


def test_unregistered_format_is_refused_again(tmp_path: Path) -> None:
    formats.register(FormatSpec("toy", (".toy",), parse_text=parse_toy))
    formats.unregister("toy")
    with pytest.raises(UnsupportedFormat, match=r"'\.toy' is not supported"):
        parse_document(b"x\ny\n", name="a.toy", kb="kb", doc_path="a.toy", config=IngestConfig())
    (tmp_path / "a.toy").write_text("x\n", "utf-8")
    problem, nothing = walk(tmp_path)
    assert isinstance(problem, WalkProblem) and problem.code == "UNSUPPORTED_FORMAT"
    assert isinstance(nothing, WalkProblem) and nothing.code == "NO_DOCUMENTS"


def test_format_spec_shape_is_checked() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        FormatSpec("bad", (".bad",), binary=True, parse_text=parse_toy)
    with pytest.raises(ValueError, match="exactly one"):
        FormatSpec("bad", (".bad",))
    with pytest.raises(ValueError, match="lower case"):
        FormatSpec("bad", ("BAD",), parse_text=parse_toy)
    with pytest.raises(ValueError, match="already registered"):
        formats.register(FormatSpec("markdown2", (".md",), parse_text=parse_toy))


def test_builtin_table() -> None:
    assert [(f.name, f.suffixes, f.binary) for f in formats.formats()] == [
        ("markdown", (".md", ".markdown"), False),
        ("text", (".txt", ".text", ""), False),
        ("html", (".html", ".htm"), False),
        ("xml", (".xml",), False),
        ("pdf", (".pdf",), True),
        ("rst", (".rst", ".rest"), False),
        ("docx", (".docx",), True),
        ("xlsx", (".xlsx",), True),
        ("pptx", (".pptx",), True),
        ("epub", (".epub",), True),
        ("odt", (".odt",), True),
        ("csv", (".csv", ".tsv"), False),
        ("rtf", (".rtf",), True),
        ("ods", (".ods",), True),
        ("odp", (".odp",), True),
        ("doc", (".doc",), True),
        ("xls", (".xls",), True),
        ("ppt", (".ppt",), True),
    ]
    assert formats.supported_suffixes() == {
        ".md",
        ".markdown",
        ".txt",
        ".text",
        ".html",
        ".htm",
        ".xml",
        ".pdf",
        ".rst",
        ".rest",
        ".docx",
        ".xlsx",
        ".pptx",
        ".epub",
        ".odt",
        ".csv",
        ".tsv",
        ".rtf",
        ".ods",
        ".odp",
        ".doc",
        ".xls",
        ".ppt",
    }
    assert formats.format_for("README").name == "text"
    assert formats.format_for("Notes.MD").name == "markdown"
