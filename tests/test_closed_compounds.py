"""Closed compounds the documents write open (sufficiency/closed_compounds.py): a question's
"keypress" is not an absent subject when the docs write "Key Press"; a word the docs hold
in no form still is."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.analysis.intent import classify_intent
from citewise.analysis.question import analyse
from citewise.kb import KnowledgeBase
from citewise.sufficiency.closed_compounds import MIN_PART, open_form, splits, written_open
from citewise.sufficiency.presence import profile_terms
from tests.conftest import one_file_kb

DF = {"key": 3, "press": 2, "file": 9, "name": 7}


def _df(t: str) -> int:
    return DF.get(t, 0)


def test_splits_keep_parts_of_three_letters_or_more() -> None:
    assert splits("keypress") == [("key", "press"), ("keyp", "ress"), ("keypr", "ess")]
    assert splits("abcde") == [] and splits("file_name") == [] and splits("Größe") == []
    # a prefix makes a derived word, not a compound ("under represented" is no reading)
    assert ("under", "represented") not in splits("underrepresented")
    assert ("over", "looked") not in splits("overlooked")


@given(st.text(alphabet="abcdefghij", min_size=0, max_size=20))
def test_every_split_rejoins_the_word(word: str) -> None:
    for first, second in splits(word):
        assert first + second == word and min(len(first), len(second)) >= MIN_PART


def test_written_open_needs_the_two_words_side_by_side() -> None:
    assert written_open("## Waiting for Key Press", "key", "press")
    assert written_open("a key-press event", "key", "press")
    assert not written_open("press any key", "key", "press")
    assert not written_open("monkey pressure", "key", "press")


def test_open_form_needs_both_parts_known_and_written_together() -> None:
    assert open_form("keypress", _df, lambda a, b: (a, b) == ("key", "press")) == "key press"
    assert open_form("keypress", _df, lambda a, b: False) is None  # never written together
    assert open_form("keyboard", _df, lambda a, b: True) is None  # "board" is no KB word


def test_the_profile_reads_an_open_written_compound_as_soft() -> None:
    q = "How do I read a single keypress from the terminal?"
    subject = classify_intent(q).subject_terms
    plain = {t.surface: t for t in profile_terms(analyse(q), subject, _df, 100).terms}
    seen = {
        t.surface: t
        for t in profile_terms(analyse(q), subject, _df, 100, None, lambda a, b: True).terms
    }
    assert not plain["keypress"].soft and seen["keypress"].soft


GUIDE = """# Terminal utilities

## Waiting for Key Press

Sometimes it is useful to pause until the user presses any key on the keyboard.
The pause function prints a message and waits for the user to press a key.

## Colours

The style function adds colours to terminal output.
"""


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    return one_file_kb(tmp_path, monkeypatch, GUIDE, "utils.md")


def test_a_question_with_the_closed_form_is_answered(kb: KnowledgeBase) -> None:
    ans = kb.ask("How do I pause until a keypress?")
    assert ans.outcome == "answered", ans.answer
    assert "pause" in ans.answer


def test_a_word_the_docs_hold_in_no_form_is_still_absent(kb: KnowledgeBase) -> None:
    ans = kb.ask("How do I pause until a keystroke?")  # "stroke" is nowhere in the docs
    assert ans.outcome == "insufficient_evidence"
    assert "keystroke" in ans.answer
