"""Value and entity conflicts across documents for the asked slot (issue 34;
sufficiency/slot_conflicts.py): two documents that state one fact with different values
are flagged with both sides cited; two cases, a paraphrase or an agreement are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.slot_conflicts import _may_state_value, asked_slot, value_kinds
from citewise.sufficiency.slot_conflicts import variant_values as _variant_values

pytestmark = pytest.mark.usefixtures("dense_off")


def variant_values(a: str, b: str, question: str) -> tuple[str, str, str] | None:
    return _variant_values(a, b, analyse(question))


def _slot(question: str) -> str | None:
    return asked_slot(analyse(question))


def test_a_date_replaced_in_one_copy_is_a_conflict() -> None:
    got = variant_values(
        "The edict was declared in 1685 by the king.",
        "The edict was declared in 1598 by the king.",
        "When was the edict declared?",
    )
    assert got == ("1685", "1598", "date")


def test_a_name_replaced_is_a_conflict_for_who() -> None:
    got = variant_values(
        "Maintenance of the bridge is led by Hanna Berg, who reports to the engineer.",
        "Maintenance of the bridge is led by Tomas Lind, who reports to the engineer.",
        "Who leads maintenance of the bridge?",
    )
    assert got == ("Hanna Berg", "Tomas Lind", "name")


def test_a_qualifier_that_differs_too_separates_two_cases() -> None:
    assert (
        variant_values(
            "The port is 8080 in staging.", "The port is 9090 in production.", "What is the port?"
        )
        is None
    )


def test_the_question_s_own_value_separates_two_cases() -> None:
    # "2019" is what the question asks about: the other sentence is about 2020
    assert (
        variant_values(
            "Team Red won the 2019 cup.", "Team Red won the 2020 cup.", "Who won the 2019 cup?"
        )
        is None
    )


def test_a_value_of_another_kind_than_asked_is_no_conflict() -> None:
    # a when question: two sentences differing in a name disagree on something else
    assert (
        variant_values(
            "The bridge opened in 1932 under Hanna Berg.",
            "The bridge opened in 1932 under Tomas Lind.",
            "When did the bridge open?",
        )
        is None
    )


def test_a_paraphrase_or_another_fact_is_not_a_variant() -> None:
    assert (
        variant_values(
            "The bridge opened to traffic in 1932 after four years of work.",
            "Traffic crossed the river on a ferry until the 1930s, when the county paid for it.",
            "When did the bridge open?",
        )
        is None
    )


def test_the_asked_slot_and_value_kinds() -> None:
    assert _slot("When did it open?") == "date"
    assert _slot("In what year did it open?") == "date"
    assert _slot("How many lanes does it have?") == "number"
    assert _slot("Who built it?") == "name"
    assert _slot("What is it made of?") is None
    assert value_kinds("12 March") == {"date", "number"}
    assert value_kinds("four") == {"number"}
    assert value_kinds("1685") == {"date", "number"}
    assert value_kinds("Tomas Lind") == {"name"}
    assert value_kinds("The") == set()
    assert value_kinds("steel and stone") == set()


def test_a_count_against_a_bare_figure_is_one_kind() -> None:
    got = variant_values(
        "The centre currently realizes four projects a year.",
        "The centre currently realizes about 500 projects a year.",
        "How many projects does the centre realize a year?",
    )
    assert got == ("four", "about 500", "number")


def test_a_name_at_the_start_of_a_sentence_is_a_name() -> None:
    got = variant_values(
        "Newton, however, realized that his law of gravity had to be universal.",
        "Hooke, however, realized that his law of gravity had to be universal.",
        "Who realized that his law of gravity had to be universal?",
    )
    assert got == ("Newton", "Hooke", "name")


# -- a real knowledge base: a report and a documentation page disagree ------------------

REPORT = """Kestrel Bridge inspection report, county roads office, 2024

