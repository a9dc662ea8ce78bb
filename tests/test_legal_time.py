"""Periods as legal text writes them (sufficiency/legal_time.py): a "how soon" question
is answered by "within ten (10) working days"; sentences from a U.S. regulation (14 CFR)
and a contract-style clause, and non-periods from both kinds of text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.sufficiency.answer_type import gives_time
from citewise.sufficiency.legal_time import states_period


@pytest.mark.parametrize(
    "text",
    [
        # regulation (14 CFR 1206.401(a), 1212.400(a)(3))
        "the FOIA staff will send an acknowledgement letter within ten (10) working days",
        "Have not been granted access within 30 work days of their request.",
        # contract-style clauses
        "The supplier shall respond within five (5) business days of the notice.",
        "Either party may terminate on thirty (30) calendar days' written notice.",
        "The licence runs for three years.",
    ],
)
def test_periods_are_times(text: str) -> None:
    assert states_period(text)
    assert gives_time(text)


@pytest.mark.parametrize(
    "text",
    [
        "Claims less than $5,000 will be acted upon by the Chief Counsel.",
        "Section 10 applies to working papers.",
        "The Board consists of ten members.",
        "See paragraph (10) of this section for business records.",
    ],
)
def test_non_periods(text: str) -> None:
    assert not states_period(text)


@given(st.text(max_size=200))
def test_total_on_any_text(text: str) -> None:
    assert isinstance(states_period(text), bool)
