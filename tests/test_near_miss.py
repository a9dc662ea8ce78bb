"""Near misses: a unit about the asked thing under another qualifier (issue 34).

Each class is tested on text of two corpus kinds: English documentation and
encyclopedic prose; Chinese legal and encyclopedic text. The fixtures are written here,
none is a development question."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.analysis.question import analyse
from citewise.sufficiency.answer_type import AnswerType
from citewise.sufficiency.answerability import Signals, answerability
from citewise.sufficiency.near_miss import near_misses, words_of


def _misses(question: str, unit: str, context: str = "") -> tuple[str, ...]:
    return near_misses(analyse(question), unit, context)


@pytest.mark.parametrize(
    ("question", "unit", "missed"),
    [
        # another modifier of the same head: documentation, encyclopedic prose
        (
            "What is the default timeout of the async client?",
            "The default timeout of the sync client is five seconds.",
            ("async",),
        ),
        (
            "Which river flows through the northern province?",
            "The Amber river flows through the southern province.",
            ("northern",),
        ),
        # another verb on the same object
        (
            "Which release removed the legacy parser?",
            "Version 2.0 deprecated the legacy parser.",
            ("removed",),
        ),
        (
            "When did the council approve the bridge?",
            "In 1902 the council rejected the bridge.",
            ("approve",),
        ),
        # Chinese: another modifier (encyclopedic), another value of the same measure (legal)
        ("北方分部的总部设在哪里？", "南方分部的总部设在广州。", ("北方",)),
        (
            "有效期为三十年的居民身份证发给哪个年龄段的公民？",
            "十六周岁至二十五周岁的，发给有效期十年的居民身份证。",
            ("三十年",),
        ),
        # a number is a whole word: 二十 is not in 二十四
        (
            "领海宽度由十二海里扩大为二十海里是哪一年？",
            "毗连区的外部界限距离为二十四海里。",
            ("二十",),
        ),
    ],
)
def test_a_replaced_qualifier_is_a_near_miss(
    question: str, unit: str, missed: tuple[str, ...]
) -> None:
    assert _misses(question, unit) == missed


@pytest.mark.parametrize(
    ("question", "unit"),
    [
        # the unit states the asked qualifier itself
        (
            "What is the default timeout of the sync client?",
            "The default timeout of the sync client is five seconds.",
        ),
        (
            "Which river flows through the southern province?",
            "The Amber river flows through the southern province.",
        ),
        ("北方分部的总部设在哪里？", "北方分部的总部设在天津。"),
        (
            "三十岁的公民领取的居民身份证有效期是多少年？",
            "二十六周岁至四十五周岁的，发给有效期二十年的居民身份证。",
        ),
        # a word form of the asked word is the word
        (
            "When did the council approve the bridge?",
            "The council's approval of the bridge came in 1902.",
        ),
        # a short form of the unit's name names the same thing
        ("中国领海的宽度是多少？", "中华人民共和国领海的宽度从领海基线量起为十二海里。"),
        (
            "What barrier forms in the GI tract?",
            "Commensal flora form a barrier in the gastrointestinal tract.",
        ),
        # the asked category after an interrogative is no qualifier
        ("In what year was the bridge opened?", "The bridge was opened in 1902."),
    ],
)
def test_the_asked_qualifier_or_its_form_is_no_near_miss(question: str, unit: str) -> None:
    assert _misses(question, unit) == ()


@pytest.mark.parametrize(
    ("question", "unit", "context"),
    [
        # the qualifier is where the unit stands: its section heading, its edition
        (
            "What is the default timeout of the async client?",
            "The default timeout of the sync client is five seconds.",
            "Async client",
        ),
        (
            "2021年修正的国籍法有哪些变化？",
            "第三条 中华人民共和国不承认中国公民具有双重国籍。",
            "中华人民共和国国籍法（2021年修正）",
        ),
        (
            "Which river flows through the northern province?",
            "The Amber river flows through the southern province.",
            "Rivers of the northern province",
        ),
        ("北方分部的总部设在哪里？", "南方分部的总部设在广州。", "北方分部"),
    ],
)
def test_a_qualifier_held_by_the_context_is_no_near_miss(
    question: str, unit: str, context: str
) -> None:
    assert _misses(question, unit, context) == ()


_WORDS = st.sampled_from(
    [
        "client",
        "timeout",
        "sync",
        "river",
        "province",
        "southern",
        "bridge",
        "council",
        "1902",
        "the",
        "of",
    ]
)


@settings(deadline=None)  # the first example loads the word-frequency list
@given(
    st.lists(_WORDS, min_size=1, max_size=12),
    st.lists(_WORDS, max_size=6),
    st.lists(_WORDS, max_size=6),
)
def test_more_context_never_adds_a_near_miss(
    unit: list[str], ctx: list[str], more: list[str]
) -> None:
    """Words added to the unit's context can only cancel near misses, never add one."""
    q = analyse("What is the default timeout of the async client in the northern province?")
    text = " ".join(unit)
    fewer = set(near_misses(q, text, " ".join([*ctx, *more])))
    assert fewer <= set(near_misses(q, text, " ".join(ctx)))


