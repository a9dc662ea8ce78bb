"""The slot a Chinese question asks, which its answer unit must hold (issue 34): a count
in the measure it names (几天, 多少平方米), a body for 哪个机关, half the question's words,
and an edition that exists. Units are written here in two styles: statute articles
(laws-zh style) and encyclopedic prose (CMRC style)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.analysis.question import analyse
from citewise.errors import UsageError
from citewise.recall.zh_laws import EditionAsk, Law, chosen_paths, edition_asked, step_years
from citewise.sufficiency.constraints import question_constraints, unmet
from citewise.sufficiency.zh_answer_type import gate_kind, unit_has_type
from citewise.sufficiency.zh_measure import (
    asked_measure,
    numeral_value,
    question_amounts,
    states_amount,
    states_measure,
)
from citewise.sufficiency.zh_terms import coverage_min, held_words, words_constraint


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        ("烈士纪念日全国放假几天？", "duration"),
        ("公安机关应当在多少日内发放居民身份证？", "duration"),
        ("申请领取身份证的期限是多长时间？", "duration"),
        ("担任陪审员需要年满多少周岁？", "age"),
        ("违反规定的罚款多少元？", "money"),
        ("青石公园的面积是多少平方米？", "area"),
        ("青石镇距离省城多远？", "length"),
        ("青石镇现有居民多少人？", "headcount"),
        ("居民委员会主任每月的工资是多少？", "money"),  # a noun naming a sum of money
        ("青石汉堡于1957年的售价是多少？", "money"),
        ("罚款是工资的多少倍？", None),  # a ratio, no sum
        ("国旗的通用尺度有几种？", None),  # a generic classifier: any count
        ("村民委员会每届任期多长？", None),  # 多长 alone: a length or a duration
    ],
)
def test_the_measure_a_count_asks_in(question: str, measure: str | None) -> None:
    assert asked_measure(question) == measure


@pytest.mark.parametrize(
    ("text", "kind", "held"),
    [
        ("公安机关应当自受理之日起六十日内发放居民身份证。", "duration", True),
        ("公民应当自年满十六周岁之日起三个月内申请领取。", "duration", True),
        ("每年9月30日为烈士纪念日。", "duration", False),  # a date, no duration
        ("本法自2017年10月1日起施行。", "duration", False),
        ("二〇一三年十二月二十八日通过。", "duration", False),
        ("青石镇始建于明朝，距今已有六百余年。", "duration", True),
        ("由年满四十周岁的永久性居民担任。", "age", True),
        ("处以二百元以下罚款。", "money", True),
        ("该湖面积约3.5平方公里，湖深十二米。", "area", True),
        ("该湖面积约3.5平方公里，湖深十二米。", "length", True),
        ("该湖面积约3.5平方公里。", "money", False),
        ("青石汉堡当时只售0.37美元。", "money", True),
        ("门票售价为$5。", "money", True),
        ("村民委员会由主任、副主任和委员共三至七人组成。", "money", False),
        ("全镇现有居民约3万人。", "headcount", True),
    ],
)
def test_a_number_in_its_measure(text: str, kind: str, held: bool) -> None:
    assert states_measure(text, kind) is held


def test_a_bare_yi_dian_is_no_clock_time() -> None:
    # "每一点" (every point) and "一点" (a little) are no time; a clock time is
    assert not unit_has_type("外部界限为一条其每一点与基线距离相等的线。", "time")
    assert not unit_has_type("他的汉语说得好一点。", "time")
    assert unit_has_type("会议于上午十时开始。", "time")
    assert unit_has_type("列车三点半到站。", "time")
    assert unit_has_type("列车于8点到站。", "time")


def test_the_gate_kinds() -> None:
    assert gate_kind("烈士纪念日全国放假几天？") == "number/duration"
    assert gate_kind("国歌法从什么时候开始施行？") == "time"
    assert gate_kind("加入中国国籍的申请由哪个机关审批？") == "agent"
    assert gate_kind("这次展览由什么组织主办？") == "agent"
    assert gate_kind("宪法由谁解释？") is None  # a person: soft
    assert gate_kind("什么是监察官？") is None


@pytest.mark.parametrize(
    ("question", "wrong", "right"),
    [
        (  # statute: a date where a count of days is asked
            "青旗纪念日全国放假几天？",
            "每年5月1日为青旗纪念日。",
            "青旗纪念日全国放假一天。",
        ),
        (  # statute: a preamble's dates where an area is asked
            "居民委员会的办公用房面积是多少平方米？",
            "2018年12月29日 第十三届全国人民代表大会常务委员会第七次会议修正",
            "居民委员会的办公用房面积不少于三百平方米。",
        ),
        (  # encyclopedic: a founding year where a headcount is asked
            "青石镇现有居民多少人？",
            "青石镇始建于1368年，位于河谷东岸。",
            "青石镇现有居民约三千人。",
        ),
        (  # statute: an article naming no body for 哪个机关
            "加入中国国籍的申请由哪个机关审批？",
            "加入中国国籍的申请，应当依法及时审批。",
            "加入中国国籍的申请，由公安部审批。",
        ),
        (  # encyclopedic: no organisation for 什么组织
            "青石音乐节由什么组织主办？",
            "青石音乐节每年夏季在湖畔举行，吸引众多游客。",
            "青石音乐节由青石文化协会主办。",
        ),
    ],
)
def test_a_unit_without_the_slot_is_refused(question: str, wrong: str, right: str) -> None:
    cs = question_constraints(analyse(question))
    assert any(c.key.startswith("zh-") for c in unmet(cs, wrong))
    assert not unmet(cs, right)


@pytest.mark.parametrize(
    ("question", "near", "right"),
    [
        (  # statute: the unit names the office, not the maximum age asked about
            "行政长官任职的最高年龄限制是多少周岁？",
            "行政长官由年满四十周岁的永久性居民担任。",
            "行政长官任职的最高年龄限制为七十周岁。",
        ),
        (  # encyclopedic: the person is named, the post asked about is not
            "石山麟最早担任的公司职务是什么？",
            "石山麟于1985年创立昌宁集团。",
            "石山麟最早在昌宁公司担任会计职务。",
        ),
    ],
)
def test_coverage_refuses_a_unit_on_another_matter_of_the_same_subject(
    question: str, near: str, right: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = words_constraint(question)
    assert c is not None
    assert not held_words(c.key, [near]) and held_words(c.key, [right])
    monkeypatch.setenv("CITEWISE_ZH_COVERAGE", "0")  # the distinctive-word rule alone
    assert held_words(c.key, [near])


def test_coverage_is_settable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert coverage_min() == 0.5
    monkeypatch.setenv("CITEWISE_ZH_COVERAGE", "1")
    assert coverage_min() == 1.0
    monkeypatch.setenv("CITEWISE_ZH_COVERAGE", "half")
    with pytest.raises(UsageError, match="CITEWISE_ZH_COVERAGE"):
        coverage_min()


def test_an_edition_no_step_records_is_absent() -> None:
    first = "乐章法(1996-03-17).md"
    old = Law(first, "乐章法", date(1996, 3, 17), step_years(first))
    new = Law(
        "乐章法(2024-06-28).md",
        "乐章法",
        date(2024, 6, 28),
        step_years("乐章法(2024-06-28).md", "1996年3月17日 通过\n2024年6月28日 修正"),
    )
    assert new.steps == {1996, 2024}
    asked = edition_asked("2021年修正的乐章法有哪些变化？")
    assert asked.event and chosen_paths([old, new], asked) == frozenset()
    assert chosen_paths([old], edition_asked("2021年修正的乐章法有哪些变化？")) == frozenset()
    # a step that an edition records reads that edition
    assert chosen_paths([old, new], edition_asked("1996年通过的乐章法规定了什么？")) == {old.path}
    # "the law of 2010" is the text in force then, no step: the 1996 edition
    in_force = edition_asked("2010年的乐章法规定了什么？")
    assert not in_force.event and chosen_paths([old, new], in_force) == {old.path}
    # a law whose editions record no step is not judged
    bare = Law("乐章法.md", "乐章法", None)
    assert chosen_paths([bare], EditionAsk("year", 2021, True, True)) == {bare.path}


# ------------------------------------------------------------------ property: the slot
#: Statute and encyclopedic fragments holding no time, number or body.
_FRAGMENTS = st.lists(
    st.sampled_from(
        [
            "应当",
            "依法",
            "保护",
            "尊严",
            "公开",
            "审议",
            "青石镇",
            "河谷",
            "风景",
            "优美",
            "传统",
            "文化",
            "的",
            "和",
            "，",
            "。",
        ]
    ),
    min_size=1,
    max_size=12,
).map("".join)
_SLOT_QUESTIONS = st.sampled_from(
    [
        "青石镇现有居民多少人？",  # 多少
        "罚款多少元？",
        "该法何时施行？",  # 何时
        "青石镇始建于什么时候？",
        "申请由哪个机关审批？",  # 哪个机关
        "这次展览由什么组织主办？",
    ]
)


@settings(max_examples=120, deadline=None)
@given(question=_SLOT_QUESTIONS, unit=_FRAGMENTS)
def test_a_slot_question_is_never_answered_by_a_unit_lacking_the_slot(
    question: str, unit: str
) -> None:
    """Property: a 多少 / 何时 / 哪个机关 question's constraints refuse every unit made of
    fragments that hold no number, time or body."""
    failed = unmet(question_constraints(analyse(question)), unit)
    assert any(c.key.startswith("zh-") for c in failed)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("30", 30),
        ("三十", 30),
        ("二十五", 25),
        ("三百五十", 350),
        ("一百零五", 105),
        ("一万五千", 15000),
        ("二〇一三", 2013),
        ("两", 2),
        ("十", 10),
        ("青石", None),
    ],
)
def test_numeral_values(text: str, value: int | None) -> None:
    assert numeral_value(text) == value


def test_the_amounts_a_question_states() -> None:
    assert question_amounts("有效期为三十年的居民身份证发给哪个年龄段的公民？") == ("三十年",)
    # 哪一年 asks; 1996年 is a point in time; Arabic figures are the English constraint's
    assert question_amounts("中国领海宽度从哪一年起由十二海里扩大为二十海里？") == (
        "十二海里",
        "二十海里",
    )
    assert question_amounts("青石镇在1996年有多少居民？") == ()


@pytest.mark.parametrize(
    ("question", "wrong", "right"),
    [
        (  # statute: the question's term of validity is not the unit's
            "有效期为三十年的居民身份证发给哪个年龄段的公民？",
            "十六周岁至二十五周岁的，发给有效期十年的居民身份证。",
            "四十六周岁以上的，发给有效期三十年的居民身份证。",
        ),
        (  # statute: an age inside the unit's range of ages is met by the range
            "三十岁的公民领取的居民身份证有效期是多少年？",
            "十六周岁至二十五周岁的，发给有效期十年的居民身份证。",
            "二十六周岁至四十五周岁的，发给有效期二十年的居民身份证。",
        ),
        (  # encyclopedic: another depth than the one asked about
            "水深超过二百米的海域生活着哪些鱼类？",
            "青鳞鱼生活在水深五十米以内的近海。",
            "灯笼鱼生活在水深二百米以下的海域。",
        ),
    ],
)
def test_an_amount_the_question_states_must_be_in_the_unit(
    question: str, wrong: str, right: str
) -> None:
    cs = question_constraints(analyse(question))
    assert any(c.key.startswith("zh-amount:") for c in unmet(cs, wrong))
    assert not any(c.key.startswith("zh-amount:") for c in unmet(cs, right))
    assert states_amount("年满四十六周岁以上的公民", "五十岁")


def test_coverage_reads_the_paragraph_around_the_unit() -> None:
    # encyclopedic: the sentence naming the fish, in a paragraph saying where it lives
    c = words_constraint("银鳞鲷主要分布在什么地方？")
    assert c is not None
    first = "银鳞鲷，又名青鳞鱼，为鲈形目的其中一种。"
    paragraph = first + "本鱼分布于西太平洋区，主要栖息于珊瑚礁海域。"
    assert not held_words(c.key, [first])
    assert held_words(c.key, [first], [paragraph])
    # statute: the paragraph is the article itself; it supplies nothing new
    q = "行政长官任职的最高年龄限制是多少周岁？"
    near = "行政长官由年满四十周岁的永久性居民担任。"
    cs = question_constraints(analyse(q))
    assert any(x.kind == "words" for x in unmet(cs, near, [], paragraph=near))
