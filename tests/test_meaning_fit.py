"""The meaning term of the answerability score (issue 34): a calibrated probability that
only lowers a unit's score, settable and monotonic."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.errors import UsageError
from citewise.sufficiency.answer_type import AnswerType
from citewise.sufficiency.answerability import Signals, answerability
from citewise.sufficiency.meaning_fit import (
    MEANING_WEIGHT,
    meaning_factor,
    meaning_probability,
    meaning_weight,
)

LOGITS = st.floats(min_value=-20.0, max_value=20.0, allow_nan=False)
UNIT = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(LOGITS, LOGITS)
def test_the_probability_rises_with_the_log_odds(a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert 0.0 <= meaning_probability(lo) <= meaning_probability(hi) <= 1.0


@given(LOGITS, LOGITS, UNIT)
def test_a_weaker_reading_never_raises_the_factor(a: float, b: float, w: float) -> None:
    lo, hi = sorted((a, b))
    assert meaning_factor(lo, w) <= meaning_factor(hi, w) + 1e-12 <= 1.0 + 1e-12


@given(UNIT, LOGITS, st.sampled_from([None, AnswerType.AGENT, AnswerType.DEFINITION]))
def test_the_meaning_term_never_raises_a_score(
    relevance: float, logit: float, expected: AnswerType | None
) -> None:
    plain = Signals(relevance, expected, frozenset())
    read = Signals(relevance, expected, frozenset(), meaning=logit)
    assert answerability(read) <= answerability(plain)


@given(UNIT, LOGITS, st.integers(min_value=0, max_value=3))
def test_adding_a_near_miss_to_a_read_unit_never_raises_its_score(
    relevance: float, logit: float, misses: int
) -> None:
    words = ("red", "small", "first", "old")
    fewer = Signals(relevance, None, frozenset(), near_misses=words[:misses], meaning=logit)
    more = Signals(relevance, None, frozenset(), near_misses=words[: misses + 1], meaning=logit)
    assert answerability(more) <= answerability(fewer)


def test_an_unread_unit_and_a_zero_weight_keep_the_score() -> None:
    assert meaning_factor(None) == 1.0
    assert meaning_factor(-8.0, 0.0) == 1.0
    assert meaning_factor(-8.0, 1.0) < 0.1  # a unit read as no answer at full weight


def test_the_weight_is_settable_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEWISE_ANSWERABLE_MEANING", raising=False)
    assert meaning_weight() == MEANING_WEIGHT
    monkeypatch.setenv("CITEWISE_ANSWERABLE_MEANING", "0.25")
    assert meaning_weight() == 0.25
    monkeypatch.setenv("CITEWISE_ANSWERABLE_MEANING", "strong")
    with pytest.raises(UsageError, match="CITEWISE_ANSWERABLE_MEANING"):
        meaning_weight()
    monkeypatch.setenv("CITEWISE_ANSWERABLE_MEANING", "1.5")
    with pytest.raises(UsageError, match="between 0 and 1"):
        meaning_weight()
