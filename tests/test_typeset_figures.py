"""A figure whose thousands separator typesetting left in the text (sufficiency/figures.py,
issue 34): "200, 000" in a PDF's extracted text and "200\u2009000" in a standard state
200,000; a list of figures stays a list."""

from __future__ import annotations

import pytest

from citewise.sufficiency.constraints import Constraint
from citewise.sufficiency.figures import number_found


@pytest.mark.parametrize(
    "text",
    [
        "We often run it with M = 200, 000 and R = 5, 000 on 2,000 machines.",  # a PDF's text
        "The reservoir holds 200\u2009000 cubic metres; the spillway 5\u202f000.",  # a standard
    ],
)
def test_a_typeset_thousands_separator_still_states_the_figure(text: str) -> None:
    assert number_found(Constraint("number", "200,000", "200000"), text)
    assert number_found(Constraint("number", "5,000", "5000"), text)
    assert not number_found(Constraint("number", "300,000", "300000"), text)


def test_a_list_of_figures_is_not_one_figure() -> None:
    sizes = "Blocks of 64, 128 and 256 bytes."
    assert number_found(Constraint("number", "64", "64"), sizes)
    assert number_found(Constraint("number", "128", "128"), sizes)
