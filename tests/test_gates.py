"""Sufficiency gates that look at *where* the question's terms occur, not only whether:
terms scattered one per passage, and how-to questions answered by another task's steps."""

from __future__ import annotations

from citewise.analysis.intent import classify_intent
from citewise.analysis.question import analyse
from citewise.evidence.models import Fragment
from citewise.sufficiency.gates import action_term, cohesion, procedure_mismatch


def frag(text: str, *heading: str, doc: str = "d1") -> Fragment:
    return Fragment(
        role="direct_support",
        doc_id=doc,
        path=f"{doc}.md",
        revision=1,
        version_id=1,
        node_ids=("n",),
        line_start=1,
        line_end=1,
        char_start=0,
        char_end=len(text),
        heading_path=heading,
        text=text,
        tokens=len(text.split()),
        truncated=False,
        citation_id=f"n:0-{len(text)}",
    )


def test_action_is_the_verb_of_an_english_how_do_i_question() -> None:
    assert action_term(classify_intent("How do I rotate an API token?")) == "rotat"
    assert action_term(classify_intent("How can I verify a calibration?")) == "verifi"
    assert action_term(classify_intent("What is an API token?")) is None  # not a how-to
    assert action_term(classify_intent("Steps for token rotation")) is None  # no verb slot
    assert action_term(classify_intent("如何排查指标异常")) is None


def test_cohesion_counts_terms_held_by_one_passage_and_its_headings() -> None:
    terms = ("rotat", "sync", "token")
    scattered = [frag("The node leaves rotation."), frag("A token has a scope.", "Sync")]
    assert cohesion(terms, scattered) == 2  # "token" + heading "Sync" in one fragment
    assert cohesion(terms, [frag("The node leaves rotation."), frag("A token.")]) == 1
    assert cohesion(terms, [frag("Rotate the sync token weekly.")]) == 3
    assert cohesion(terms, []) == 0


def test_steps_for_another_task_are_a_mismatch() -> None:
    intent = classify_intent("How do I calibrate an API token?")
    other = frag("1. Open Settings.\n2. Choose Rotate.", "API", "Rotating an API token", "Steps")
    lead = frag("The API reads calibration certificates.", "API")
    why = procedure_mismatch(intent, [lead, other])
    assert why is not None and why.kind == "action_absent" and "calibr" in str(why)


def test_steps_naming_the_action_or_a_section_headed_by_it_pass() -> None:
    calibrate = classify_intent("How do I calibrate a spectrophotometer?")
    steps = frag("1. Open Console.\n2. Start the wizard.", "Guide", "Steps to calibrate")
    assert procedure_mismatch(calibrate, [steps]) is None
    verify = classify_intent("How do I verify a calibration?")
    prose = frag("To check it, measure the filter again.", "Guide", "Verify")
    assert procedure_mismatch(verify, [steps, prose]) is None
    # a "Verify" heading in another document does not vouch for these steps
    elsewhere = frag("Measure again.", "Other", "Verify", doc="d2")
    assert procedure_mismatch(verify, [steps, elsewhere]) is not None
    # no numbered steps at all: left to the other gates
    assert procedure_mismatch(verify, [frag("- a bullet", "Guide")]) is None


def test_ratio_gate_reasons_name_the_question_words_never_stems_of_stems() -> None:
    from citewise.sufficiency.gates import GateInput, review
    from tests.test_presence import pack_of

    q = "When a commission reached no decision, what happened?"
    verdict = review(
        GateInput(analyse(q), classify_intent(q), pack_of("The commission met in Paris."))
    )
    assert verdict.reason_texts == ("subject_missing:reached, decision, happened",)


def test_a_year_named_by_its_decade_is_not_a_missing_identifier() -> None:
    from citewise.sufficiency.gates import GateInput, review
    from tests.test_presence import pack_of

    q = "Where did France lose a war in the 1950's?"
    verdict = review(
        GateInput(analyse(q), classify_intent(q), pack_of("In the 1950s France lost a war."))
    )
    assert verdict.status != "insufficient", verdict.reasons
