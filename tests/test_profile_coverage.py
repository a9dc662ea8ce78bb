"""Profile completeness (issue 21): a how-to keeps the rollback and check lines its
procedure comes with, a causal answer gives mechanism and consequence, and an answer whose
profile lacks a required part is ``partial_coverage`` with a reason naming that part in
plain words. Real SQLite home over the documents in tests/fixtures/profiles, dense off."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.models import Answer
from citewise.kb import Home, KnowledgeBase

FIXTURES = Path(__file__).parent / "fixtures" / "profiles"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("profiles")
    shutil.copytree(FIXTURES, root / "docs")
    with Home.open(root / "home") as home:
        kb = home.kb()
        assert kb.add([root / "docs"]).ok
        yield kb
    mp.undo()


def _cited(answer: Answer, words: str) -> bool:
    """``words`` are in the answer and in the excerpt of a citation the answer uses."""
    return words in answer.answer and any(words in c.excerpt for c in answer.citations)


def _reasons(answer: Answer) -> list[str]:
    return list(answer.to_json()["sufficiency"]["reasons"])


def test_how_to_keeps_the_rollback_and_the_check_cited(kb: KnowledgeBase) -> None:
    answer = kb.ask("How do I upgrade the Gizmo server?")
    assert answer.outcome == "answered" and answer.degradation == "none"
    assert _cited(answer, "gizmo scheduler stop")
    assert _cited(answer, "If the upgrade fails, run `gizmo rollback --to previous`")
    assert _cited(answer, "Check that `gizmo status` reports the new release number")
    lines = answer.answer.splitlines()  # after the steps, in document order
    step3 = next(i for i, line in enumerate(lines) if "scheduler start" in line)
    rollback = next(i for i, line in enumerate(lines) if "gizmo rollback" in line)
    assert step3 < rollback


def test_how_to_without_a_documented_rollback_is_partial_and_says_which_part(
    kb: KnowledgeBase,
) -> None:
    answer = kb.ask("How do I install the Tandem relay and roll it back if the install fails?")
    assert answer.outcome == "answered"
    assert _cited(answer, "Start the Tandem relay with `tandem-relay start`")
    out = answer.to_json()
    assert out["degradation"] == "partial_coverage"
    assert "partial_coverage:the documents describe the steps but not how to roll back" in (
        _reasons(answer)
    )
    assert answer.trace.get("profile_missing") == ["failure_handling"]
    assert "roll" not in answer.answer.lower()  # the missing part is reported, not written


def test_how_to_asked_to_check_the_result_names_the_missing_check(kb: KnowledgeBase) -> None:
    missing = kb.ask("How do I install the Tandem relay and check that it started?")
    assert missing.degradation == "partial_coverage"
    assert (
        "partial_coverage:the documents describe the steps but not how to check the result"
        in _reasons(missing)
    )
    present = kb.ask("How do I upgrade the Gizmo server and check the result?")
    assert present.degradation == "none" and "profile_missing" not in present.trace
    assert _cited(present, "Check that `gizmo status` reports the new release number")


def test_causal_answer_gives_mechanism_and_consequence(kb: KnowledgeBase) -> None:
    answer = kb.ask("Why does the Quill pump overheat?")
    assert answer.outcome == "answered" and answer.degradation == "none"
    assert _cited(answer, "because its intake filter clogs with dust")
    assert _cited(answer, "As a result, the motor shuts down after ten minutes")
    assert answer.answer.index("because") < answer.answer.index("As a result")


def test_causal_answer_without_a_stated_cause_is_partial(kb: KnowledgeBase) -> None:
    answer = kb.ask("Why does the Quill valve click?")
    assert answer.outcome == "answered" and _cited(answer, "clicks loudly during cold starts")
    assert answer.degradation == "partial_coverage"
    assert "partial_coverage:the documents say what happens but not why" in _reasons(answer)


def test_comparison_with_figures_for_one_side_only_is_partial(kb: KnowledgeBase) -> None:
    answer = kb.ask("What is the difference between the Orbit A1 and the Orbit B2?")
    assert answer.outcome == "answered"
    assert _cited(answer, "4 litre bowl") and _cited(answer, "floor-standing mixer")
    assert answer.degradation == "partial_coverage"
    assert (
        "partial_coverage:the documents give figures for Orbit A1 but not for Orbit B2"
        in _reasons(answer)
    )


def test_definition_without_a_defining_sentence_is_partial(kb: KnowledgeBase) -> None:
    answer = kb.ask("What is a Vesta ferrule?")
    assert answer.outcome == "answered"
    assert answer.degradation == "partial_coverage"
    assert (
        "partial_coverage:the documents mention Vesta ferrule but do not say what it is"
        in _reasons(answer)
    )


def test_the_parts_table_says_what_each_profile_requires() -> None:
    from citewise.answer.composition.coverage import PARTS, coverage_reason, missing_parts

    need = {intent: {p.name: p.need for p in parts} for intent, parts in PARTS.items()}
    assert need["how_to"] == {
        "steps": "required",
        "prerequisites": "optional",
        "failure_handling": "asked",
        "verification": "asked",
    }
    assert need["definition"] == {"defining_sentence": "required"}
    assert need["compare"] == {"side": "required", "side_figures": "required"}
    assert set(need["causal"]) == {"mechanism", "consequence"}
    assert coverage_reason("how_to", "x", ()) is None
    assert missing_parts("definition", analyse("What is x?"), []) == ()  # nothing quoted: abstains
