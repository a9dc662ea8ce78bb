"""A question's misspelt word read as the knowledge base's word (sufficiency/spelling.py,
issue 15): slips are respelt, real words and hyphenated names never are, and end to end a
question with a slip is answered while a question about an absent subject is refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.analysis.intent import classify_intent
from citewise.analysis.question import analyse
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.presence import english_zipf, profile_terms
from citewise.sufficiency.spelling import edits, respell

VOCAB = {"french": 40, "fresh": 2, "governor": 12, "gegeen": 3, "harvest": 5, "taliban": 4}


def df(token: str) -> int:
    return VOCAB.get(token, 0)


def test_one_edit_keeps_the_first_letter() -> None:
    got = edits("frensh")
    assert "french" in got and "fresh" in got and "frenhs" in got
    assert "frensh" not in got
    assert all(e.startswith("f") for e in got)


def test_a_slip_is_read_as_the_most_held_neighbour() -> None:
    assert respell("Frensh", "frensh", df, english_zipf) == "french"  # not "fresh"
    assert respell("Governon", "governon", df, english_zipf) == "governor"
    assert respell("Geegen", "geegen", df, english_zipf) == "gegeen"  # letters swapped


def test_a_slip_the_stemmer_hides_is_read_through_the_word_it_misses() -> None:
    # "significan" is indexed as itself, "significant" as "signific": one letter apart as
    # words, not as index tokens
    held = {"signific": 7, "compani": 9}
    assert respell("significan", "significan", lambda t: held.get(t, 0), english_zipf) == (
        "signific"
    )
    assert respell("ivermectin", "ivermectin", lambda t: held.get(t, 0), english_zipf) is None


def test_real_words_short_words_and_hyphenated_names_are_not_respelt() -> None:
    assert respell("hardest", "hardest", df, english_zipf) is None  # an English word
    assert respell("Romr", "romr", lambda t: 9 if t == "rome" else 0, english_zipf) is None
    assert respell("non-Taliban", "non-taliban", df, english_zipf) is None
    assert respell("Zorblax", "zorblax", df, english_zipf) is None  # no neighbour held
    assert respell("keyring", "keyr", lambda t: 5 if t == "key" else 0, english_zipf) is None


def test_the_profile_weighs_a_slip_as_the_word_it_stands_for() -> None:
    q = "What was Frensh military presence at start of war?"
    p = profile_terms(analyse(q), classify_intent(q).subject_terms, df, 500)
    term = next(t for t in p.terms if t.surface == "Frensh")
    assert (term.key, term.asked, term.df) == ("french", "frensh", 40)
    assert p.respelt == frozenset({"frensh"})


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus: Path = tmp_path_factory.mktemp("wiki")
    (corpus / "war.md").write_text(
        "# Seven Years' War\n\nAt the start of the war, no French regular army troops were "
        "stationed in North America. Governor Robert Dinwiddie of Virginia was an investor "
        "in the Ohio Company.\n\nThe British fleet blockaded the French ports in 1759.\n",
        "utf-8",
    )
    (corpus / "yuan.md").write_text(
        "# Yuan dynasty\n\nEmperor Gegeen Khan ruled for only two years, from 1321 to "
        "1323.\n\nKublai Khan founded the dynasty in 1271.\n",
        "utf-8",
    )
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def test_a_question_with_a_slip_is_answered(kb: KnowledgeBase) -> None:
    a = kb.ask("When was Geegen the emperor?")
    assert a.outcome == "answered", a.answer
    assert "1321 to 1323" in a.answer
    b = kb.ask("Governon Robert Dinwiddie was an investor in what company?")
    assert b.outcome == "answered", b.answer
    assert "Ohio Company" in b.answer


def test_an_absent_subject_is_still_refused(kb: KnowledgeBase) -> None:
    a = kb.ask("When was Zorblax the emperor?")
    assert a.outcome == "insufficient_evidence", a.answer
    assert "Zorblax" in a.answer


def test_reasons_name_a_slip_as_the_question_spelt_it(kb: KnowledgeBase) -> None:
    a = kb.ask("What did Governon Kublai invest in?")  # two passages, scattered
    assert a.outcome == "insufficient_evidence", a.answer
    assert "Governon" in a.answer and "governor" not in a.answer
