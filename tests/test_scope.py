"""Scope constraints (issue 34): the parser (analysis/scope.py) on phrasing from
documentation and from reports, never raising on any text; the unit context
(answer/unit_context.py); and real knowledge bases where the question's edition, year,
file kind or source document is matched against where the sentence stands, not demanded
from the sentence."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.analysis.question import analyse
from citewise.analysis.scope import Scope, kind_of_path, scope_of
from citewise.answer.acronyms import aliases, definitions
from citewise.answer.units.context import (
    DocFacts,
    UnitContext,
    context_text,
    edition_family,
    in_scope,
    newest_editions,
    scope_unmet,
    source_met,
    unit_context,
)
from citewise.evidence.models import Fragment
from citewise.kb import Home, KnowledgeBase
from citewise.sufficiency.constraints import unmet
from citewise.sufficiency.figures import Constraint

pytestmark = pytest.mark.usefixtures("dense_off")


# -- the parser: report phrasing ------------------------------------------------------
def test_edition_years_of_reports_and_standards() -> None:
    s = scope_of("In the 2013 edition, what must a provider encrypt?")
    assert s.editions == ("2013",) and s.years == ("2013",) and "edition" in s.words
    s = scope_of("What does the 2017 list name as the top risk?")
    assert s.editions == ("2017",) and s.words == ("list",)
    assert scope_of("What changed in the 2nd edition?").editions == ("2nd edition",)


def test_a_year_alone_is_a_year_not_an_edition() -> None:
    s = scope_of("What was the reported revenue in 2019?")
    assert s.years == ("2019",) and not s.editions and not s.restricts


def test_file_kinds_named_as_the_place_of_the_answer() -> None:
    assert scope_of("How many seats does Bus 14 have in the spreadsheet?").kinds == ("spreadsheet",)
    assert scope_of("According to the slides, when is the launch?").kinds == ("slides",)
    assert scope_of("What does the PDF version say about fees?").kinds == ("pdf",)


def test_a_file_kind_as_the_subject_is_no_scope() -> None:
    assert scope_of("How do I render a PDF with it?") == Scope()
    assert scope_of("How do I export a spreadsheet to CSV?").kinds == ()


def test_source_documents_named_by_title_before_a_genre_noun() -> None:
    s = scope_of("How many replicas does a cell have, according to the Bigtable paper?")
    assert s.source == "Bigtable" and s.words == ("paper",)
    assert scope_of("What is a record in the Privacy Act of 1974?").source == "Privacy"
    # "the paper's estimate" names no document: the genre noun is no term either way
    s = scope_of("How often is a block made, according to the paper's storage estimate?")
    assert s.source == "" and s.words == ("paper",)


# -- the parser: documentation phrasing -------------------------------------------------
def test_versions_and_sections_in_documentation_questions() -> None:
    v2 = scope_of("What changed in version 2?")
    assert v2.versions == ("version 2",) and not v2.restricts  # a condition, per section
    assert scope_of("Is the flag still there in v2.1?").versions == ("version 2.1",)
    assert scope_of("In the Quickstart section, what command starts the server?").section == (
        "Quickstart"
    )
    s = scope_of("What does the latest version recommend for retries?")
    assert s.newest and "version" in s.words


def test_plain_documentation_questions_state_no_scope() -> None:
    for q in (
        "How do I add a route to the application?",
        "What does the --verbose option do?",
        "Which exception is raised when a request times out?",
    ):
        assert scope_of(q) == Scope(), q


def test_the_analysed_question_carries_its_scope() -> None:
    q = analyse("According to the 2017 edition, within how many hours is a breach reported?")
    assert q.scope.editions == ("2017",)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_the_parser_never_raises(text: str) -> None:
    s = scope_of(text)
    assert isinstance(s, Scope)
    assert all(
        k in ("spreadsheet", "pdf", "slides", "word document", "web page", "ebook") for k in s.kinds
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "in",
                "the",
                "2013",
                "edition",
                "according",
                "to",
                "paper",
                "spreadsheet",
                "version",
                "v2",
                "Bigtable",
                "section",
                "latest",
                "'s",
                ",",
                "?",
                "PDF",
                "of",
                "slides",
            ]
        ),
        max_size=14,
    )
)
def test_the_parser_never_raises_on_scope_words(words: list[str]) -> None:
    assert isinstance(scope_of(" ".join(words)), Scope)


# -- the unit context -----------------------------------------------------------------
def _ctx(path: str, title: str = "", **meta: object) -> UnitContext:
    return unit_context(DocFacts(path, title, meta), ("Encryption",))


def test_context_text_names_title_path_kind_edition_and_section() -> None:
    ctx = _ctx("std/cloud-standard-2013.md", "Cloud Security Standard", edition="2013")
    text = context_text(ctx)
    for word in ("Cloud Security Standard", "cloud standard 2013", "Encryption", "2013"):
        assert word in text
    sheet = context_text(_ctx("data/fleet.xlsx", "Fleet"))
    assert "spreadsheet" in sheet and kind_of_path("deck.odp") == "slides"


def test_scope_unmet_names_what_the_context_is_not() -> None:
    s = scope_of("In the 2013 edition, how long is the key?")
    assert scope_unmet(s, _ctx("cloud-standard-2013.md")) == ()
    assert scope_unmet(s, _ctx("cloud-standard-2017.md")) == ("the 2013 edition",)
    sheet = scope_of("How many seats are there in the spreadsheet?")
    assert scope_unmet(sheet, _ctx("fleet.xlsx")) == ()
    assert scope_unmet(sheet, _ctx("fleet.md")) == ("a spreadsheet",)
    assert scope_unmet(Scope(editions=("version 2",)), _ctx("guide-v2.md")) == ()
    assert scope_unmet(Scope(editions=("version 2",)), _ctx("guide-v12.md")) != ()


def test_a_source_is_matched_against_title_and_path() -> None:
    assert source_met("Bigtable", _ctx("bigtable-a-distributed-storage-system.pdf"))
    assert source_met("Lattice", _ctx("x.md", "Lattice: a replicated log"))
    assert not source_met("Quarry", _ctx("lattice-paper.md", "Lattice"))


def test_a_year_is_met_by_the_sentence_or_its_context_never_by_neither() -> None:
    year = Constraint("number", "2013", "2013")
    assert unmet([year], "Providers must encrypt data.", context="cloud standard 2013") == ()
    assert unmet([year], "In 2013 providers encrypted data.") == ()
    assert unmet([year], "Providers must encrypt data.", context="cloud standard 2017") == (year,)
    count = Constraint("number", "14", "14")  # other figures: the sentence only
    assert unmet([count], "Bus twelve.", context="route 14") == (count,)


# -- real knowledge bases -------------------------------------------------------------
STANDARD = """# Cloud Security Standard, {year} edition

