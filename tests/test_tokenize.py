"""Tokenizer: words, stemming, stopwords, literal tokens, CJK bigrams, key terms."""

from __future__ import annotations

import unicodedata

import pytest

from citewise.analysis.tokenize import (
    LUCENE_ENGLISH_STOPWORDS,
    cjk_tokens,
    content_tokens,
    is_cjk_char,
    key_terms,
    literal_tokens,
    term_coverage,
    tokenize,
    word_tokens,
)


def test_words_are_lowercased_and_stemmed() -> None:
    assert word_tokens("Running Dogs BARKED") == ["run", "dog", "bark"]
    # Same stem for inflections, so a query matches either form.
    assert word_tokens("connection")[0] == word_tokens("connected")[0]


def test_stemming_and_stopwords_can_be_switched_off_for_measurement() -> None:
    assert word_tokens("The running dogs", stem=False, stopwords=False) == [
        "the",
        "running",
        "dogs",
    ]


def test_lucene_stopwords_are_removed() -> None:
    assert len(LUCENE_ENGLISH_STOPWORDS) == 33
    assert word_tokens("the cat is on the mat and it was not there") == ["cat", "mat"]


def test_single_character_words_are_dropped_but_numbers_kept() -> None:
    assert word_tokens("x 7 42 port 8443") == ["42", "port", "8443"]


def test_fullwidth_text_is_normalised() -> None:
    assert word_tokens("ＨＴＴＰ") == ["http"]


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("upgrade to 1.2.0 today", "1.2.0"),
        ("release v1.2.0 is out", "v1.2.0"),
        ("release v1.2.0 is out", "1.2.0"),
        ("call /api/v2/sync with a token", "/api/v2/sync"),
        ("listen on host:8443", "host:8443"),
        ("certified to ISO 13485:2016.", "iso 13485:2016"),
        ("certified to ISO 13485:2016.", "13485:2016"),
        ("see § 1002.4(b) for details", "§1002.4(b)"),
        ("see § 1002.4(b) for details", "1002.4(b)"),
        ("see § 1002.4(b) for details", "1002.4"),
        ("the proxy answered HTTP 503", "http 503"),
        ("set the x-request-id header", "x-request-id"),
        ("the snake_case_id field", "snake_case_id"),
    ],
)
def test_literal_tokens_kept_whole(text: str, literal: str) -> None:
    assert literal in literal_tokens(text)
    assert literal in tokenize(text)


def test_literals_are_in_addition_to_their_parts() -> None:
    toks = tokenize("Upgrade to v1.2.0 on port 8443 via /api/v2/sync")
    for part in ["v1", "8443", "api", "v2", "sync", "1.2.0", "v1.2.0", "/api/v2/sync"]:
        assert part in toks
    toks = tokenize("ISO 13485:2016 and HTTP 503")
    for part in ["iso", "13485", "2016", "http", "503", "iso 13485:2016", "http 503"]:
        assert part in toks


def test_acronym_number_literal_needs_a_word_boundary() -> None:
    assert "http 503" not in literal_tokens("xHTTP 503")
    assert "iso 9001:2015" in literal_tokens("(ISO 9001:2015)")
    assert "http 503" in tokenize("HTTP 503错误")  # CJK right after the number is fine


def test_distinct_versions_give_distinct_literals() -> None:
    assert "1.2.0" not in tokenize("version 1.0.2")
    assert "1.0.2" in tokenize("version 1.0.2")


def test_trailing_sentence_punctuation_is_not_part_of_a_literal() -> None:
    assert literal_tokens("Install 2.4.1.") == ["2.4.1"]
    assert literal_tokens("plain words, nothing technical.") == []


def test_literals_do_not_count_as_content() -> None:
    text = "upgrade v1.2.0 now"
    assert "v1.2.0" not in content_tokens(text)
    assert "v1.2.0" in tokenize(text)


def test_cjk_unigrams_and_bigrams() -> None:
    assert cjk_tokens("排查指标") == ["排", "查", "指", "标", "排查", "查指", "指标"]
    # Bigrams never cross a break in the CJK run.
    assert "标异" not in cjk_tokens("指标，异常")
    assert "异常" in cjk_tokens("指标，异常")


