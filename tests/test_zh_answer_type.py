"""Chinese answer types (issue 34): what a Chinese question asks for, what a unit holds,
and the hard gate that keeps a 何时 / 多少 question from a unit without a time / number.

Units are written here in two styles: statute articles (laws-zh style) and
encyclopedic prose (CMRC style)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.analysis.question import analyse
from citewise.sufficiency.constraints import question_constraints, unmet
from citewise.sufficiency.zh_answer_type import expected_type, present_types, unit_has_type


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("国歌法从什么时候开始施行？", "time"),
        ("青石镇始建于哪一年？", "time"),
        ("该法何时通过？", "time"),
        ("全国人民代表大会代表的任期是多长时间？", "number"),
        ("青石镇现有居民大约多少人？", "number"),
        ("国务院总理每届任期几年？", "number"),
        ("授权立法规定在立法法第几条？", "ordinal"),
        ("宪法由谁解释？", "agent"),
        ("哪个机关负责监督宪法的实施？", "agent"),
        ("青石镇位于哪里？", "place"),
        ("立法法规定了哪几个方面？", None),  # which several: a list, not a count
        ("什么是监察官？", None),
    ],
)
def test_expected_type(question: str, kind: str | None) -> None:
    assert expected_type(question) == kind


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("本法自2017年10月1日起施行。", {"time", "number"}),
        ("本法自公布之日起施行。", {"time"}),
        ("二〇一三年十二月二十八日第十二届全国人民代表大会常务委员会第六次会议通过", {"time"}),
        ("由公安机关处以警告或者十五日以下拘留。", {"number", "agent"}),
        ("全国人民代表大会代表每届任期五年。", {"number"}),
        ("青石镇始建于清朝乾隆年间，现有居民约三千人。", {"time", "number"}),
        ("青石镇位于河谷东岸。", {"place"}),
    ],
)
def test_unit_types(text: str, kinds: set[str]) -> None:
    assert kinds <= present_types(text)


def test_references_and_question_years_are_no_values() -> None:
    assert not unit_has_type("依照本法第十条的规定办理。", "number")
    assert unit_has_type("依照本法第十条的规定办理。", "ordinal")
    # a year the question itself names is its subject, not the answer
    assert not unit_has_type("1996年的版本规定了戒严的实施。", "time", ["1996年", "1996"])
    assert not unit_has_type("国歌是中华人民共和国的象征和标志。", "time")


_NO_TIME = st.text(
    alphabet=st.sampled_from("国家法律规定代表会议居民青石镇河谷东岸的是和在由对应当可以，。"),
    min_size=1,
    max_size=40,
)
_WHEN = st.sampled_from(
    ["国歌法从什么时候开始施行？", "青石镇始建于哪一年？", "该法何时通过？", "会议几月召开？"]
)
_HOW_MANY = st.sampled_from(
    ["青石镇现有居民大约多少人？", "代表任期几年？", "拘留最长多少日？", "会议有多少名代表出席？"]
)


@settings(max_examples=80, deadline=None)
@given(question=_WHEN, unit=_NO_TIME)
def test_a_when_question_is_never_answered_by_a_unit_without_time(question: str, unit: str) -> None:
    """Property: every generated unit without a time expression fails the question's
    constraints on its answer type (laws-zh and CMRC style questions)."""
    failed = unmet(question_constraints(analyse(question)), unit)
    assert any(c.key.startswith("zh-time") for c in failed)


@settings(max_examples=80, deadline=None)
@given(question=_HOW_MANY, unit=_NO_TIME)
def test_a_how_many_question_is_never_answered_by_a_unit_without_number(
    question: str, unit: str
) -> None:
    failed = unmet(question_constraints(analyse(question)), unit)
    assert any(c.key.startswith("zh-number") for c in failed)


def test_a_unit_with_the_value_meets_the_type() -> None:
    # the law's name is in the unit's heading (its document title)
    when = question_constraints(analyse("国歌法从什么时候开始施行？"))
    assert not unmet(when, "本法自2017年10月1日起施行。", ["中华人民共和国国歌法"])
    assert not unmet(
        question_constraints(analyse("青石镇现有居民大约多少人？")), "青石镇现有居民约三千人。"
    )
