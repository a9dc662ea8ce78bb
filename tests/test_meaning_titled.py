"""A unit of a long document read for meaning under its document's title line
(answer/meaning/titled.py, issue 34).

Fixtures written for these tests: a systems paper as plain text (its title line names
the subject, its sentences do not) and a policy text whose sections are not clause
headings; a regulation's clause keeps its part-and-section reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.answer.candidate import Candidate
from citewise.answer.meaning.read import unit_readings
from citewise.answer.meaning.titled import TITLE_ENV, enabled, titled
from citewise.errors import UsageError
from citewise.evidence.models import Fragment
from citewise.evidence.sentences import Span
from tests.conftest import one_file_kb

PAPER = """Quorum Leases Made Plain

Leslie Example

1 The Problem

Replicated services must agree on who may serve reads. We let the work be split among
three kinds of participants: holders, grantors, and observers. A single machine may play
more than one part.

2 The Protocol

A grantor hands out a lease for a fixed period. A holder that loses contact stops serving
reads once the period ends. Observers only record which holder is current.
"""

POLICY_UNIT = "A vessel may stay for at most fourteen nights in one calendar month."


def _candidate(text: str, heading_path: tuple[str, ...] = (), path: str = "p.txt") -> Candidate:
    frag = Fragment(
        "direct_support", "d", path, 1, 1, ("n",), 1, 1, 0, len(text), heading_path, text,
        10, False, f"n:0-{len(text)}",
    )  # fmt: skip
    return Candidate(frag, Span(0, len(text), text), text, 1.0, (0,))


@pytest.mark.model
def test_a_paper_sentence_is_answered_under_its_title_and_refused_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_MEANING", "on")
    kb = one_file_kb(tmp_path, monkeypatch, PAPER, "quorum.txt")
    question = "What kinds of participants does Quorum Leases Made Plain describe?"
    answered = kb.ask(question)
    assert answered.outcome == "answered", answered.answer
    assert "holders, grantors, and observers" in answered.answer
    monkeypatch.setenv(TITLE_ENV, "off")
    refused = kb.ask(question)
    assert refused.outcome == "insufficient_evidence"
    assert "no passage found answers" in refused.answer


def test_a_policy_unit_is_read_second_under_its_title_line() -> None:
    c = _candidate(POLICY_UNIT, ("Rules",), "berthing.txt")
    read = unit_readings([c], None, lambda f: "Riverside Marina Berthing Rules")
    assert read[0] == POLICY_UNIT
    assert read[1] == f"Riverside Marina Berthing Rules. {POLICY_UNIT}"
    assert unit_readings([c], None, lambda f: "") == [POLICY_UNIT]  # no title line


def test_a_clause_keeps_its_part_and_section_reading() -> None:
    text = "A permit holder must apply for renewal within 30 days before expiry."
    c = _candidate(text, ("PART 9 — MOORING PERMITS", "§ 9.4 Renewal."), "r.md")
    read = unit_readings([c], None, lambda f: "Harbour Regulations")
    assert read[1] == f"MOORING PERMITS: Renewal. {text}"
    assert not any(r.startswith("Harbour Regulations") for r in read)


def test_no_title_reading_when_the_unit_or_its_headings_hold_the_title(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    title = "Riverside Marina Berthing Rules"
    assert titled(_candidate(POLICY_UNIT), POLICY_UNIT, lambda f: f"{title}.") == (
        f"{title}. {POLICY_UNIT}"
    )
    held = f"The {title} say: {POLICY_UNIT}"
    assert titled(_candidate(held), held, lambda f: title) is None
    assert titled(_candidate(POLICY_UNIT, (title, "Rules")), POLICY_UNIT, lambda f: title) is None
    assert titled(_candidate(POLICY_UNIT), POLICY_UNIT, None) is None
    monkeypatch.setenv(TITLE_ENV, "off")
    assert not enabled()
    assert titled(_candidate(POLICY_UNIT), POLICY_UNIT, lambda f: title) is None
    monkeypatch.setenv(TITLE_ENV, "sometimes")
    with pytest.raises(UsageError, match=TITLE_ENV):
        enabled()
