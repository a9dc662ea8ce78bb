"""The relevance floor of an answer unit (sufficiency/floor.py, issue 15 reject sets): a
unit scored below it is not quoted, and the refusal names the question's own words the
closest unit lacks."""

from __future__ import annotations

from citewise.analysis.question import analyse
from citewise.sufficiency.constraints import UnitGate, question_constraints
from citewise.sufficiency.floor import unmentioned


def test_unmentioned_names_the_question_s_words_the_text_lacks_in_any_form() -> None:
    q = "When did Henry issue the Edict of Nantes?"
    text = "Henry IV had protected Protestants through the Edict of Nantes."
    assert unmentioned(analyse(q), text) == ("issue",)
    assert unmentioned(analyse(q), "Henry issued the Edict of Nantes in 1598.") == ()
    # a heading may hold a word; question words and stop words are never named
    assert unmentioned(
        analyse("What was the Norman's major export?"), "Horses.", ["Norman exports"]
    ) == ("major",)
    # what is left of a contraction ("aren't") names no subject either
    assert unmentioned(analyse("Why aren't the examples visible?"), "Examples are hidden.") == (
        "visible",
    )
    # function words ("were", "its") are never what the question is about
    q = "Where were interviews held while the parliament was in its temporary building?"
    assert unmentioned(analyse(q), "The parliament met in a temporary hall.") == (
        "interviews",
        "held",
        "building",
    )


def test_a_unit_below_the_floor_fails_and_the_reason_names_what_it_lacks() -> None:
    q = "When did Henry issue the Edict of Nantes?"
    gate = UnitGate(question_constraints(analyse(q)), analyse(q), floor=0.3)
    far = "The uprising followed the death of Henry, who had ruled from 1589 to 1610."
    assert not gate(far, (), 0.2)
    assert gate("Henry issued the Edict of Nantes in 1598.", (), 0.9)
    lone = UnitGate(question_constraints(analyse(q)), analyse(q), floor=0.3)
    assert not lone(far, (), 0.2)
    assert lone.refusal() == "constraint_unmet:no passage found mentions issue, Edict or Nantes"
    assert gate.refusal() == "constraint_unmet:no passage found mentions issue, Edict or Nantes"
    near = "Henry issued a decree in Nantes."
    assert not lone(near, (), 0.25)  # it lacks a date, and is below the floor
    # its other failure says why it is no answer: the low score adds nothing to the reason
    assert lone.refusal() == "constraint_unmet:the closest passage found gives no date"


def test_without_a_floor_or_constraints_the_score_decides_nothing() -> None:
    q = "When did Henry issue the Edict of Nantes?"
    assert UnitGate(question_constraints(analyse(q)), analyse(q))(
        "Henry issued it in 1598.", (), 0.01
    )
    # statements carry no constraints: a claim is checked as a whole
    claim = "Albendazole is used to treat filariasis."
    assert UnitGate(question_constraints(analyse(claim)), analyse(claim), floor=0.3)(
        "Unrelated.", (), 0.0
    )
