"""A Chinese question naming a law reads that law only, in the edition it names (issue 34):
the pure readers of recall/zh_laws.py, and a tiny knowledge base of two laws that share a
第十条, one of them in two dated editions. The statutes are written here for the test."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from citewise.answer.meaning.answer import NO_CHINESE_READER
from citewise.recall.zh_laws import (
    EditionAsk,
    Law,
    chosen_paths,
    edition_asked,
    edition_date,
    law_name,
    laws_named,
)

FLAG = """# 中华人民共和国青旗法

2001年5月1日 第九届全国人民代表大会常务委员会第二十一次会议通过

<!-- INFO END -->

第九条 青旗应当在公共场合庄重悬挂。

第十条 青旗的图案由国务院青旗管理部门制定并公布。
"""
SONG_OLD = """# 中华人民共和国乐章法

1996年3月17日 第八届全国人民代表大会第四次会议通过

<!-- INFO END -->

第十条 乐章的曲谱由国家档案馆保存。
"""
SONG_NEW = """# 中华人民共和国乐章法

1996年3月17日 第八届全国人民代表大会第四次会议通过
2024年6月28日 第十四届全国人民代表大会常务委员会第十次会议修正

<!-- INFO END -->

第十条 乐章的曲谱由国家图书馆保存，并在官方网站公布。
"""


def test_law_names_and_edition_dates() -> None:
    assert law_name("中华人民共和国国务院组织法") == "国务院组织法"
    assert law_name("# 中华人民共和国监察法") == "监察法"
    assert law_name("同步说明") == ""  # no law
    assert edition_date("宪法相关法/国务院组织法(2024-03-11).md") == date(2024, 3, 11)
    preamble = SONG_NEW.split("<!--")[0]
    assert edition_date("乐章法.md", preamble) == date(2024, 6, 28)  # the latest event
    assert edition_date("乐章法.md", "第十条 乐章") is None


@pytest.mark.parametrize(
    ("question", "kind", "year"),
    [
        ("乐章法1996年那一版第十条规定了什么？", "year", 1996),
        ("2024年修订的乐章法第十条说什么？", "year", 2024),
        ("乐章法修正前第十条规定曲谱由谁保存？", "before", None),
        ("2001年的青旗法第九条规定了什么？", "year", 2001),
        ("现行乐章法第十条规定了什么？", "current", None),
        ("乐章法第十条规定了什么？", "current", None),
    ],
)
def test_editions_named_in_chinese(question: str, kind: str, year: int | None) -> None:
    ask = edition_asked(question)
    assert (ask.kind, ask.year) == (kind, year)


def test_named_law_and_edition_choose_the_paths() -> None:
    laws = [
        Law("青旗法.md", "青旗法", date(2001, 5, 1)),
        Law("乐章法(1996-03-17).md", "乐章法", date(1996, 3, 17)),
        Law("乐章法(2024-06-28).md", "乐章法", date(2024, 6, 28)),
        Law("监察官法.md", "监察官法", None),
    ]
    assert laws_named("《中华人民共和国青旗法》第十条规定了什么？", laws) == {"青旗法"}
    assert laws_named("乐章法第十条规定了什么？", laws) == {"乐章法"}
    assert laws_named("监察法第十条规定了什么？", laws) == set()  # 监察官法 is another law
    # a short title: the tail of one law's full name, never a tail several names share
    long_names = [
        Law("监督法.md", "各级人民代表大会常务委员会监督法", None),
        Law("国务院组织法.md", "国务院组织法", None),
        Law("法院组织法.md", "人民法院组织法", None),
    ]
    assert laws_named("监督法第九条规定了什么？", long_names) == {
        "各级人民代表大会常务委员会监督法"
    }
    assert laws_named("组织法第九条规定了什么？", long_names) == set()
    song = [law for law in laws if law.name == "乐章法"]
    assert chosen_paths(song, EditionAsk("year", 1996, True)) == {"乐章法(1996-03-17).md"}
    # the edition in force that year: the newest dated no later
    assert chosen_paths(song, EditionAsk("year", 2010, True)) == {"乐章法(1996-03-17).md"}
    assert chosen_paths(song, EditionAsk("before", None, True)) == {"乐章法(1996-03-17).md"}
    assert chosen_paths(song, EditionAsk("current")) == {"乐章法(2024-06-28).md"}


@pytest.fixture
def laws_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from citewise.kb import Home

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    docs = tmp_path / "laws"
    docs.mkdir()
    (docs / "青旗法(2001-05-01).md").write_text(FLAG, "utf-8")
    (docs / "乐章法(1996-03-17).md").write_text(SONG_OLD, "utf-8")
    (docs / "乐章法(2024-06-28).md").write_text(SONG_NEW, "utf-8")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([docs]).ok
        yield kb


def _paths(answer) -> set[str]:  # type: ignore[no-untyped-def]
    return {c.path for c in answer.citations}


def test_a_clause_of_a_named_law_is_read_in_that_law_only(laws_kb) -> None:  # type: ignore[no-untyped-def]
    flag = laws_kb.ask("青旗法第十条规定了什么？")
    assert flag.outcome == "answered", flag.answer
    assert _paths(flag) == {"青旗法(2001-05-01).md"}
    song = laws_kb.ask("《中华人民共和国乐章法》第十条规定了什么？")
    assert song.outcome == "answered", song.answer
    assert _paths(song) == {"乐章法(2024-06-28).md"}  # current by default
    assert "国家图书馆" in song.answer


def test_an_edition_named_in_chinese_is_read(laws_kb) -> None:  # type: ignore[no-untyped-def]
    old = laws_kb.ask("乐章法1996年那一版第十条规定了什么？")
    assert old.outcome == "answered", old.answer
    assert _paths(old) == {"乐章法(1996-03-17).md"}
    assert "国家档案馆" in old.answer


def test_the_trace_says_the_meaning_reading_was_skipped_for_chinese(laws_kb) -> None:  # type: ignore[no-untyped-def]
    got = laws_kb.ask("青旗法第十条规定了什么？")
    assert got.trace["meaning"] == {"skipped": NO_CHINESE_READER}


def test_an_edition_no_step_records_abstains_and_says_so(laws_kb) -> None:  # type: ignore[no-untyped-def]
    # the 乐章法 editions record 1996 and 2024 only: a 2010 amendment is no edition
    got = laws_kb.ask("2010年修正的乐章法第十条规定了什么？")
    assert got.outcome != "answered", got.answer
    assert not got.citations
    said = f"{got.answer} {got.sufficiency}"
    assert "2010" in said and "乐章法" in said, said
    # the text in force in 2010 is the 1996 edition, which answers
    in_force = laws_kb.ask("2010年的乐章法第十条规定了什么？")
    assert in_force.outcome == "answered", in_force.answer
    assert _paths(in_force) == {"乐章法(1996-03-17).md"}