## Encryption

Providers must encrypt customer data at rest with a key of at least {bits} bits.

## Incident reporting

A breach is reported to the customer within {hours} hours of its discovery.
"""

PAPER = """# {name}: {title}

## Design

A {name} cell consists of {n} replicas, one of which is elected leader.

## Storage

Each replica keeps its log on {disk} disks, written in batches of {batch} records.
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    openpyxl = pytest.importorskip("openpyxl")
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("scope")
    docs = root / "docs"
    docs.mkdir()
    for year, bits, hours in (("2013", 128, 72), ("2017", 256, 24)):
        text = STANDARD.format(year=year, bits=bits, hours=hours)
        (docs / f"cloud-standard-{year}.md").write_text(text)
    (docs / "lattice-paper.md").write_text(
        PAPER.format(name="Lattice", title="a replicated log", n="three", disk="two", batch=64)
    )
    (docs / "quarry-paper.md").write_text(
        PAPER.format(name="Quarry", title="a lock service", n="five", disk="four", batch=128)
    )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Fleet"
    for row in (
        ("Vehicle", "Depot", "Seats", "Fuel"),
        ("Bus 12", "North depot", 54, "diesel"),
        ("Bus 14", "South depot", 61, "electric"),
    ):
        ws.append(row)
    wb.save(docs / "fleet.xlsx")
    (docs / "fleet-notes.md").write_text(
        "# Fleet notes\n\nThe fleet is serviced at the North depot every Tuesday.\n"
        "Bus 14 was delivered in spring and runs on the airport line.\n"
    )
    with Home.open(root / "home") as home:
        kb = home.kb("default")
        kb.add([docs])
        yield kb
    mp.undo()


def _cited(kb: KnowledgeBase, q: str) -> tuple[str, list[str]]:
    a = kb.ask(q)
    return a.answer, [c.path for c in a.citations]


