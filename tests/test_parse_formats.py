from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import ChunkConfig, IngestConfig
from citewise.core.records import ParsedDocument
from citewise.errors import FileTooLarge, IngestError, UnsupportedFormat
from citewise.ingest.parse import parse_document

FIXTURES = Path(__file__).parent / "fixtures" / "parse"


def _parse(
    name: str, raw: bytes | None = None, config: IngestConfig | None = None
) -> ParsedDocument:
    data = raw if raw is not None else (FIXTURES / name).read_bytes()
    return parse_document(data, name=name, kb="kb", doc_path=name, config=config or IngestConfig())


def _check_exact(doc: ParsedDocument) -> None:
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text


def test_html_structure() -> None:
    doc = _parse("page.html")
    _check_exact(doc)
    assert doc.format == "html" and doc.title == "Handbook Page"
    sections = [n for n in doc.nodes if n.kind == "section"]
    assert [s.heading_path for s in sections] == [("Harbor Rules",), ("Harbor Rules", "Fees")]
    all_search = " ".join(n.search_text for n in doc.nodes)
    for hidden in ("not text", "Home", "Footer", "Site header", "color"):
        assert hidden not in all_search
    para = next(n for n in doc.nodes if n.kind == "paragraph")
    assert para.text == "<p>Vessels must <b>register</b> &amp; report.</p>"
    assert para.search_text == "Vessels must register & report."
    rows = [n for n in doc.nodes if n.kind == "table_row"]
    assert [r.attrs["row"] for r in rows] == [
        {"Class": "Small", "Fee": "10"},
        {"Class": "Large", "Fee": "50"},
    ]
    assert rows[0].text == "<tr><td>Small</td><td>10</td></tr>"
    items = [n for n in doc.nodes if n.kind == "list_item"]
    assert [i.text for i in items] == ["<li>First item", "<li>Second item</li>"]
    code = next(n for n in doc.nodes if n.kind == "code")
    assert code.attrs["language"] == "python" and code.text.endswith("</pre>")
    quote = next(n for n in doc.nodes if n.kind == "blockquote")
    assert quote.search_text == "Quoted text."
    assert all(n.heading_path[:1] == ("Harbor Rules",) for n in doc.nodes if n.kind != "document")


def test_regml_xml() -> None:
    doc = _parse("regml_like.xml")
    _check_exact(doc)
    assert doc.title == "EXAMPLE RULES"
    paras = [n for n in doc.nodes if n.kind == "paragraph"]
    assert [(p.clause_path, p.search_text) for p in paras] == [
        ("9001.1(a)", "Purpose. This part governs “examples”."),
        ("9001.1(a)(1)", "First thing ;"),
        ("9001.1(a)(1)(i)", "Roman one."),
        ("9001.1(b)", "Second."),
        ("9001-Interp-1-1", "Comment one."),
    ]
    first = paras[0]
    assert first.text.startswith('<paragraph label="9001-1-a"')
    assert "<paragraph" not in first.text[1:]  # nested paragraphs are separate nodes
    sec = next(n for n in doc.nodes if n.kind == "section" and n.clause_path == "9001.1")
    assert sec.heading_path[-1] == "§ 9001.1 Purpose — scope."
    assert paras[1].parent_id == first.id


def test_gpo_xml() -> None:
    doc = _parse("gpo_like.xml")
    _check_exact(doc)
    assert doc.title == "Aeronautics Example"
    paras = [n for n in doc.nodes if n.kind == "paragraph"]
    assert [p.clause_path for p in paras] == [
        "1201.100",
        "1201.100(a)",
        "1201.100(a)(1)",
        "1201.100(b)",
    ]
    assert paras[1].text == '<P>(a) <E T="03">General.</E> Café rules apply.</P>'
    assert paras[1].search_text == "(a) General. Café rules apply."
    sec = next(n for n in doc.nodes if n.clause_path == "1201.100" and n.kind == "section")
    assert sec.heading_path == ("PART 1201—ORGANIZATION", "§ 1201.100 Creation and authority.")


def test_xml_doctype_rejected() -> None:
    bomb = (
        b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;">]>\n<lolz>&lol2;</lolz>\n'
    )
    with pytest.raises(IngestError, match=r"bomb\.xml.*DOCTYPE"):
        _parse("bomb.xml", bomb)


def test_xml_malformed() -> None:
    with pytest.raises(IngestError, match=r"bad\.xml.*not well-formed XML \(line 1"):
        _parse("bad.xml", b"<a><b></a>")


def test_text_paragraphs_and_headings() -> None:
    raw = "第一章 总则\r\n\r\n第一条 甲。\r\n第二行。\r\n\r\n\r\n第二条 乙。\n".encode()
    doc = _parse("law.txt", raw)
    _check_exact(doc)
    kinds = [(n.kind, n.text, n.clause_path) for n in doc.nodes[1:]]
    assert kinds == [
        ("section", "第一章 总则\r\n\r\n第一条 甲。\r\n第二行。\r\n\r\n\r\n第二条 乙。", "Ch.1"),
        ("paragraph", "第一条 甲。\r\n第二行。", "Art.1"),
        ("paragraph", "第二条 乙。", "Art.2"),
    ]
    assert doc.nodes[2].line_start == 3 and doc.nodes[2].line_end == 4
    assert doc.nodes[3].line_start == 7


def test_text_front_matter_and_extensionless() -> None:
    doc = _parse("README", b"---\ntitle: Readme\n---\nHello there.\n")
    assert doc.format == "text" and doc.title == "Readme" and doc.metadata == {"title": "Readme"}
    para = doc.nodes[1]
    assert para.text == "Hello there." and para.char_start == 22 and para.line_start == 4


def test_unsupported_and_too_large() -> None:
    with pytest.raises(UnsupportedFormat, match=r"a\.exe.*\.md"):
        _parse("a.exe", b"MZ")
    with pytest.raises(FileTooLarge, match=r"big\.md"):
        _parse("big.md", b"x" * 20, IngestConfig(max_file_bytes=10))


def test_markdown_title_rules_and_ids() -> None:
    doc = _parse("t.md", b"Intro.\n\n# First H1\n\nBody.\n")
    assert doc.title == "First H1"
    assert _parse("notes.md", b"Just text.\n").title == "notes"
    fm = _parse("t.md", b"---\ntitle: From FM\n---\n# H1\n")
    assert fm.title == "From FM"
    again = _parse("t.md", b"Intro.\n\n# First H1\n\nBody.\n")
    assert [n.id for n in again.nodes] == [n.id for n in doc.nodes]
    assert [n.ordinal for n in doc.nodes] == list(range(len(doc.nodes)))
    root = doc.nodes[0]
    assert root.kind == "document" and root.heading_path == () and root.parent_id is None
    assert (root.char_start, root.char_end) == (0, len(doc.text))


def test_real_chinese_like_chunking_is_bounded() -> None:
    body = "\n\n".join(f"第{n}条 " + "数据安全" * 30 for n in range(1, 40))
    doc = _parse("law.md", ("# 法\n\n" + body + "\n").encode(), IngestConfig(chunks=ChunkConfig()))
    assert all(c.word_count <= 220 for c in doc.chunks)
    assert len(doc.chunks) > 5
