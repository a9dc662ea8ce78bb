"""A unit of a long document read for meaning under its document's title line
(answer/meaning/titled.py, issue 34).

Fixtures written for these tests: a systems paper as plain text (its title line names
the subject, its sentences do not) and a policy text whose sections are not clause
headings; a regulation's clause keeps its part-and-section reading. The titled reading
is read only after the usual ones failed, and must reach the rescue floor."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.candidate import Candidate
from citewise.answer.meaning.check import MEANING_FLOOR, MeaningCheck
from citewise.answer.meaning.titled import TITLE_ENV, TITLE_FLOOR, enabled, title_check, titled
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


def test_only_units_outside_a_clause_are_read_under_their_title(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from citewise.answer.meaning import titled as module

    read: list[list[str]] = []

    def scores(question: object, texts: list[str]) -> MeaningCheck:
        read.append(list(texts))
        return MeaningCheck(tuple(7.0 for _ in texts), True, 0.0, "m")

    monkeypatch.setattr(module, "meaning_scores", scores)
    policy = _candidate(POLICY_UNIT, ("Rules",), "berthing.txt")
    text = "A permit holder must apply for renewal within 30 days before expiry."
    clause = _candidate(text, ("PART 9 — MOORING PERMITS", "§ 9.4 Renewal."), "r.md")
    q = analyse("How many nights may a vessel stay?")
    got = title_check(q, [clause, policy], lambda f: "Riverside Marina Berthing Rules")
    assert got is not None and got.passed
    assert read == [[f"Riverside Marina Berthing Rules. {POLICY_UNIT}"]]  # the clause: no
    assert title_check(q, [clause], lambda f: "Harbour Regulations") is None
    assert title_check(q, [policy], lambda f: "") is None  # no title line


def test_a_titled_reading_must_reach_the_rescue_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.answer.meaning import titled as module

    def scores(question: object, texts: list[str]) -> MeaningCheck:
        return MeaningCheck((TITLE_FLOOR - 0.1,), True, 0.0, "m")  # passes at 2.0 only

    monkeypatch.setattr(module, "meaning_scores", scores)
    q = analyse("How many nights may a vessel stay?")
    got = title_check(q, [_candidate(POLICY_UNIT)], lambda f: "Riverside Marina Rules")
    assert got is not None and not got.passed
    assert TITLE_FLOOR > MEANING_FLOOR


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
