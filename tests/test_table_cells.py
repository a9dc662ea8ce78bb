"""One table cell as the answer (issue 36): the row the question names, the column it
asks for, on every format's table rows (the header mapping they share), near misses
refused, and a comparison table in a generated PDF answered from the asked edition."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.analysis.tokenize import tokenize
from citewise.answer.units.table_cells import Row, select_cell
from citewise.core.records import Node
from citewise.kb import Home
from tests.pdf_build import Run, text_pdf


def _row(cells: list[str], header: list[str], context: str = "", heading: str = "") -> Row:
    text = " | ".join(cells)
    node = Node(
        id=f"n-{text}",
        kind="table_row",
        parent_id="t",
        heading_path=(heading,) if heading else (),
        ordinal=0,
        line_start=1,
        line_end=1,
        char_start=0,
        char_end=len(text),
        text=text,
        search_text=text,
        sha256="",
        attrs={"header": header, "cells": cells},
    )
    return Row(node, tuple(header), tuple(cells), context)


# a statistics table (rows = places, columns = categories), with its caption
STATS_HEAD = ["State", "Permit", "Handgun", "Long Gun", "Totals"]
STATS_CAPTION = "Harbour licence checks / March 2021"
STATS = [
    _row(["Avonshire", "1,204", "3,310", "2,980", "7,494"], STATS_HEAD, STATS_CAPTION),
    _row(["Brackwater", "88", "410", "2,001", "2,499"], STATS_HEAD, STATS_CAPTION),
]
# a comparison table (rows = items, columns = editions), as a spreadsheet would give it
EDITION_HEAD = ["Item", "2013 edition", "2016 edition", "2019 edition"]
EDITIONS = [
    _row(["Filing fee", "120", "135", "150"], EDITION_HEAD, "Fee schedule by edition"),
    _row(["Late fee", "40", "45", "55"], EDITION_HEAD, "Fee schedule by edition"),
]


def _cell(question: str, rows: list[Row]) -> str | None:
    got = select_cell(analyse(question), rows)
    return None if got is None else got.cell


def test_the_named_row_and_the_asked_column_give_one_cell() -> None:
    assert _cell("How many permit checks did Brackwater have in March 2021?", STATS) == "88"
    assert _cell("How many long gun checks did Avonshire have?", STATS) == "2,980"
    assert _cell("What is the late fee in the 2016 edition?", EDITIONS) == "45"
    assert _cell("What does the 2019 edition say for the filing fee?", EDITIONS) == "150"


def test_the_statement_names_the_row_and_the_column() -> None:
    got = select_cell(analyse("What is the late fee in the 2013 edition?"), EDITIONS)
    assert got is not None and got.statement() == "Late fee, 2013 edition: 40"


def test_a_row_column_or_year_the_table_lacks_is_no_cell() -> None:
    # a row the table lacks (a name), a column it lacks, an edition (a year) it lacks
    assert _cell("How many permit checks did Caldermoor have in March 2021?", STATS) is None
    assert _cell("What is the late fee in the 2022 edition?", EDITIONS) is None
    assert _cell("How many permit checks did Avonshire have in March 2024?", STATS) is None


def test_a_column_of_the_wrong_answer_type_is_not_chosen() -> None:
    rows = [_row(["Blues", "STL", "1"], ["Team", "Location", "Cups"], "Cups by team")]
    assert _cell("How many cups have the Blues won?", rows) == "1"
    # "how many" asks for a figure: the location column (no figure) never answers it
    assert _cell("How many locations do the Blues have?", rows) is None


def test_two_tables_differing_by_a_qualifier_answer_from_the_one_the_question_states() -> None:
    head = ["Team", "Location", "Stanley Cups"]
    all_time = _row(["Maple Leafs", "TOR", "13"], head, heading="Stanley Cups")
    since = _row(["Maple Leafs", "TOR", "0"], head, heading="Stanley Cups Since 67")
    rows = [all_time, since]
    assert _cell("How many Stanley Cups have the Maple Leafs won since 67?", rows) == "0"
    # not stating the qualifier, the question is ambiguous between the two tables
    assert _cell("How many Stanley Cups have the Maple Leafs won?", rows) is None
    # the title's words name the table: the location column is the one asked for
    assert _cell("What is the location of the Maple Leafs in the Stanley Cups table?", rows) == (
        "TOR"
    )


def test_the_row_its_own_cells_name_wins_over_rows_the_lead_in_names() -> None:
    head = ["Project name", "Compression ratio"]
    lead = "Projects: Google Analytics, Google Base and Google Earth keep tables here."
    rows = [
        _row([name, ratio], head, lead)
        for name, ratio in (
            ("Google Analytics", "29%"),
            ("Google Base", "31%"),
            ("Google Earth", "64%"),
        )
    ]
    assert _cell("What is the compression ratio of the Google Base table?", rows) == "31%"


def test_a_question_word_another_found_document_holds_rules_the_row_out() -> None:
    rows = [_row(["Rollout batch size", "20 instruments"], ["Setting", "Default"])]
    q = "What is the default batch size of the export plugin?"
    elsewhere = frozenset(tokenize("export plugin"))
    assert select_cell(analyse(q), rows, elsewhere) is None


def test_two_different_cells_that_tie_are_ambiguous() -> None:
    head = ["Name", "Score"]
    rows = [_row(["Red team", "12"], head), _row(["Red team", "19"], head)]
    assert _cell("What is the score of the red team?", rows) is None


def test_rows_without_a_header_mapping_give_nothing() -> None:
    assert _cell("What is the late fee in the 2016 edition?", []) is None


# -- end to end: a comparison table in a PDF (columns = editions) ----------------------

X = [72, 250, 330, 410]


def _editions_pdf() -> bytes:
    runs = [Run(72, 740, "Port dues schedule", 14, bold=True)]
    runs += [Run(72, 700, "Charge", 9)]
    runs += [
        Run(x, 700, f"{year} edition", 9) for x, year in zip(X[1:], (2013, 2016, 2019), strict=True)
    ]
    data = [("Berth charge", 310, 345, 390), ("Pilotage charge", 1200, 1260, 1330)]
    data += [("Mooring charge", 75, 82, 91), ("Waste charge", 19, 23, 27)]
    for n, (name, *values) in enumerate(data):
        y = 688 - 12 * n
        runs.append(Run(72, y, name, 9))
        runs += [Run(x, y, f"{v:,}", 9) for x, v in zip(X[1:], values, strict=True)]
    return text_pdf([runs])


@pytest.fixture
def port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "port-dues.pdf").write_bytes(_editions_pdf())
    (corpus / "notes.md").write_text(
        "# Harbour notes\n\nThe harbour office publishes a schedule of port dues each "
        "edition; pilots board at the outer buoy.\n",
        "utf-8",
    )
    with Home.open(tmp_path / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h


def test_a_comparison_table_in_a_pdf_answers_the_asked_editions_cell(port: Home) -> None:
    kb = port.kb()
    ans = kb.ask("What is the mooring charge in the 2016 edition of the port dues schedule?")
    assert ans.outcome == "answered"
    first = ans.answer.splitlines()[0]
    assert "2016 edition: 82" in first and "91" not in first and "75" not in first
    cite = ans.citations[0]
    assert cite.path == "port-dues.pdf" and cite.excerpt.startswith("Mooring charge")
    assert ans.sufficiency.reason_texts[0].startswith("table_cell:")


def test_an_edition_the_pdf_table_lacks_is_not_answered_from_another(port: Home) -> None:
    ans = port.kb().ask("What is the mooring charge in the 2022 edition of the port dues?")
    assert not ans.answer.startswith("Mooring charge, 2022")
    assert "table_cell" not in " ".join(ans.sufficiency.reason_texts)


def test_a_row_whose_quotation_fails_review_leaves_the_question_to_the_composers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row holding raw markup cannot be quoted (the release review drops it), so the cell
    step stands aside instead of refusing: the question is answered as without the step,
    and the markup is never stated as the answer's own text."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "berths.csv").write_text(
        "Pier,Vessel,Cargo\nPier 3,Orca,grain\n"
        'Pier 7,"<img src=x onerror=alert(1)>",liquefied gas for the harbor\n'
        "Pier 9,Tern,timber\n",
        "utf-8",
    )
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([corpus]).ok
        ans = kb.ask("Which pier takes liquefied gas for the harbor?")
    assert ans.outcome == "answered", ans.sufficiency
    assert ans.citations and ans.citations[0].path == "berths.csv"
    assert "Pier 7" in ans.citations[0].excerpt
    assert not any(r.startswith("table_cell:") for r in ans.sufficiency.reason_texts)