def test_a_named_edition_is_answered_from_that_edition(kb: KnowledgeBase) -> None:
    text, paths = _cited(
        kb, "In the 2013 edition, how many bits must the key for customer data at rest have?"
    )
    assert paths and set(paths) == {"cloud-standard-2013.md"} and "128" in text
    text, paths = _cited(
        kb, "What key size must providers use for data at rest in the 2017 edition?"
    )
    assert paths and set(paths) == {"cloud-standard-2017.md"} and "256" in text
    text, paths = _cited(
        kb, "According to the 2017 edition, within how many hours is a breach reported?"
    )
    assert paths and set(paths) == {"cloud-standard-2017.md"} and "24" in text


def test_an_edition_the_kb_lacks_is_refused_naming_it(kb: KnowledgeBase) -> None:
    text, paths = _cited(kb, "In the 2020 edition, how many bits must the key have?")
    assert not paths and "2020" in text


def test_a_spreadsheet_row_answers_a_question_naming_the_spreadsheet(
    kb: KnowledgeBase,
) -> None:
    text, paths = _cited(kb, "How many seats does Bus 14 have in the spreadsheet?")
    assert paths == ["fleet.xlsx"] and "61" in text
    assert "do not mention" not in text


def test_a_file_kind_the_kb_lacks_is_refused_naming_it(kb: KnowledgeBase) -> None:
    text, paths = _cited(kb, "Which depot is Bus 14 at, according to the slides?")
    assert not paths and "slides" in text


def test_a_sibling_document_named_by_title_answers(kb: KnowledgeBase) -> None:
    text, paths = _cited(kb, "How many replicas does a cell have, according to the Quarry paper?")
    assert paths and set(paths) == {"quarry-paper.md"} and "five" in text
    text, paths = _cited(kb, "How many replicas does a cell have, according to the Lattice paper?")
    assert paths and set(paths) == {"lattice-paper.md"} and "three" in text


def test_fixture_paths_are_plain(tmp_path: Path) -> None:
    # the fixture's folders hold nothing but the files written above
    assert kind_of_path(str(tmp_path / "fleet.xlsx")) == "spreadsheet"


# -- surface variants: acronyms a document defines, hyphens ---------------------------
def test_definitions_from_regulatory_and_documentation_text() -> None:
    regulation = (
        "The Water Quality Protection Act (WQPA) applies to all permit holders. "
        "The Department of Homeland Security (DHS) publishes the list."
    )
    docs = "Cloud service providers (CSPs) host the portal. Use the command line interface (CLI)."
    assert definitions(regulation) == [
        ("WQPA", "Water Quality Protection Act"),
        ("DHS", "Department of Homeland Security"),
    ]
    assert definitions(docs) == [
        ("CSPs", "Cloud service providers"),
        ("CLI", "command line interface"),
    ]
    assert definitions("Rates rise (2) times; see (Note) below.") == []


def test_aliases_read_both_ways_case_and_hyphens_aside() -> None:
    defined = [("CSPs", "Cloud service providers"), ("WIP", "Work in-process")]
    assert aliases("CSPs must report incidents.", defined) == ["Cloud service providers"]
    assert aliases("A CSP must report incidents.", defined) == ["Cloud service providers"]
    assert aliases("cloud service providers host it", defined) == ["CSPs"]
    assert aliases("work-in-process is counted monthly", defined) == ["WIP"]
    assert aliases("Nothing here.", defined) == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_definitions_never_raise(text: str) -> None:
    for acronym, long_form in definitions(text):
        assert acronym and long_form


VARIANTS = """# Operations manual

## Providers

Cloud service providers (CSPs) host the customer portal and the billing system.

## Incidents

CSPs must report security incidents within 24 hours.

## Inventory

Work in-process inventory is counted on the last day of each month.
"""


@pytest.fixture(scope="module")
def variants_kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("variants")
    (root / "docs").mkdir()
    (root / "docs" / "ops-manual.md").write_text(VARIANTS)
    (root / "docs" / "garden.md").write_text("# Garden\n\nTomatoes are watered twice a day.\n")
    with Home.open(root / "home") as home:
        kb = home.kb("default")
        kb.add([root / "docs"])
        yield kb
    mp.undo()


def test_a_defined_acronym_answers_for_its_long_form(variants_kb: KnowledgeBase) -> None:
    q = "Within how many hours must cloud service providers report security incidents?"
    text, paths = _cited(variants_kb, q)
    assert paths == ["ops-manual.md"] and "24 hours" in text


