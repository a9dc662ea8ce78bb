"""The distinctive words of a Chinese question that a quoted unit must hold (issue 34),
on statute text (laws-zh style) and encyclopedic text (CMRC style), both written here."""

from __future__ import annotations

from citewise.analysis.question import analyse
from citewise.sufficiency.constraints import question_constraints, unmet
from citewise.sufficiency.zh_terms import held_words, words_constraint, zh_zipf


def test_distinctive_words_are_the_uncommon_content_words() -> None:
    c = words_constraint("2018年通过的监察法规定责令候查最长不得超过多长时间？")
    assert c is not None and c.kind == "words"
    words = c.surface.split()
    assert "监察法" in words and "责令" in words
    assert not {"规定", "时间", "2018"} & set(words)  # common, asked category, edition
    assert zh_zipf("规定") > zh_zipf("责令")


def test_a_statute_unit_about_a_neighbouring_measure_is_refused() -> None:
    q = "监察法规定责令候查最长不得超过多长时间？"
    title = ["中华人民共和国监察法"]
    near = unmet(question_constraints(analyse(q)), "留置时间不得超过三个月。", title)
    assert any(c.kind == "words" for c in near)
    right = unmet(question_constraints(analyse(q)), "责令候查最长不得超过十二个月。", title)
    assert not right


def test_an_encyclopedic_unit_about_another_person_is_refused() -> None:
    q = "石山麟是什么集团的总裁？"
    assert not unmet(question_constraints(analyse(q)), "石山麟于1985年创立昌宁集团，现任总裁。")
    other = unmet(question_constraints(analyse(q)), "柯文远是青禾集团的创始人，曾任总裁。")
    assert any(c.kind == "words" for c in other)


def test_headings_hold_words_too() -> None:
    c = words_constraint("国歌法从什么时候开始施行？")
    assert c is not None
    assert not held_words(c.key, ["本法自2017年10月1日起施行。"])
    assert held_words(c.key, ["本法自2017年10月1日起施行。", "中华人民共和国国歌法"])


def test_common_words_only_give_no_constraint() -> None:
    assert words_constraint("这是什么时间？") is None
