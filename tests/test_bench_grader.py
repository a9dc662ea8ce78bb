"""The benchmark grader (bench/_grading.py) on hand-made answers; no shared data needed."""

from __future__ import annotations

import hashlib

from bench._grading import (
    Location,
    Question,
    check_citation,
    contains_phrase,
    gold_in_answer,
    grade,
    squad_normalize,
)

Q = Question(
    id="t-1",
    corpus="demo",
    question="What is the default minimum_size of GZipMiddleware?",
    answerable=True,
    expected=(Location("docs/middleware.md", 231, 231),),
    must_contain=("500",),
    any_of=("minimum_size", "minimum size"),
)
NO = Question(id="t-2", corpus="demo", question="Brotli level?", answerable=False)
AT = [Location("docs/middleware.md", 230, 231)]


def test_right_needs_words_and_an_overlapping_citation() -> None:
    g = grade(Q, "answered", "`minimum_size` - ... Defaults to `500`.", AT)
    assert (g.label, g.located, g.missing) == ("right", True, ())


def test_partial_names_the_missing_words() -> None:
    g = grade(Q, "answered", "`minimum_size` - Do not GZip small responses.", AT)
    assert g.label == "partial" and g.missing == ("500",)
    g = grade(Q, "answered", "Defaults to 500.", AT)
    assert g.label == "partial" and g.missing[0].startswith("any_of:")


def test_miscited_when_no_citation_overlaps() -> None:
    elsewhere = [Location("docs/middleware.md", 232, 240), Location("docs/other.md", 231, 231)]
    assert grade(Q, "answered", "minimum_size 500", elsewhere).label == "miscited"


def test_abstentions_and_overreach() -> None:
    assert grade(Q, "insufficient_evidence", "", []).label == "wrong_abstention"
    assert grade(NO, "insufficient_evidence", "", []).label == "correct_abstention"
    assert grade(NO, "answered", "anything", AT).label == "overreach"


def test_phrases_match_whole_words_only() -> None:
    assert contains_phrase("Values `yes`, `on` activate it", "on")
    assert not contains_phrase("an option is given", "on")
    assert contains_phrase("removed in version 0.17.0.", "0.17.0")
    assert not contains_phrase("uses 5000 threads", "500")
    assert contains_phrase("Set  `raise_server_exceptions=False`", "raise_server_exceptions=False")


def test_citation_check_offsets_hash_and_lines() -> None:
    src = "# T\r\nfirst line\nsecond line\n"
    start = src.index("second")
    excerpt = "second line"
    sha = hashlib.sha256(excerpt.encode()).hexdigest()

    def check(offset: int, lines: tuple[int, int], digest: str) -> tuple[bool, str]:
        c = check_citation(
            src,
            char_start=start + offset,
            char_end=start + offset + len(excerpt),
            line_start=lines[0],
            line_end=lines[1],
            excerpt=excerpt,
            sha256=digest,
        )
        return c.exact, c.problem

    assert check(0, (3, 3), sha) == (True, "")
    exact, problem = check(0, (2, 2), sha)
    assert not exact and "lines" in problem
    exact, problem = check(0, (3, 3), "0" * 64)
    assert not exact and "sha256" in problem
    exact, problem = check(1, (3, 3), sha)
    assert not exact and "excerpt" in problem


def test_squad_normalisation() -> None:
    assert squad_normalize("The  Normans!") == "normans"
    assert gold_in_answer("They were called the Normans, in France.", ["Normans"])
    assert not gold_in_answer("Normandy lies in France.", ["Norman"])


def test_chinese_phrases_match_without_word_spaces_and_across_line_breaks() -> None:
    # CJK text has no word spaces: the phrase is found inside a longer run of characters,
    # and a line break or PDF spacing between two CJK characters is not a boundary.
    assert contains_phrase("可以处十五日以下拘留。", "十五日以下拘留")
    assert contains_phrase("处十五日以\n下拘留", "十五日以下拘留")
    assert contains_phrase("自 2017 年 10 月 1 日起施行", "2017年10月1日")
    assert not contains_phrase("可以处十日以下拘留", "十五日以下拘留")
    # ASCII word boundaries still hold next to CJK text
    assert contains_phrase("领海宽度为12海里", "12海里")
    assert not contains_phrase("领海宽度为112海里", "12海里")


def test_grade_takes_the_sets_own_containment() -> None:
    q = Question(
        "s", "squad", "Who?", True, expected=(Location("a.md", 3, 3),), any_of=("the Normans",)
    )
    at = [Location("a.md", 3, 3)]
    assert grade(q, "answered", "Normans", at).label == "partial"
    g = grade(q, "answered", "Normans", at, contains=lambda a, g: gold_in_answer(a, [g]))
    assert g.label == "right"
