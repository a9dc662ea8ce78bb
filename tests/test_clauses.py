from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import IngestConfig
from citewise.ingest.clauses import (
    ClauseEvent,
    assign_clause_paths,
    chinese_to_int,
    find_anchor,
    roman_to_int,
)
from citewise.ingest.parse import parse_document

FIXTURES = Path(__file__).parent / "fixtures" / "parse"


def _paths(name: str) -> list[tuple[str, str | None]]:
    raw = (FIXTURES / name).read_bytes()
    doc = parse_document(raw, name=name, kb="kb", doc_path=name, config=IngestConfig())
    return [
        (n.search_text[:12], n.clause_path) for n in doc.nodes if n.kind in ("section", "paragraph")
    ]


@pytest.mark.parametrize(
    ("numeral", "value"),
    [("一", 1), ("十", 10), ("十二", 12), ("二十", 20), ("一百二十三", 123), ("三百零六", 306),
     ("一千零一", 1001), ("12", 12), ("１２", 12)],
)  # fmt: skip
def test_chinese_numerals(numeral: str, value: int) -> None:
    assert chinese_to_int(numeral) == value


def test_roman() -> None:
    assert [roman_to_int(s) for s in ("i", "iv", "ix", "xiv", "xl")] == [1, 4, 9, 14, 40]
    assert roman_to_int("iiii") is None
    assert roman_to_int("b") is None


@pytest.mark.parametrize(
    ("text", "path"),
    [("§ 1002.4 General", "1002.4"), ("§1002.4", "1002.4"), ("7.3.2 Records", "7.3.2"),
     ("Article 12 Scope", "Art.12"), ("Art. 5", "Art.5"), ("第十二条 本法", "Art.12"),
     ("第一百二十三条", "Art.123"), ("第十二条之一 补充", "Art.12-1"), ("第一章 总则", "Ch.1"),
     ("Plain heading", None)],
)  # fmt: skip
def test_find_anchor(text: str, path: str | None) -> None:
    anchor = find_anchor(text, heading=True)
    assert (anchor.path if anchor else None) == path


def test_decimal_in_running_text_is_not_a_clause() -> None:
    assert find_anchor("3.5 percent of the total", heading=False) is None


def test_cfr_like_markdown() -> None:
    assert _paths("cfr_like.md") == [
        ("Part 9001 — ", None),
        ("§ 9001.4 Gen", "9001.4"),
        ("This section", "9001.4"),  # unmarked: enclosing anchor, flagged inherited
        ("(a) Discoura", "9001.4(a)"),
        ("(1) Oral sta", "9001.4(a)(1)"),
        ("(i) Includin", "9001.4(a)(1)(i)"),
        ("(ii) Includi", "9001.4(a)(1)(ii)"),
        ("(A) Recorded", "9001.4(a)(1)(ii)(A)"),
        ("(B) Unrecord", "9001.4(a)(1)(ii)(B)"),
        ("(2) Written ", "9001.4(a)(2)"),
        ("(b) Records.", "9001.4(b)"),
        ("(h) Holdover", "9001.4(h)"),
        ("(1) One year", "9001.4(h)(1)"),
        ("(i) Ambiguou", None),  # (h) sibling or roman under (1): recorded as missing
        ("§ 9001.5 Oth", "9001.5"),
        ("(a) First.", "9001.5(a)"),
        ("(h) Eighth-i", "9001.5(h)"),
        ("(i) Letter a", "9001.5(i)"),
        ("(j) Letter j", "9001.5(j)"),
    ]


def test_ambiguous_flag_set() -> None:
    raw = (FIXTURES / "cfr_like.md").read_bytes()
    doc = parse_document(raw, name="c.md", kb="kb", doc_path="c.md", config=IngestConfig())
    amb = [n for n in doc.nodes if n.attrs.get("clause_ambiguous")]
    assert len(amb) == 1 and amb[0].clause_path is None
    assert amb[0].attrs["clause_marker"] == "(i)"
    inherited = [n for n in doc.nodes if n.attrs.get("clause_inherited")]
    assert [n.search_text[:4] for n in inherited] == ["This"]


def test_iso_like() -> None:
    assert _paths("iso_like.md") == [
        ("Quality manu", None),
        ("7 Support", "7"),
        ("7.3 Awarenes", "7.3"),
        ("7.3.2 Contro", "7.3.2"),
        ("Records shal", "7.3.2"),
        ("(a) identifi", "7.3.2(a)"),
        ("(b) protecte", "7.3.2(b)"),
        ("7.4 Communic", "7.4"),
        ("Plain text w", "7.4"),
    ]


def test_chinese_law() -> None:
    assert _paths("cn_law.md") == [
        ("中华人民共和国示例法", None),
        ("第一章 总 则", "Ch.1"),
        ("第一条 为了规范示例活动", "Art.1"),
        ("第十二条 有下列情形之一", "Art.12"),
        ("（一）第一种情形；", "Art.12(1)"),
        ("（二）第二种情形。", "Art.12(2)"),
        ("前款规定以外的情形，不适", "Art.12"),
        ("第一节 特别规定", "Ch.1.Sec.1"),
        ("第一百二十三条 本条很长", "Art.123"),
        ("第十二条之一 补充条款。", "Art.12-1"),
    ]


def test_new_heading_without_marker_clears_anchor() -> None:
    events = [
        ClauseEvent("heading", "§ 1.1 Scope", 2),
        ClauseEvent("block", "text"),
        ClauseEvent("heading", "Appendix", 2),
        ClauseEvent("block", "more"),
    ]
    assert [r.path for r in assign_clause_paths(events)] == ["1.1", "1.1", None, None]
