"""Question constraints the quoted unit must meet (sufficiency/constraints.py, issue 15):
figures, names, polarity and answer type; the pronoun window that carries a referent;
and, end to end, near-miss questions refused in their own words while the answerable
neighbours are answered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.analysis.intent import classify_intent
from citewise.analysis.question import analyse
from citewise.answer.units.structure import document_units
from citewise.config import IngestConfig
from citewise.ingest.parse import parse_document
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.constraints import (
    Constraint,
    UnitGate,
    question_constraints,
    reason,
    unmet,
)
from citewise.sufficiency.presence import profile_terms


def failed(question: str, text: str, headings: tuple[str, ...] = ()) -> list[str]:
    return [c.surface for c in unmet(question_constraints(analyse(question)), text, headings)]


def test_a_century_must_match_by_name_or_by_a_year_inside_it() -> None:
    q = "Who did the Normans besiege in the 11th century?"
    assert failed(q, "In the 10th century the Normans besieged Bari.") == ["11th century"]
    assert failed(q, "In the eleventh century the Normans besieged Bari.") == []
    assert failed(q, "In 1071 the Normans besieged Bari.") == []
    assert failed(q, "In 971 the Normans besieged Bari.") == ["11th century"]


def test_a_year_matches_itself_its_decade_or_a_range_holding_it() -> None:
    q = "Who ruled Normandy in 1598?"
    assert failed(q, "In 1598 Henry ruled.") == []
    assert failed(q, "In the 1590s Henry ruled.") == []
    assert failed(q, "From 1589 to 1610 Henry ruled.") == []
    assert failed(q, "In 1589 Henry ruled.") == ["1598"]


def test_small_numbers_match_their_words_and_ordinals_theirs() -> None:
    assert failed("Which 3 rivers meet here?", "Three rivers meet here.") == []
    assert failed("Who was the 5th duke?", "Richard was the fifth duke.") == []
    assert failed("Who was the 5th duke?", "Richard was the fourth duke.") == ["5th"]


def test_a_negated_or_least_question_is_not_met_by_the_plain_statement() -> None:
    q = "What is one not common example of a complexity measure?"
    assert failed(q, "Common examples are time and space.") == ["not"]
    assert failed(q, "Rarely used measures are not common; one is advice.") == []
    q = "What is the least used type of reduction?"
    assert failed(q, "The most used type is the polynomial-time reduction.") == ["least"]
    assert failed(q, "The least used is the log-space reduction.") == []


def test_answer_types_want_a_date_or_a_quantity() -> None:
    assert failed("When did Rollo die?", "Rollo died after his son took over.") == ["when"]
    assert failed("When did Rollo die?", "Rollo died in 932.") == []
    assert failed("When did Rollo die?", "Rollo died in the spring.") == []
    q = "How many Huguenots lived in Paris?"
    assert failed(q, "Huguenots lived in Paris.") == ["How many"]
    assert failed(q, "About twenty thousand Huguenots lived in Paris.") == []
    # a documentation "when" wants a time or the occasion (issue 34), not a date: a
    # clause of circumstance meets it, a title line does not
    q = "When is the startup handler called?"
    assert [c.kind for c in question_constraints(analyse(q))] == ["time"]
    assert failed(q, "The startup handler is called once the application starts.") == []
    assert failed(q, "Startup handler") == ["when"]


def test_names_are_constrained_only_when_distinctive_and_may_come_from_a_heading() -> None:
    q = "What did Rollo sign with Charles?"
    subject = classify_intent(q).subject_terms
    df = {"rollo": 3, "charl": 4, "sign": 20}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert [c.surface for c in cons if c.kind == "name"] == ["Rollo", "Charles"]
    assert [c.surface for c in unmet(cons, "He signed a treaty with Charles.")] == ["Rollo"]
    assert unmet(cons, "He signed a treaty with Charles.", ["Rollo"]) == ()
    everywhere = {"rollo": 90, "charl": 4}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: everywhere.get(t, 0), 100)
    )
    assert [c.surface for c in cons if c.kind == "name"] == ["Charles"]


def test_the_rare_words_of_the_relation_asked_about_must_be_quoted() -> None:
    q = "Who did the Normans besiege in the 11th century?"
    subject = classify_intent(q).subject_terms
    df = {"norman": 30, "besieg": 2}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert [c.surface for c in cons] == ["11th century", "besiege"]
    text = "Norman architecture spread across England in the 11th century."
    assert [c.surface for c in unmet(cons, text)] == ["besiege"]
    assert unmet(cons, "In the 11th century the Normans besieged Bari.") == ()


def test_statements_to_check_carry_no_constraints() -> None:
    assert (
        question_constraints(analyse("Albendazole is not used to treat filariasis in 1998.")) == ()
    )


def test_reasons_are_true_and_in_the_question_words() -> None:
    century = Constraint("number", "11th century", "11:century")
    when = Constraint("date", "when", "date")
    assert reason([(century,), (century, when)]) == (
        "constraint_unmet:no passage found mentions 11th century"
    )
    assert reason([(century,), (when,)]) == (
        "constraint_unmet:the closest passage found does not mention 11th century"
    )
    gate = UnitGate(question_constraints(analyse("Who did not sign the treaty in 911?")))
    assert gate("In 911 the bishops did not sign it.", ())
    assert not gate("Rollo did not sign it.", (), 0.2)
    assert not gate("In 911 Rollo signed the treaty.", (), 0.9)
    assert gate.refusal() == "constraint_unmet:the closest passage found does not say 'not'"


def test_a_pronoun_sentence_is_also_offered_with_the_sentence_naming_its_referent() -> None:
    text = (
        "# Normans\n\nRichard I was the grandson of Rollo. He ruled the duchy for fifty "
        "years. The duchy grew.\n"
    )
    doc = parse_document(text.encode(), name="n.md", kb="k", doc_path="n.md", config=IngestConfig())
    units = document_units(list(doc.nodes))
    window = [u for u in units if u.kind == "window"]
    assert [u.display for u in window] == [
        "Richard I was the grandson of Rollo. He ruled the duchy for fifty years."
    ]
    assert text[window[0].start : window[0].end] == window[0].text  # exact span
    assert not any(u.kind == "window" and u.display.startswith("He ruled") for u in units)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus: Path = tmp_path_factory.mktemp("wiki")
    (corpus / "normans.md").write_text(
        "# Normans\n\nThe Normans were descended from Norse raiders. In the 10th century "
        "the Normans besieged the city of Bari for three years. In the 11th century they "
        "built castles in England. Richard I was the grandson "
        "of Rollo. He ruled the duchy of Normandy for fifty years. Common Norman exports "
        "were wool and timber.\n",
        "utf-8",
    )
    (corpus / "ranges.md").write_text(
        "# Ranges\n\nThe IntRange type keeps a value inside a range.\n\nIf clamp mode is "
        "enabled, a value outside the range is set to the boundary instead of failing.\n",
        "utf-8",
    )
    (corpus / "limits.md").write_text(
        "# Types\n\n## Bounded counters\n\nThe TallyBound type keeps a counter below a "
        "ceiling.\n\nBoth ends are inclusive unless marked open.\n\nWhen wrap mode is "
        "enabled, a counter that passes the ceiling starts again from the floor.\n",
        "utf-8",
    )
    (corpus / "guards.md").write_text(  # a page of "##" sections without a "#" title
        "## Guards\n\nGuards are implemented as an endpoint decorator that checks the "
        "caller's scopes.\n\n```python\n@guard('admin')\nasync def page(request):\n"
        "    ...\n```\n\nYou can list one scope or several.\n\nBy default 403 responses "
        "are returned when the scopes are missing.\n",
        "utf-8",
    )
    (corpus / "exports.md").write_text(  # an introduction of three paragraphs, then code
        "# Reports\n\n## Export\n\nYou can export the report.\n\nUse the subcommand "
        "`bundle`.\n\n```console\n$ tool bundle\n```\n\n**Options**:\n\n"
        "* `--target <file>`: A file to write the report to.\n",
        "utf-8",
    )
    (corpus / "fences.md").write_text(  # a one-level article: its first paragraph lends no words
        "# Fences\n\nA fence decorator wraps a handler in a timeout.\n\nFences nest.\n\n"
        "By default 504 responses are returned when the time is up.\n",
        "utf-8",
    )
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def test_a_near_miss_century_is_refused_with_a_true_reason(kb: KnowledgeBase) -> None:
    a = kb.ask("Who did the Normans besiege in the 11th century?")
    assert a.outcome == "insufficient_evidence", a.answer
    assert a.answer.endswith("(the closest passage found does not mention 11th century)")
    right = kb.ask("Who did the Normans besiege in the 10th century?")
    assert right.outcome == "answered", right.answer
    assert "Bari" in right.answer


def test_a_negated_question_is_not_answered_by_the_plain_statement(kb: KnowledgeBase) -> None:
    a = kb.ask("What were Norman exports that were not common?")
    assert a.outcome == "insufficient_evidence", a.answer
    assert "says 'not'" in a.answer


def test_the_referent_of_a_pronoun_is_quoted_with_its_sentence(kb: KnowledgeBase) -> None:
    a = kb.ask("Who ruled the duchy of Normandy for fifty years?")
    assert a.outcome == "answered", a.answer
    assert "Richard I" in a.answer
    for c in a.citations:
        text = kb.store.get_document_text(kb.name, c.doc_id, c.version_id)
        assert text[c.char_start : c.char_end] == c.excerpt


def test_a_clause_number_is_a_reference_its_heading_may_carry() -> None:
    q = "What does clause 2.3 say about overdue invoices?"
    assert failed(q, "Invoices unpaid after 30 days are overdue.", ("2.3 Overdue invoices",)) == []
    assert failed(q, "Invoices unpaid after 30 days are overdue.", ("2.4 Refunds",)) == ["2.3"]
    assert [
        c.kind for c in question_constraints(analyse("What does the table hold in Cell 2.1?"))
    ] == ["name"]


def test_a_name_may_come_from_the_paragraph_a_relation_word_may_not() -> None:
    q = "Who did the Normans besiege in the 11th century?"
    subject = classify_intent(q).subject_terms
    df = {"norman": 3, "besieg": 2}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    para = "In the 10th century the Normans besieged Bari. In the 11th century they built castles."
    unit = "In the 11th century they built castles."
    assert [c.surface for c in unmet(cons, unit, (), para)] == ["besiege"]
    assert [c.surface for c in unmet(cons, unit)] == ["Normans", "besiege"]


def test_relation_words_are_rare_words_the_kb_holds_but_not_its_vocabulary() -> None:
    q = "Who was Kublai Khan's grandmother?"
    subject = classify_intent(q).subject_terms
    df = {"kublai": 5, "khan": 9, "grandmoth": 2}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert [c.surface for c in cons if c.kind == "words"] == ["grandmother"]
    unit = "Kublai Khan convened a kurultai in Kaiping."
    assert [c.surface for c in unmet(cons, unit)] == ["grandmother"]
    assert unmet(cons, "Sorghaghtani was the grandmother of Kublai Khan.") == ()
    common = {"kublai": 5, "khan": 9, "grandmoth": 40}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: common.get(t, 0), 100)
    )
    assert not [c for c in cons if c.kind == "words"]


def test_one_of_the_largest_is_no_figure() -> None:
    q = "How many academic units make up the school?"
    assert failed(q, "This makes it one of the largest academic libraries.") == ["How many"]
    assert failed(q, "The school has eleven academic units.") == []


def test_a_relation_of_many_words_is_named_as_half_of_them() -> None:
    words = Constraint("words", "integer factorization input variable", "x")
    assert reason([(words,)]) == (
        "constraint_unmet:no passage found mentions half of: integer, factorization, input, "
        "variable"
    )


def test_cannot_is_a_negation_and_non_hyphen_words_are_not() -> None:
    q = "What states that only problems that cannot be solved quickly are feasible?"
    assert failed(
        q, "The thesis states that problems that can be solved quickly are feasible."
    ) == ["cannot"]
    q = "What is one not common example of a complexity measure?"
    assert failed(q, "For example, a non-deterministic machine is a model.") == ["not"]
    q = "What was Kublai's least favorite sect?"
    assert failed(q, "Other religions became less important.") == ["least"]


def test_the_answer_type_words_are_not_relation_words() -> None:
    q = "What fraction of the vote was cast in the referendum?"
    subject = classify_intent(q).subject_terms
    df = {"fraction": 3, "referendum": 2, "vote": 30, "cast": 4}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert [c.surface for c in cons if c.kind == "words"] == ["referendum"]


def test_a_negated_condition_carries_no_constraint_and_a_present_tense_when_a_time() -> None:
    q = "What response does the middleware send when the Host header does not validate?"
    assert [c.kind for c in question_constraints(analyse(q))] == []
    q = "When does a background task run?"  # a time or occasion, not a date (issue 34)
    assert [c.kind for c in question_constraints(analyse(q))] == ["time"]
    assert failed(q, "Background tasks run after the response has been sent.") == []
    assert [c.kind for c in question_constraints(analyse("Who did not adopt the charter?"))] == [
        "polarity"
    ]


def test_a_name_may_come_from_the_paragraph_before_in_its_section(kb: KnowledgeBase) -> None:
    a = kb.ask("What does clamp mode do for IntRange?")
    assert a.outcome == "answered", a.answer
    assert "set to the boundary" in a.answer


def test_the_words_of_a_condition_are_not_the_relation_asked_about() -> None:
    q = "After an instrument loses its connection, should I restart the instrument?"
    subject = classify_intent(q).subject_terms
    df = {"instrument": 3, "lose": 2, "connect": 2, "restart": 2}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert [c.surface for c in cons if c.kind == "words"] == ["restart"]


def test_the_words_of_a_purpose_clause_are_not_the_relation_asked_about() -> None:
    # "to qualify for the liability limitations" says why; "designate" what is asked
    q = "What must a provider designate to qualify for the liability limitations?"
    subject = classify_intent(q).subject_terms
    df = {"provid": 3, "design": 2, "qualifi": 2, "liabil": 2, "limit": 2}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert [c.surface for c in cons if c.kind == "words"] == ["provider designate"]
    q = "What did the Normans build in order to hold the conquered lands?"
    subject = classify_intent(q).subject_terms
    df = {"norman": 3, "build": 2, "hold": 2, "conquer": 2, "land": 2}
    cons = question_constraints(
        analyse(q), profile_terms(analyse(q), subject, lambda t: df.get(t, 0), 100)
    )
    assert "conquered" not in " ".join(c.surface for c in cons if c.kind == "words")


def test_a_why_question_carries_no_polarity() -> None:
    assert (
        question_constraints(analyse("Why is the default of my flag not shown in the help?")) == ()
    )


def test_numbers_of_a_legal_or_standards_citation_are_not_figures() -> None:
    """ "12 CFR 1002.4(b)" names a regulation and clause (matched exactly by recall's
    identifier route and the edition lookup), so the quoted clause text need not repeat
    "12" or "1002.4"; a real figure in the same question still is one."""
    got = question_constraints(analyse("What does 12 CFR 1002.4(b) say about discouragement?"))
    assert not [c for c in got if c.kind == "number"]
    got = question_constraints(analyse("Which clause of ISO 13485:2016 covers design reviews?"))
    assert not [c for c in got if c.kind == "number"]
    got = question_constraints(analyse("Under 12 CFR 1002.4, how many days does a creditor have?"))
    assert [c.surface for c in got if c.kind == "number"] == []
    got = question_constraints(
        analyse("Did 12 CFR 1002.4 apply to the 35 applications filed in 1999?")
    )
    assert {c.surface for c in got if c.kind == "number"} == {"35", "1999"}


def test_a_name_may_come_from_the_lead_paragraph_of_its_subsection(kb: KnowledgeBase) -> None:
    """The subsection's lead paragraph names the type two blocks before the unit that
    answers ("wrap mode"); a one-level article lends only the block right before."""
    a = kb.ask("What does wrap mode do for TallyBound?")
    assert a.outcome == "answered", a.answer
    assert "starts again from the floor" in a.answer


def test_a_negation_of_something_else_does_not_meet_a_negated_question() -> None:
    q = "Who weren't exempt from the Ministry of Justice?"
    text = "Commissioners are exempt from member state taxes (but not EU taxes)."
    assert failed(q, text) == ["n't"]
    assert failed(q, "Judges were not exempt from the Ministry of Justice.") == []
    q = "What is not an example of a mechanical barrier?"
    assert failed(q, "All forces except gravity are manifestations of matter.") == ["not"]
    assert failed(q, "Mucus is not a mechanical barrier but a chemical one.") == []


def test_a_relation_word_may_come_from_the_lead_paragraph_of_its_subsection(
    kb: KnowledgeBase,
) -> None:
    """ "Guards are implemented as an endpoint decorator" opens the "## Guards" section (a
    page without a "#" title): it says what every later block of the section is about, so
    the relation word "decorator" of the question is heading context for the 403 sentence.
    A one-level article's first paragraph is not (the block right before only)."""
    a = kb.ask("Which status code does the guard decorator return when scopes are missing?")
    assert [c["kind"] for c in a.trace["constraints"]] == ["words"]
    assert a.outcome == "answered", a.answer
    assert "403 responses" in a.answer
    far = kb.ask("Which status code does the fence decorator return when the time is up?")
    assert far.outcome == "insufficient_evidence", far.answer
    assert "504" not in far.answer  # the far sentence never met the relation word


def test_a_relation_word_may_come_from_the_introduction_of_its_subsection(
    kb: KnowledgeBase,
) -> None:
    """The "## Export" subsection opens with two paragraphs before its command and options
    list; the second names the subcommand ("bundle") the question asks about, so an option
    of the list answers."""
    a = kb.ask("Which option of the bundle subcommand writes the report to a file?")
    assert "words" in [c["kind"] for c in a.trace["constraints"]]
    assert a.outcome == "answered", a.answer
    assert "--target" in a.answer
