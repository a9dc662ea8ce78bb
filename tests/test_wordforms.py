"""Other forms of a question's word in a quoted unit (sufficiency/wordforms.py, issue 15):
accents folded, derived forms of one stem; and the unit constraints that use them, with
decades named by an apostrophe or by their century."""

from __future__ import annotations

from citewise.analysis.intent import classify_intent
from citewise.analysis.question import analyse
from citewise.analysis.tokenize import tokenize
from citewise.sufficiency.constraints import question_constraints, unmet
from citewise.sufficiency.presence import profile_terms
from citewise.sufficiency.wordforms import fold, held, related, tokens


def test_accents_fold_on_both_sides() -> None:
    assert fold("Hervé and Ögedei") == "Herve and Ogedei"
    assert held(tokenize("Herve")[0], tokens("One general was Hervé in the 1050s."))
    assert held(tokenize("Ögedei")[0], tokens("Ogedei Khan ruled."))


def test_derived_forms_of_one_word_are_held_and_neighbours_are_not() -> None:
    same = [("invade", "invasion"), ("colonists", "colony"), ("marry", "marriage")]
    same += [("Africans", "Africa"), ("conquered", "conquest"), ("arriving", "arrival")]
    for a, b in same:
        assert held(tokenize(a)[0], tokens(b)), (a, b)
    for a, b in [("project", "protect"), ("court", "count"), ("union", "unit")]:
        assert not held(tokenize(a)[0], tokens(b)), (a, b)
    assert not related("nation", "nationalists")  # too long an ending to be one form
    assert not related("2011", "2012")  # figures are compared elsewhere


def test_a_relation_word_may_be_quoted_in_another_form() -> None:
    q = "In what year did the Normans invade at Bannow Bay?"
    df = {"norman": 9, "invad": 2}
    cons = question_constraints(
        analyse(q),
        profile_terms(analyse(q), classify_intent(q).subject_terms, lambda t: df.get(t, 0), 100),
    )
    assert "invade" in [c.surface for c in cons]
    text = "The Normans had an effect on Ireland after their invasion at Bannow Bay in 1169."
    assert unmet(cons, text) == ()
    assert [c.surface for c in unmet(cons, "The Normans built castles at Bannow Bay in 1170.")] == [
        "invade"
    ]


def test_a_name_may_be_quoted_with_its_accents() -> None:
    q = "When did Herve serve as a Byzantine general?"
    subject = classify_intent(q).subject_terms
    df = {"herv": 1, "byzantin": 5}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert "Herve" in [c.surface for c in cons if c.kind == "name"]
    assert unmet(cons, "One Byzantine general was Hervé in the 1050s.") == ()
    assert [c.surface for c in unmet(cons, "One Byzantine general was Roussel in the 1070s.")] == [
        "Herve"
    ]


def failed(question: str, text: str) -> list[str]:
    return [c.surface for c in unmet(question_constraints(analyse(question)), text)]


def test_a_decade_with_an_apostrophe_is_a_decade() -> None:
    q = "Where did France lose a war in the 1950's?"
    assert failed(q, "France lost a bitter war in Vietnam in the 1950s.") == []
    assert failed(q, "France lost a war in 1954.") == []
    assert failed(q, "France lost a war in 1962.") == ["1950's"]


def test_a_hundred_years_decade_is_its_century() -> None:
    q = "How many Huguenots fled France by the 1700s?"
    assert failed(q, "500,000 Huguenots had fled France by the early 18th century.") == []
    assert failed(q, "500,000 Huguenots had fled France by 1785.") == []
    assert failed(q, "500,000 Huguenots had fled France by 1650.") == ["1700s"]
