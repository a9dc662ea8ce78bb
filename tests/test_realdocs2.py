"""Issue 15 on real binary documents, second round: a document's subject named in its
opening only, descriptor words no document holds, and literals cut by a PDF line break."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.admission import expansions, named_parts, subject_names
from citewise.answer.support import support_score
from citewise.config import IngestConfig
from citewise.ingest.parse import parse_document
from citewise.ingest.pdf_table import is_table
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.constraints import Constraint, question_constraints, unmet
from citewise.sufficiency.descriptors import descriptor_words, soften_descriptors
from citewise.sufficiency.measure import gives_measure
from citewise.sufficiency.models import QuestionTerm, TermProfile
from tests.test_realdocs import tiny_pdf

ACT_FILLER = "\n\n".join(
    f"Title {n} of the DMCA amends the copyright law in its {n} part." for n in range(1, 7)
)
AD_FILLER = "\n\n".join(
    f"Paragraph {n} explains the {n} required action for the Boeing 737 MAX fleet."
    for n in range(1, 7)
)
FILLER = "\n\n".join(
    f"Paragraph {w} of the summary discusses the {w} provisions in some detail, "
    f"with their history and the reasons given for them."
    for w in ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path_factory.mktemp("realdocs2")
    (corpus / "act.txt").write_text(
        "The Digital Millennium Copyright Act (DMCA) was signed into law on October 28, "
        f"1998.\n\n{ACT_FILLER}\n\n{FILLER}\n\n"
        "It is a criminal offense to violate the anti-circumvention "
        "rules wilfully. Under section 1204 penalties range up to a $500,000 fine or up to "
        "five years imprisonment for a first offense.\n",
        "utf-8",
    )
    (corpus / "directive.txt").write_text(
        "SUMMARY: The FAA proposes a new airworthiness directive (AD) for all Boeing 737 MAX "
        f"airplanes.\n\n{AD_FILLER}\n\n{FILLER}\n\n"
        "Costs of compliance\n\nThe FAA estimates that this "
        "proposed AD covers 73 airplanes of U.S. registry.\n",
        "utf-8",
    )
    (corpus / "hulls.txt").write_text(
        "THE DESIGNS ACT\n\nThis summary covers the protection of original designs.\n\n"
        f"{FILLER}\n\nTitle V of the law, entitled the Vessel Hull Design Protection Act "
        "(VHDPA), adds a new chapter 13 to Title 17 of the U.S. Code. It creates a new system "
        "for protecting original designs of certain useful articles.\n\nFor purposes of the "
        "VHDPA, useful articles are limited to the hulls (including the decks) of vessels no "
        "longer than 200 feet.\n",
        "utf-8",
    )
    (corpus / "siege-journal.txt").write_text(  # a file name, not a descriptor word
        "THE SIEGE OF VICKSBURG.\n\nJune 10th. The heat of the sun increases.\n\n"
        + "".join(
            f"June {d}th. Another day of the siege of Vicksburg.\n\n" for d in (11, 12, 13, 14)
        )
        + "Last night, on the top of a hill, I have seen as many as three mortar shells "
        "in the air at once, flying into the city from the river.\n",
        "utf-8",
    )
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def test_an_acronym_the_document_opens_with_names_its_later_sentences(kb: KnowledgeBase) -> None:
    answer = kb.ask(
        "What is the maximum criminal penalty for a first offense under section 1204 of the DMCA?"
    )
    assert answer.outcome == "answered", answer.answer
    assert "$500,000" in answer.answer and "five years" in answer.answer


def test_a_model_number_the_document_opens_with_names_its_later_sentences(
    kb: KnowledgeBase,
) -> None:
    answer = kb.ask(
        "How many airplanes of U.S. registry does the proposed Boeing 737 MAX directive cover?"
    )
    assert answer.outcome == "answered", answer.answer
    assert "73 airplanes" in answer.answer
    # a sibling model no document names is still refused
    other = kb.ask(
        "How many airplanes of U.S. registry does the proposed Boeing 787 directive cover?"
    )
    assert other.outcome == "insufficient_evidence", other.answer


def test_a_descriptor_word_no_document_holds_is_named_not_refused(kb: KnowledgeBase) -> None:
    answer = kb.ask("How many mortar shells did the diarist see in the air at once at Vicksburg?")
    assert answer.outcome == "answered", answer.answer
    assert "three" in answer.answer
    assert any("diarist" in r for r in answer.sufficiency.reason_texts), answer.sufficiency
    # a word that picks out which thing is meant stays the subject
    absent = kb.ask("What is a castellated mortar shell?")
    assert absent.outcome == "insufficient_evidence", absent.answer


def test_figures_and_acronyms_of_names_are_names() -> None:
    q = "How many airplanes of U.S. registry does the proposed Boeing 737 MAX directive cover?"
    got = named_parts(analyse(q), question_constraints(analyse(q)))
    assert Constraint("name", "737", "737") in got
    assert not [c for c in got if c.kind == "number"]
    dated = "How many checks did Texas have in November 2015?"
    assert [
        c.key
        for c in named_parts(analyse(dated), question_constraints(analyse(dated)))
        if c.kind == "number"
    ]


def test_a_name_is_its_documents_subject_when_its_opening_names_it_throughout() -> None:
    opening = "The Digital Millennium Copyright Act (DMCA) was signed into law in 1998."
    whole = opening + " The DMCA amends the law." * 6 + " Eastern filler words." * 200
    assert subject_names(["DMCA", "Eastern"], opening, whole) == ["DMCA"]
    # named in the opening but seldom after it: not what the document is about
    assert subject_names(["DMCA"], opening, opening + " filler" * 3000) == []


def test_descriptor_words_and_when_they_soften() -> None:
    assert descriptor_words(analyse("How many shells did the diarist see at Vicksburg?")) == {
        "diarist"
    }
    assert descriptor_words(analyse("What rumour about Johnston reached the camp?")) == {"rumour"}
    assert descriptor_words(analyse("What is a castellated nut?")) == frozenset()
    terms = (
        QuestionTerm("diarist", "diarist", "word", 0, True),
        QuestionTerm("shell", "shells", "word", 4, True),
        QuestionTerm("vicksburg", "Vicksburg", "name", 2, True),
    )
    q = analyse("How many shells did the diarist see at Vicksburg?")
    soft = soften_descriptors(q, TermProfile(terms))
    assert soft.terms[0].soft and not soft.terms[1].soft
    # no other name: the question's subject may be the word itself
    alone = TermProfile(terms[:2])
    assert soften_descriptors(q, alone) == alone


def test_a_literal_cut_by_a_line_break_in_the_excerpt_is_supported() -> None:
    cited = "using the procedures found in 14 CFR\n11.43 and 11.45, by any method"
    score = support_score("using the procedures found in 14 CFR 11.43 and 11.45", [cited])
    assert score.verdict == "supported", score


def test_how_long_wants_a_duration_or_length_not_any_figure() -> None:
    assert gives_measure("permitted to retain for up to six months no more than one copy")
    assert gives_measure("vessels no longer than 200 feet")
    assert gives_measure("the Yuan ruled from 1271 to 1368")
    assert not gives_measure("section 402 of the DMCA amends section 112 of the Copyright Act")
    assert gives_measure("Sets a maximum time in seconds to cache responses. Defaults to 600.")
    assert not gives_measure("Section 512 is in effect for seconds.")
    q = "For how long could an organization keep an ephemeral recording?"
    (quantity,) = [c for c in question_constraints(analyse(q)) if c.kind == "quantity"]
    assert unmet([quantity], "Section 402 amends section 112 for ephemeral recordings.")
    assert not unmet([quantity], "It could keep an ephemeral recording for up to six months.")
    length = "Up to what length of vessel does the Act apply?"
    assert [
        c
        for c in named_parts(analyse(length), question_constraints(analyse(length)))
        if c.kind == "quantity"
    ]


def test_an_acronym_stands_for_what_its_document_defines() -> None:
    context = "Title V, entitled the Vessel Hull Design Protection Act (VHDPA), adds a chapter."
    (got,) = expansions("For purposes of the VHDPA, hulls are limited to 200 feet.", context)
    assert "Vessel Hull Design Protection Act" in got
    assert expansions("No acronym here.", context) == []


def test_a_sentence_naming_its_subject_by_acronym_answers_how_long(kb: KnowledgeBase) -> None:
    answer = kb.ask("Up to what length of vessel does the Vessel Hull Design Protection Act apply?")
    assert answer.outcome == "answered", answer.answer
    assert "200 feet" in answer.answer


#: A statistics page: a header, figure rows, and the table's title printed after them.
TABLE_PAGE = [
    (720, "State Permit Handgun Long Gun Totals"),
    (706, "Ohio 9,338 34,878 31,817 81,616"),
    (692, "Texas 21,550 56,941 51,670 146,982"),
    (678, "Utah 10,429 4,314 5,857 21,772"),
    (600, "Firearm Background Checks"),
    (560, "November - 2015"),
    (500, "These statistics represent the number of firearm background checks initiated."),
]


def test_a_pdf_paragraph_of_figure_rows_is_a_table_with_its_caption() -> None:
    assert is_table(["a 1 2 3", "b 4 5 6", "c 7 8 9"])
    assert not is_table(["Section 1204 penalties range up to a $500,000 fine.", "b 4 5 6"])
    ex = parse_document(
        tiny_pdf(TABLE_PAGE), name="t.pdf", kb="k", doc_path="t.pdf", config=IngestConfig()
    )
    tables = [n for n in ex.nodes if n.kind == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert "November - 2015" in table.attrs["caption"]
    assert table.attrs["header_line"].startswith("State Permit")
    rows = [n for n in ex.nodes if n.kind == "table_row"]
    assert [ex.text[r.char_start : r.char_end].split()[0] for r in rows] == [
        "Ohio",
        "Texas",
        "Utah",
    ]
    assert all(r.text == ex.text[r.char_start : r.char_end] for r in rows)
    assert "November - 2015" in rows[1].search_text  # recall reads the caption with the row


def test_a_pdf_table_row_answers_under_its_caption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "checks.pdf").write_bytes(tiny_pdf(TABLE_PAGE))
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([tmp_path / "c"]).ok
        answer = kb.ask("How many firearm background checks did Texas have in November 2015?")
        assert answer.outcome == "answered", answer.answer
        assert "146,982" in answer.answer
        cited = answer.citations[0]
        text = kb.store.get_document_text(kb.name, cited.doc_id, cited.version_id)
        assert text[cited.char_start : cited.char_end] == cited.excerpt
        assert cited.excerpt.startswith("Texas")
        other = kb.ask("How many firearm background checks did Texas have in December 2015?")
        assert other.outcome == "insufficient_evidence", other.answer