def test_a_hyphenated_term_matches_its_spaced_spelling(variants_kb: KnowledgeBase) -> None:
    text, paths = _cited(variants_kb, "When is work-in-process inventory counted?")
    assert paths == ["ops-manual.md"] and "last day of each month" in text
    text, paths = _cited(variants_kb, "When is work-in-progress inventory counted?")
    assert not paths and "work-in-progress" in text  # another term, still absent


def test_current_means_the_newest_edition_of_a_family(kb: KnowledgeBase) -> None:
    q = "What key size must providers use for data at rest in the current edition?"
    text, paths = _cited(kb, q)
    assert paths and set(paths) == {"cloud-standard-2017.md"} and "256" in text


def _frag(path: str) -> Fragment:
    return Fragment(
        role="direct",
        doc_id=path,
        path=path,
        revision=1,
        version_id=1,
        node_ids=(),
        line_start=1,
        line_end=1,
        char_start=0,
        char_end=1,
        heading_path=(),
        text="x",
        tokens=1,
        truncated=False,
        citation_id="c",
    )


def test_newest_editions_keep_the_newest_of_each_family_only() -> None:
    frags = [_frag(p) for p in ("std-2013.md", "std-2017.md", "notes.md", "paper-2001.md")]
    facts = {f.path: DocFacts(f.path, "") for f in frags}
    kept = [f.path for f in newest_editions(frags, facts)]
    assert kept == ["std-2017.md", "notes.md", "paper-2001.md"]
    scope = scope_of("What is the key size in the latest edition?")
    assert [f.path for f in in_scope(frags, scope, facts)[0]] == kept


def test_edition_families_leave_years_and_versions_out() -> None:
    assert edition_family("std/cloud-standard-2013.md") == edition_family(
        "std/cloud-standard-2017.md"
    )
    assert edition_family("guide-v1.2.md") == edition_family("guide-v2.0.md")
    assert edition_family("lattice-paper.md") != edition_family("quarry-paper.md")


def test_a_kind_word_that_names_something_else_is_no_scope() -> None:
    for q in (
        "What does the presentation layer validate?",
        "Which fonts does the PDF renderer embed?",
        "What goes in the style sheet?",
        "Where is the slide deck template stored on disk in the repo folder?",
    ):
        assert scope_of(q).kinds == (), q
    assert scope_of("What does the slide deck say about pricing?").kinds == ("slides",)


def test_a_subject_named_only_in_the_document_title_is_present(tmp_path: Path) -> None:
    """Front-matter titles name the subject; no passage repeats it: the title is the
    context of every passage (the subject is neither absent nor scattered)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, n, batch in (("Quarry", "five", 128), ("Lattice", "three", 64)):
        (docs / f"{name.lower()}.md").write_text(
            f'---\ntitle: "{name}: a replicated service"\n---\n\n'
            f"A cell consists of {n} replicas, one of which is elected leader.\n\n"
            f"Each replica keeps its log on disk, written in batches of {batch} records.\n"
        )
    with Home.open(tmp_path / "home") as home:
        kb = home.kb("default")
        kb.add([docs])
        text, paths = _cited(kb, "In batches of how many records does Quarry write its log?")
    assert paths == ["quarry.md"] and "128" in text


def test_a_named_section_restricts_to_fragments_under_it_when_any_is() -> None:
    def under(path: str, *heads: str) -> Fragment:
        return replace(_frag(path), heading_path=heads)

    frags = [under("guide.md", "Guide", "Installation"), under("guide.md", "Guide", "Quickstart")]
    facts = {"guide.md": DocFacts("guide.md", "Guide")}
    scope = scope_of("In the Quickstart section, what command starts the server?")
    kept, unmet_parts = in_scope(frags, scope, facts)
    assert [f.heading_path[-1] for f in kept] == ["Quickstart"] and unmet_parts == ()
    elsewhere = scope_of("In the Deployment section, what command starts the server?")
    assert in_scope(frags, elsewhere, facts)[0] == frags  # no such section: nothing dropped


def test_a_file_kind_no_document_is_stays_the_subject() -> None:
    s = scope_of("How do I read rows from the CSV file?")
    assert s.kinds == ("spreadsheet",) and "csv" in s.words
    held = s.held({"pdf", ""})
    assert held.kinds == () and "csv" not in held.words
    assert s.held({"spreadsheet"}) == s
    frags = [_frag("guide.md")]
    facts = {"guide.md": DocFacts("guide.md", "Guide")}
    assert in_scope(frags, s, facts) == (frags, ())  # no spreadsheet in the KB: no refusal
