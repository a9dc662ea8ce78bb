"""Numbers that are not fact values (citewise.sufficiency._numbers), one rule at a time."""

from __future__ import annotations

import pytest

from citewise.sufficiency._numbers import (
    SCI_NOTATION,
    concerns_question,
    framing_condition,
    in_brackets,
    is_bound,
    is_compound_modifier,
    is_confidence_level,
    is_label_number,
    is_statistic_label,
    is_unlinked_count,
    is_year,
    sci_value,
)


@pytest.mark.parametrize(
    "subject", ["p", "P <", "n", "x", "p(trend)", "OR", "95% CI", "hazard ratio"]
)
def test_statistic_labels(subject: str) -> None:
    assert is_statistic_label(subject)


@pytest.mark.parametrize("subject", ["retry limit", "api port", "birth weight", "cd4 cell count"])
def test_not_statistic_labels(subject: str) -> None:
    assert not is_statistic_label(subject)


def test_bounds() -> None:
    assert is_bound("CD4 ≤") and is_bound("P < ") and is_bound("p less than ")
    assert not is_bound("the retry limit is ") and not is_bound("up to ")


def test_label_numbers() -> None:
    assert is_label_number("at week ") and is_label_number("with type ")
    assert is_label_number("the year ") and is_label_number("at D ")
    assert not is_label_number("the grade is ") and not is_label_number("Retry limit ")


def test_years() -> None:
    assert is_year("1953", "available since ", ".") and is_year("2004", "Smith et al., ", ")")
    assert is_year("1995", "from ", "-2000")
    assert not is_year("2048", "The buffer size is ", ".") and not is_year("150", "(", ")")


def test_compound_modifiers() -> None:
    assert is_compound_modifier("-day point prevalence") and is_compound_modifier(",5-bisphosphate")
    assert not is_compound_modifier(" days") and not is_compound_modifier("-90 s")


def test_unlinked_counts() -> None:
    assert is_unlinked_count("among the ", " women with ER-positive disease")
    assert is_unlinked_count("deletion of the N-terminal ", " amino acids")
    assert not is_unlinked_count("The cluster has ", " nodes")
    assert not is_unlinked_count("Retry limit ", "")
    assert not is_unlinked_count("mortality was ", " in boys")
    assert is_unlinked_count("7.8 percent among the ", " with levels of 2 to 10 mg")


def test_scientific_notation_is_one_number() -> None:
    for text, value in [
        ("4.64 × 10−4", "4.64e-4"),
        ("1.5 x 10(12)", "1.5e12"),
        ("5 × 10^-8", "5e-8"),
    ]:
        m = SCI_NOTATION.search(text)
        assert m is not None and sci_value(m) == value


def test_confidence_levels_and_brackets() -> None:
    assert is_confidence_level(" CI, 1.05-2.12") and is_confidence_level(" confidence interval")
    assert not is_confidence_level(" of patients")
    assert in_brackets("rate was 6% (95% CI 5", 19) and not in_brackets("rate (a) was 6", 14)


def test_framing_condition() -> None:
    assert framing_condition("RESULTS At 12 weeks, 53.0% achieved abstinence.") == "at 12 weeks"
    assert framing_condition("Among women with ER-negative disease, it had no effect.") == (
        "among women with er-negative disease"
    )
    assert framing_condition("In addition, the rate was 5%.") is None
    assert framing_condition("By default, the retry limit is 3.") is None
    assert framing_condition("The retry limit is 3.") is None


def test_concerns_question() -> None:
    assert not concerns_question(set(), {"aspirin"}, 1.0)  # "p", "n": no key terms
    assert concerns_question({"aspirin"}, {"aspirin", "adenoma"}, 0.0)
    assert concerns_question({"retri", "limit"}, set(), 0.5)