def test_mixed_cjk_and_latin() -> None:
    toks = tokenize("HTTP 503错误")
    assert {"http", "503", "错", "误", "错误", "http 503"} <= set(toks)
    assert is_cjk_char("错") and not is_cjk_char("a") and not is_cjk_char("错误")


def test_japanese_and_korean_runs_also_get_bigrams() -> None:
    assert "テス" in cjk_tokens("テスト")
    assert "한국" in cjk_tokens("한국어")


def test_key_terms_drop_single_cjk_characters() -> None:
    terms = key_terms("怎么排查指标异常")
    assert "排查" in terms and "异常" in terms
    assert not any(len(t) == 1 for t in terms)
    # A lone CJK character is all the evidence there is: it stays.
    assert key_terms("猫") == ["猫"]


def test_key_terms_dedupe_in_order() -> None:
    assert key_terms("sync sync v1.2.0") == ["sync", "v1", "1.2.0", "v1.2.0"]


def test_term_coverage_counts_only_bigrams_in_cjk() -> None:
    # Every single character of the query occurs, but no bigram does.
    scrambled = "常异标指查排么怎"
    cov = term_coverage("怎么排查指标异常", scrambled)
    assert cov.matched == ()
    assert cov.ratio == 0.0
    full = term_coverage("怎么排查指标异常", "这里介绍怎么排查指标异常的问题")
    assert full.ratio == 1.0 and full.missing == ()


def test_term_coverage_over_several_texts() -> None:
    cov = term_coverage("sync endpoint 8443", ["the sync endpoint", "port 8443"])
    assert cov.ratio == 1.0
    cov = term_coverage("sync endpoint 8443", "the sync endpoint")
    assert cov.missing == ("8443",)
    assert cov.ratio == pytest.approx(2 / 3)
    assert term_coverage("the of", "anything").ratio == 1.0  # no key terms at all


def test_tokenize_is_pure() -> None:
    text = "Running /api/v2/sync 排查 ISO 9001:2015"
    assert tokenize(text) == tokenize(text)


def _reference_words(text: str) -> list[str]:
    """word_tokens as first written (Unicode regex on NFKC text, one stemmer call)."""
    import re

    import Stemmer

    from citewise.analysis.tokenize import _CJK_CLASS

    words = re.findall(f"[^\\W_{_CJK_CLASS}]+", unicodedata.normalize("NFKC", text).lower())
    words = [w for w in words if len(w) >= 2 and w not in LUCENE_ENGLISH_STOPWORDS]
    return list(Stemmer.Stemmer("english").stemWords(words)) if words else []


@pytest.mark.parametrize(
    "text",
    [
        "Running the RUNNERS' runs: snake_case_id, x-req-id and v1.2.0 at host:8443!",
        "A_B__c 42 abc123 ÀÉ café naïve Ｆｕｌｌｗｉｄｔｈ 排查指标 résumé running",
        "\t\nthe of a to in is it 7 77 _ __ -- ",
        "",
    ],
)
def test_word_tokens_equal_the_unicode_path_and_the_stemmer(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ASCII fast path and the per-process stem memo change no token, also once the
    memo is full and starts again."""
    from citewise.analysis import tokenize as tk

    assert word_tokens(text) == _reference_words(text)
    assert word_tokens(text) == _reference_words(text)  # from the memo now
    monkeypatch.setattr(tk, "STEM_MEMO", 3)
    tk._STEMS.clear()
    assert word_tokens(text * 2) == _reference_words(text * 2)
    assert word_tokens(text + " zebra") == _reference_words(text + " zebra")  # cleared again


def test_dotted_tails_are_the_names_a_qualified_identifier_also_writes() -> None:
    from citewise.analysis.tokenize import dotted_tails

    got = dotted_tails(["response.iter_content", "requests.session.send", "r.raw", "plain"])
    assert got == {"iter_content", "session.send", "send", "raw"}
    # versions, section numbers and short pieces name nothing
    assert dotted_tails(["1.2.3", "v10.2.8", "§1.2", "a.bc", "x.y"]) == set()