Summary of findings. The deck and the bearings were in fair condition; two expansion
joints need sealing before winter. The final inspection of the Kestrel Bridge was
completed on 12 March 2024 by the regional roads office. Maintenance of the Kestrel
Bridge is led by Hanna Berg, who reports to the county engineer. Costs are in annex B.
"""

GUIDE = """# Kestrel Bridge

The Kestrel Bridge carries the county road over the river.

## Inspections

Inspections follow the county's bridge manual. The final inspection of the Kestrel
Bridge was completed on 19 April 2024 by the regional roads office.

## Maintenance

Maintenance of the Kestrel Bridge is led by Tomas Lind, who reports to the county engineer.
See the contacts page for the on-call number.
"""

AGREES = """# Kestrel Bridge notes

The final inspection of the Kestrel Bridge was completed on 12 March 2024 by the regional
roads office.
"""


def _kb(tmp_path: Path, files: dict[str, str]) -> KnowledgeBase:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in files.items():
        (corpus / name).write_text(text, encoding="utf-8")
    kb = Home.open(tmp_path / "home").kb()
    assert kb.add([corpus]).ok
    return kb


@pytest.mark.parametrize(
    ("question", "values"),
    [
        (
            "When was the final inspection of the Kestrel Bridge completed?",
            ("12 March", "19 April"),
        ),
        ("Who leads maintenance of the Kestrel Bridge?", ("Hanna Berg", "Tomas Lind")),
    ],
)
def test_two_documents_disagreeing_are_flagged_with_both_cited(
    tmp_path: Path, question: str, values: tuple[str, str]
) -> None:
    kb = _kb(tmp_path, {"report.txt": REPORT, "guide.md": GUIDE})
    answer = kb.ask(question)
    conflict_cites = {c.path for c in answer.citations if c.role == "conflict"}
    if answer.outcome == "answered":
        assert answer.degradation == "conflict"
        assert conflict_cites == {"report.txt", "guide.md"}
        assert all(v in answer.answer for v in values)
    else:  # an abstention must say the sources disagree
        assert any(r.startswith("conflict") for r in answer.sufficiency.reason_texts)


def test_two_documents_that_agree_are_no_conflict(tmp_path: Path) -> None:
    kb = _kb(tmp_path, {"report.txt": REPORT, "notes.md": AGREES})
    answer = kb.ask("When was the final inspection of the Kestrel Bridge completed?")
    assert answer.outcome == "answered" and answer.degradation != "conflict"
    assert "12 March 2024" in answer.answer


def test_the_cheap_value_test_keeps_sentences_that_may_state_a_value() -> None:
    assert _may_state_value("Newton, however, realized it.")
    assert _may_state_value("It opened in 1932.")
    assert _may_state_value("It was built by Hanna Berg.")
    assert not _may_state_value("It is built of steel and stone.")
    assert not _may_state_value("The deck is in fair condition.")


def test_two_editions_of_one_document_are_no_conflict() -> None:
    """Paths alike but for a year or version mark are editions of one document; a value
    that differs between them changed, it is no disagreement between sources."""
    from citewise.analysis.scope import editions_of_one

    assert editions_of_one("std/cloud-standard-2013.md", "std/cloud-standard-2017.md")
    assert editions_of_one("guide-v1.2.md", "guide-v2.0.md")
    assert not editions_of_one("lattice-paper.md", "quarry-paper.md")
    assert not editions_of_one("report.md", "report.md")
    assert not editions_of_one("a/policy-2013.md", "b/policy-2017.md")


def test_the_names_a_question_uses_are_its_capitalised_words_past_the_first() -> None:
    from citewise.analysis.tokenize import word_tokens
    from citewise.sufficiency.slot_conflicts import question_names

    q = "In batches of how many records does Quarry write its log?"
    assert question_names(q) == frozenset(word_tokens("Quarry"))
    assert question_names("When was the treaty signed?") == frozenset()
