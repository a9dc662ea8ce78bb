"""Conflicts in documentation and entity-valued conflicts (issue 15): who won, who wrote,
which version is current conflict across sources as numbers do; two tables of one
document, examples in code, and repeated statements do not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citewise.kb import Home, KnowledgeBase
from tests.test_conflicts import conflicts


def test_two_winners_of_one_event_conflict() -> None:
    (c,) = conflicts("Team Red won the 2019 Lumen Cup.", "The 2019 Lumen Cup was won by Team Blue.")
    assert c.attribute == "winner" and c.values == ("team red", "team blue")
    assert conflicts(
        "The winner of the 2019 Lumen Cup was Team Red.", "Team Blue won the 2019 Lumen Cup."
    )


def test_winners_of_different_years_or_the_same_winner_do_not_conflict() -> None:
    assert conflicts("Team Red won the 2019 Lumen Cup.", "Team Blue won the 2020 Lumen Cup.") == []
    assert (
        conflicts("Team Red won the 2019 Lumen Cup.", "The 2019 Lumen Cup was won by Team Red.")
        == []
    )


def test_two_authors_of_one_book_conflict() -> None:
    (c,) = conflicts(
        "The Field Handbook was written by Ann Li.", "The Field Handbook was written by Bo Chen."
    )
    assert c.attribute == "author" and c.values == ("ann li", "bo chen")


def test_chinese_winners_conflict() -> None:
    (c,) = conflicts("2019年灯杯的冠军是红队。", "蓝队赢得了2019年灯杯的冠军。")
    assert c.values == ("红队", "蓝队")


def test_two_current_versions_of_one_component_conflict() -> None:
    (c,) = conflicts(
        "The current version of Lumen Console is 4.2.",
        "The current version of Lumen Console is 4.3.",
    )
    assert c.attribute == "version" and c.values == ("4.2", "4.3")


def test_versions_in_different_roles_do_not_conflict() -> None:
    assert (
        conflicts(
            "The minimum version of Lumen Console is 4.0.",
            "The recommended version of Lumen Console is 4.3.",
        )
        == []
    )
    assert (
        conflicts(
            "Lumen Console 4.2.0 added exports.", "The current version of Lumen Console is 4.3.0."
        )
        == []
    )


TABLES = """# Flags

## Boolean flags

| `default` | Not passed | `--flag` |
|-----------|------------|----------|
| *(unset)* | `False`    | `True`   |

## Feature switches

| `default` | Not passed | `--flag` |
|-----------|------------|----------|
| *(unset)* | `None`     | `"upper"` |
"""


def test_two_tables_of_one_document_each_state_their_own_case() -> None:
    assert conflicts(TABLES) == []


def test_code_examples_and_repeated_statements_are_not_conflicts() -> None:
    code = "The retry limit is 3.\n\n```python\nclient = Client(retry_limit=5)\n```\n"
    assert conflicts(code) == []
    assert conflicts("The retry limit is 3.", "The retry limit is 3.") == []


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path_factory.mktemp("news")
    (corpus / "results.md").write_text(
        "# Results\n\nTeam Red won the 2019 Lumen Cup after a close final.\n", "utf-8"
    )
    (corpus / "archive.md").write_text(
        "# Archive\n\nThe 2019 Lumen Cup was won by Team Blue in extra time.\n", "utf-8"
    )
    (corpus / "flags.md").write_text(TABLES, "utf-8")
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def test_an_entity_conflict_shows_both_values_cited_and_flags_the_answer(
    kb: KnowledgeBase,
) -> None:
    answer = kb.ask("Who won the 2019 Lumen Cup?")
    assert answer.outcome == "answered", answer.answer
    assert answer.to_json()["degradation"] == "conflict"
    assert "Team Red" in answer.answer and "Team Blue" in answer.answer
    assert {c.path for c in answer.citations} == {"results.md", "archive.md"}


def test_tables_of_one_document_answer_without_a_conflict(kb: KnowledgeBase) -> None:
    answer = kb.ask("What value does a feature switch get when it is not passed?")
    assert answer.degradation != "conflict", answer.answer
