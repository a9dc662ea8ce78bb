"""The counterfactual conflict set's pure helpers (bench/conflict_pairs.py): value kinds
of gold answers, the replaced copy, and the grading of one ask."""

from __future__ import annotations

from bench.conflict_pairs import build_pairs, grade, replace_value, value_kind
from hypothesis import given
from hypothesis import strategies as st


def test_value_kinds_of_gold_answers() -> None:
    assert value_kind("1685") == "date"
    assert value_kind("June 1944") == "date"
    assert value_kind("the 1950s") == "date"
    assert value_kind("14th century") == "date"
    assert value_kind("about 500") == "number"
    assert value_kind("nine") == "number"
    assert value_kind("Isaac Newton") == "name"
    assert value_kind("King of England") == "name"
    assert value_kind("a datagram protocol") is None
    assert value_kind("") is None


def test_the_copy_replaces_every_whole_word_occurrence() -> None:
    text = "Newton wrote in 1687. Newtonian physics followed; Newton died in 1727."
    assert replace_value(text, "Newton", "Hooke") == (
        "Hooke wrote in 1687. Newtonian physics followed; Hooke died in 1727."
    )
    assert replace_value(text, "Galileo", "Hooke") is None  # the answer is not there
    assert replace_value(text, "1687", "1727") is None  # the new value is already there


@given(st.text(max_size=80), st.text(min_size=1, max_size=10), st.text(min_size=1, max_size=10))
def test_a_replaced_copy_never_holds_the_old_value_as_a_word(text: str, old: str, new: str) -> None:
    out = replace_value(text, old, new)
    if out is not None and old not in new:
        assert replace_value(out, old, new) is None


def test_grading_one_ask() -> None:
    pair = ("a-account.md", "b-record.md")
    both = set(pair)
    assert grade("answered", "conflict", [], both, pair) == "flagged"
    assert grade("answered", "none", [], {"a-account.md"}, pair) == "misled"
    assert grade("answered", "partial_coverage", [], {"b-record.md"}, pair) == "misled"
    assert grade("answered", "none", [], both, pair) == "other"
    assert grade("answered", "conflict", [], {"a-account.md"}, pair) == "other"
    assert (
        grade("insufficient_evidence", "insufficient_evidence", ["conflict:1"], set(), pair)
        == "flagged"
    )
    assert (
        grade("insufficient_evidence", "insufficient_evidence", ["subject_absent:x"], set(), pair)
        == "other"
    )


def test_pairs_are_drawn_per_paragraph_with_a_value_of_the_same_kind() -> None:
    data = [
        {
            "title": "Bridges",
            "paragraphs": [
                {
                    "context": "The Kestrel Bridge opened in 1932 and was built by Hanna Berg.",
                    "qas": [
                        {"id": "q1", "question": "When did it open?", "is_impossible": False,
                         "answers": [{"text": "1932", "answer_start": 28}]},
                        {"id": "q2", "question": "Who built it?", "is_impossible": False,
                         "answers": [{"text": "Hanna Berg", "answer_start": 50}]},
                    ],
                }
            ],
        },
        {
            "title": "Ferries",
            "paragraphs": [
                {
                    "context": "The ferry started in 1951 under Tomas Lind.",
                    "qas": [
                        {"id": "q3", "question": "When?", "is_impossible": False,
                         "answers": [{"text": "1951", "answer_start": 21}]},
                        {"id": "q4", "question": "Who?", "is_impossible": False,
                         "answers": [{"text": "Tomas Lind", "answer_start": 32}]},
                    ],
                }
            ],
        },
    ]  # fmt: skip
    pairs = build_pairs(data, 10, 1)
    assert len(pairs) == 2  # one per paragraph
    for p in pairs:
        assert value_kind(p.other) == p.kind
        assert p.value not in p.counterfactual and p.other in p.counterfactual
        assert p.original.replace(p.value, p.other) == p.counterfactual
