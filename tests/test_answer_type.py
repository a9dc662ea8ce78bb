"""The answer type a quoted unit must hold (sufficiency/answer_type.py, issue 15 reject
sets): a date for "when did", a count for "how many", never one of the question's own
figures, never any digit."""

from __future__ import annotations

from citewise.analysis.question import analyse
from citewise.sufficiency.answer_type import figures_of, gives_date, gives_quantity
from citewise.sufficiency.constraints import question_constraints, unmet


def failed(question: str, text: str) -> list[str]:
    return [c.surface for c in unmet(question_constraints(analyse(question)), text)]


def test_a_date_is_a_year_month_century_or_era_not_any_digit() -> None:
    assert gives_date("Rollo died in 932.")
    assert gives_date("It was built in the 1950's.")
    assert gives_date("Charlemagne was crowned in AD 800.")
    assert gives_date("It fell in the fifteenth century.")
    assert gives_date("It closed in March.")
    # a page reference, a clock time, a decimal and a dotted name give no date
    assert not gives_date("Land empires are excluded.:116 Thus it can be said.")
    assert not gives_date("MSPs decide at 5 pm on all the motions.")
    assert not gives_date("The X.25 protocol suite uses packet switching.")
    assert not gives_date("The ratio is 3.14 here.")
    # "may" the verb is no month
    assert not gives_date("A member state may restrict a company.")


def test_the_question_s_own_year_is_not_the_date_asked_for() -> None:
    assert figures_of(analyse("How many French Catholics were there in 1,598 or 1600?")) == (
        "1598",
        "1600",
    )
    assert not gives_date("The edict of 1598 protected them.", ("1598",))
    assert gives_date("The edict of 1598 was revoked in 1685.", ("1598",))


def test_a_count_is_a_figure_or_number_word_not_a_year_time_or_reference() -> None:
    assert gives_quantity("There are 129 MSPs.")
    assert gives_quantity("It lasted sixty-three days.")
    assert gives_quantity("About 1500 troops landed.")
    assert gives_quantity("Several thousand Huguenots left.")
    assert not gives_quantity("The Warsaw Uprising took place between August and October 1944.")
    assert not gives_quantity("It was founded in 1636.")
    assert not gives_quantity("MSPs decide at 5 pm on all the motions.")
    assert not gives_quantity("The Court held that under article 49 a member state could act.")
    assert not gives_quantity("A campus 3 miles from here.", ("3",))


def test_when_and_how_many_questions_refuse_a_unit_without_that_value() -> None:
    q = "When did the Ottoman Empire fall?"
    assert failed(q, "Land empires such as the Ottoman are excluded.:116 Thus it lacks focus.") == [
        "when"
    ]
    assert failed(q, "The Ottoman Empire fell in 1923.") == []
    q = "How many days did the Warsaw Uprising last?"
    assert failed(q, "The Warsaw Uprising took place between August and October 1944.") == [
        "How many"
    ]
    assert failed(q, "The Warsaw Uprising lasted 63 days.") == []
    # other quantities may well be years: "how long" is answered by a span of them
    assert failed("How long did the Yuan rule?", "The Yuan ruled from 1271 to 1368.") == []
