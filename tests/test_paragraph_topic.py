"""A paragraph's topic, stated before the sentence that carries the value
(sufficiency/paragraph_topic.py, issue 34): the unit's own block before it supplies the
question's relation words, as headings do, never its figures or answer type.

Fixtures of two kinds of long document, written for these tests: a systems paper as
plain text (a PDF's extracted text has no heading nodes: the topic is in the paragraph's
opening sentence) and a regulation in Markdown (the subject is named in the paragraph's
first sentence, the period in its last)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.errors import UsageError
from citewise.sufficiency.constraints import Constraint, unmet
from citewise.sufficiency.paragraph_topic import LEAD_CHARS, LEAD_ENV, lead_chars, lead_of
from tests.conftest import one_file_kb

PAPER = """Lattice: A Replicated Log for Small Clusters

Abstract

We describe Lattice, a replicated log that a few machines keep in step. It favours
simple recovery over throughput.

1 Introduction

Clusters of a handful of machines need a log that survives the loss of one of them.
Existing systems assume hundreds of machines and pay for it in configuration.

4.3 Measurements

The compaction benchmark rewrites a log of two million entries while clients keep
appending to it. We ran it on five machines with spinning disks. The rate climbs as
more segments are merged and falls once the newest segments are reached. The whole run
lasts about 95 seconds from the first merge to the last one. Most of that time is spent
waiting for the disks.

The append benchmark writes small records from forty clients at once. Each record is
acknowledged after two machines have stored it. Throughput stays flat as clients are
added.
"""

REGULATION = """# Part 9410 - Records of the Example Agency

## § 9410.12 Appeals.

(a) A requester whose request for the correction of a record was denied may appeal in
writing to the Records Officer. The appeal shall state the reasons the record is wrong
and include a copy of the denial. It may include any document that supports the
requester. The Records Officer will decide within 25 working days after the appeal is
received. A decision not made in that time counts as a denial.

(b) A requester may ask for an extension of the time to file an appeal. An extension
is granted once.

## § 9410.13 Fees.

(a) Copies of records cost $0.10 per page. No fee is charged for the first 100 pages.
"""


@pytest.mark.parametrize(
    ("name", "text", "question", "value"),
    [
        (
            "lattice.txt",
            PAPER,
            "How long does the Lattice compaction benchmark run last?",
            "95 seconds",
        ),
        (
            "regulation.md",
            REGULATION,
            "How long does the Records Officer have to decide a correction appeal?",
            "25 working days",
        ),
    ],
)
def test_a_value_sentence_is_answered_with_its_paragraph_topic_and_refused_without(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    text: str,
    question: str,
    value: str,
) -> None:
    monkeypatch.setenv("CITEWISE_MEANING", "off")  # the word gate is under test
    kb = one_file_kb(tmp_path, monkeypatch, text, name)
    answered = kb.ask(question)
    assert answered.outcome == "answered", answered.answer
    assert value in answered.answer
    monkeypatch.setenv(LEAD_ENV, "0")  # the rule off: the topic word is demanded again
    refused = kb.ask(question)
    assert refused.outcome != "answered" or value not in refused.answer


def test_the_lead_supplies_relation_words_never_figures_or_the_answer_type() -> None:
    words = Constraint("words", "compaction", "!compact")
    quantity = Constraint("quantity", "How long", "quantity:")
    unit = "The whole run lasts a while from the first merge to the last one."
    lead = "The compaction benchmark rewrites a log of two million entries in 95 seconds."
    assert unmet([words], unit) == (words,)
    assert unmet([words], unit, lead=lead) == ()
    assert unmet([quantity], unit, lead=lead) == (quantity,)  # the figure is the lead's


def test_lead_of_is_the_opening_sentence_before_the_unit_only() -> None:
    block = (
        "The grep program scans records. Its pattern is rare. The run takes 150 seconds. "
        "Startup costs more."
    )
    start = 1000
    unit_at = start + block.index("The run")
    assert lead_of(block, start, unit_at) == "The grep program scans records."
    assert lead_of(block, start, start) == ""  # the unit opens its block
    assert lead_of(block, start, start + len(block) + 5) == ""  # outside it
    assert lead_of(block, start, unit_at, limit=14) == "The grep"  # whole words only
    assert lead_of(block, start, unit_at, limit=0) == ""


def test_a_narrative_sentence_does_not_borrow_the_event_before_it() -> None:
    besiege = Constraint("words", "besiege", "!besieg")
    block = (
        "The Normans came from the north. In the 10th century the Normans besieged Bari. "
        "In the 11th century they built castles."
    )
    unit_at = block.index("In the 11th")
    lead = lead_of(block, 0, unit_at)
    assert lead == "The Normans came from the north."
    assert unmet([besiege], block[unit_at:], lead=lead) == (besiege,)


def test_the_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert lead_chars() == LEAD_CHARS
    monkeypatch.setenv(LEAD_ENV, "300")
    assert lead_chars() == 300
    for bad in ("-1", "many", "1e9"):
        monkeypatch.setenv(LEAD_ENV, bad)
        with pytest.raises(UsageError, match=LEAD_ENV):
            lead_chars()


@given(st.text(max_size=300), st.integers(-50, 400), st.integers(0, 400))
def test_the_lead_is_whole_text_from_before_the_unit(block: str, at: int, limit: int) -> None:
    got = lead_of(block, 0, at, limit=limit)
    assert len(got) <= limit
    if got:
        assert 0 < at <= len(block)
        assert got in block[:at]
        assert got == got.strip()
