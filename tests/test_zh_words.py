"""Chinese question words by jieba segmentation (issue 34): key terms, subjects, reasons.

Fixtures are written here in two styles of text: statute articles (laws-zh style) and
encyclopedic prose (CMRC style); none is copied from a corpus.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from citewise.analysis import zh_words
from citewise.analysis.intent import classify_intent, subject_text
from citewise.analysis.question import analyse
from citewise.analysis.tokenize import key_terms, term_coverage, tokenize
from citewise.sufficiency.presence import missing_surface, surface_words

LEGAL = "第十条 全国人民代表大会代表的任期为五年，从每届全国人民代表大会举行第一次会议开始。"
ENCYCLOPEDIC = "青石镇位于河谷东岸，始建于清朝乾隆年间，以出产青色石板闻名，镇上现有居民约三千人。"

#: Interrogatives of several shapes (how long, which article, which several, what,
#: whether, who, how many): none is ever a key term nor part of one.
INTERROGATIVES = ("多长时间", "第几条", "哪几个", "什么", "是否", "谁", "多少", "哪一年", "几年")


def test_legal_question_terms_are_words_of_the_question() -> None:
    q = "全国人民代表大会代表的任期是多长时间？"
    terms = key_terms(q)
    assert "任期" in terms and "代表" in terms
    assert not {"多长", "长时", "时间", "期是", "是多", "表的"} & set(terms)
    assert term_coverage(q, LEGAL).ratio == 1.0  # every term is found in the article


def test_encyclopedic_question_terms_are_words_of_the_question() -> None:
    q = "青石镇是什么时候始建的？"
    terms = key_terms(q)
    assert "青石" in terms and "始建" in terms
    assert "时候" not in terms  # the asked category (什么时候): the answer's type
    assert not {"么时", "镇是", "是什"} & set(terms)
    assert term_coverage(q, ENCYCLOPEDIC).ratio == 1.0


def test_clause_number_and_law_name_stay_terms() -> None:
    terms = key_terms("立法法第十条规定了哪几个方面？")
    assert {"立法", "第十", "十条", "规定"} <= set(terms)
    assert not {"哪几", "几个", "方面", "法第", "条规"} & set(terms)


def test_subject_is_never_the_whole_question() -> None:
    for q in ("青石镇现有居民大约多少人？", "全国人民代表大会代表的任期是多长时间？"):
        subject = classify_intent(q).subject
        assert subject and subject != q.rstrip("？")
        assert not any(w in subject for w in INTERROGATIVES)
    assert subject_text("什么是同步重试？") == "同步重试"
    assert subject_text("有效期是什么") == "有效期"  # 有 is part of the word, not a cue


def test_missing_words_are_named_as_the_question_writes_them() -> None:
    q = "全国人民代表大会代表的任期是多长时间？"
    surface = surface_words(analyse(q))
    assert surface["任期"] == "任期"
    assert surface["人民"] == "全国人民代表大会"
    assert missing_surface(analyse(q), ["任期", "人民"]) == ["任期", "全国人民代表大会"]


def test_key_terms_are_index_tokens() -> None:
    """Every key term is a token the index holds for a text with the same words."""
    for q, text in (("青石镇是什么时候始建的？", ENCYCLOPEDIC), ("代表任期为几年？", LEGAL)):
        assert set(key_terms(q)) <= set(tokenize(text))


def test_single_character_subject_is_kept_when_it_is_all() -> None:
    assert key_terms("税是什么") == ["税"]


def test_identifier_glued_to_chinese_is_read_as_before() -> None:
    assert subject_text("光栅模块G-3需要什么？") == "光栅模块g-3"


def test_jieba_cache_is_in_the_temporary_directory() -> None:
    zh_words.segment("测试分词")
    tok = zh_words._tokenizer()
    assert Path(tok.cache_file).parent == Path(tempfile.gettempdir())


_HAN = st.text(alphabet=st.sampled_from("国家法律代表任期会议规定青石镇居民河谷城市"), max_size=8)


@settings(max_examples=60, deadline=None)
@given(before=_HAN, word=st.sampled_from(INTERROGATIVES), after=_HAN)
def test_interrogatives_are_never_demanded(before: str, word: str, after: str) -> None:
    """Property: wherever the segmenter reads the interrogative as a word, no key term
    is a bigram of it or crosses its boundary."""
    q = f"{before}{word}{after}？"
    assume(word in zh_words.segment(q))  # "是否定" is 是 / 否定: no interrogative there
    own = {word[i : i + 2] for i in range(len(word) - 1)} | {word}
    crossing = set()
    if before:
        crossing.add(before[-1] + word[0])
    if after:
        crossing.add(word[-1] + after[0])
    terms = set(key_terms(q))
    assert not terms & own
    assert not terms & crossing


def test_a_name_the_dictionary_lacks_stays_one_term() -> None:
    """A personal name or a compound jieba splits into characters is joined again, so the
    name is demanded (encyclopedic) and a law's short name stays whole (legal)."""
    assert zh_words.segment("雨侨") == ["雨", "侨"]  # not in jieba's dictionary
    assert "雨侨" in key_terms("雨侨本来的名字叫什么？")
    assert "歌法" in key_terms("国歌法从什么时候开始施行？")  # 国歌 / 法 joined
    assert key_terms("税是什么") == ["税"]  # a verb is never joined to a noun character