@given(
    st.floats(min_value=0.0, max_value=1.0),
    st.lists(st.sampled_from(["modern", "async", "北方", "三十年"]), max_size=3),
    st.sampled_from(["modern", "async", "北方", "三十年"]),
    st.sampled_from([None, AnswerType.AGENT, AnswerType.DEFINITION]),
)
def test_an_added_near_miss_never_raises_the_score(
    relevance: float, misses: list[str], extra: str, kind: AnswerType | None
) -> None:
    before = Signals(relevance, kind, frozenset(), None, tuple(misses))
    after = Signals(relevance, kind, frozenset(), None, (*misses, extra))
    assert answerability(after) <= answerability(before)


def test_the_near_miss_factor_is_settable(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Signals(0.8, None, frozenset(), None, ("modern",))
    monkeypatch.setenv("CITEWISE_ANSWERABLE_NEAR_MISS", "1")
    assert answerability(s) == pytest.approx(0.8)
    monkeypatch.setenv("CITEWISE_ANSWERABLE_NEAR_MISS", "0.25")
    assert answerability(s) == pytest.approx(0.2)


def test_words_keep_chinese_numbers_and_english_categories() -> None:
    zh = {w.surface: w for w in words_of("有效期为三十年的居民身份证发给哪个年龄段的公民？")}
    assert zh["三十年"].number and zh["三十年"].content
    assert not zh["年龄段"].content  # the asked category after 哪个
    en = {w.surface: w for w in words_of("In what year was the Rumford engine patented?")}
    assert not en["year"].content and en["Rumford"].content


_LAW = (
    "# 居民身份证法\n\n第五条 十六周岁以上公民的居民身份证的有效期为十年、二十年、长期。"
    "十六周岁至二十五周岁的，发给有效期十年的居民身份证。\n\n"
    "第六条 居民身份证式样由国务院公安部门制定。\n"
)
_GUIDE = (
    "# Rivers\n\nThe Amber river flows through the southern province and ends in the bay.\n\n"
    "The northern province has no large river; its towns draw water from wells.\n"
)


@pytest.mark.parametrize(
    ("name", "text", "near", "asked", "missed"),
    [
        (
            "law.md",
            _LAW,
            "有效期为三十年的居民身份证发给哪个年龄段的公民？",
            "有效期为十年的居民身份证发给哪个年龄段的公民？",
            "三十年",
        ),
        (
            "rivers.md",
            _GUIDE,
            "Which river flows through the northern province and ends in the bay?",
            "Which river flows through the southern province and ends in the bay?",
            "northern",
        ),
    ],
)
def test_an_ask_refuses_the_near_miss_naming_the_qualifier(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    text: str,
    near: str,
    asked: str,
    missed: str,
) -> None:
    """Through the pipeline (a real SQLite home): the unit that states another value or
    modifier is refused at the factor 0.3 (it takes it below the threshold), the reason
    names the question's own qualifier; the question it does answer is still answered;
    with the factor at 1 (the default: the feature off) the near miss is quoted as before."""
    from tests.conftest import one_file_kb

    kb = one_file_kb(tmp_path, monkeypatch, text, name=name)
    monkeypatch.setenv("CITEWISE_ANSWERABLE_NEAR_MISS", "0.3")  # the pool's tuned factor
    refused = kb.ask(near)
    assert refused.outcome != "answered", refused.answer
    assert missed in refused.answer
    assert kb.ask(asked).outcome == "answered"
    monkeypatch.setenv("CITEWISE_ANSWERABLE_NEAR_MISS", "1")
    off = kb.ask(near)
    if near.isascii():
        assert off.outcome == "answered"
    else:  # a Chinese question's own amount (三十年) is a hard gate of its own (zh_measure)
        assert off.outcome != "answered" and missed in off.answer, off.answer


def test_a_near_miss_names_what_the_unit_says_instead() -> None:
    """The pair the refusal reason quotes: the question's words and the unit's words in
    their place, as written (docs-style English, Chinese legal text)."""
    from citewise.sufficiency.near_miss import near_miss_pairs

    pairs = near_miss_pairs(
        analyse("What is the default size of the process pool?"),
        "The default thread pool size is 40 tokens.",
    )
    assert pairs == (("process pool", "thread pool"),)
    zh = near_miss_pairs(
        analyse("有效期为三十年的居民身份证发给哪个年龄段的公民？"),
        "十六周岁至二十五周岁的，发给有效期十年的居民身份证。",
    )
    assert zh == (("三十年的居民身份证", "十年的居民身份证"),)
