"""Issue 15 on real binary documents: PDF paragraphs cut inside a sentence, PDF lead-ins
with their numbered lists, and conflicts held to the evidence an answer rests on."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest

from citewise.answer.table_rows import absent_row, table_lines
from citewise.answer.units.structure import document_units
from citewise.config import IngestConfig
from citewise.evidence.sentences import split_sentences
from citewise.ingest.parse import parse_document
from citewise.ingest.pdf_layout import continues, list_runs
from citewise.kb import Home, KnowledgeBase
from tests.hostile_pdf import build

OFFICE = Path(__file__).parent / "fixtures" / "documents" / "office"


def tiny_pdf(lines: list[tuple[int, str]]) -> bytes:
    """A one-page PDF (Helvetica 11 pt) with each text line at (72, y)."""

    def esc(t: str) -> str:
        return t.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    ops = "".join(f"BT /F1 11 Tf 72 {y} Td ({esc(t)}) Tj ET\n" for y, t in lines)
    objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(ops)} >>\nstream\n{ops}endstream",
    ]
    return build([o.encode("latin-1") for o in objs])


#: A sentence cut by a wide gap (a figure), a lead-in with a numbered list whose third
#: item is wrapped ("and" on its own line), and a closing paragraph.
PAGE = [
    (720, "Boots nuts are made with three spring styles. The wing type that is"),
    (680, "the most common is made of aluminum alloy."),
    (640, "The limitations are based on the following four categories of"),
    (627, "conduct by a service provider:"),
    (600, "1. Transitory communications;"),
    (587, "2. System caching;"),
    (574, "and"),
    (561, "3. Information location tools."),
    (530, "New section 512 also includes special rules."),
]


def _units(raw: bytes) -> tuple[str, list[tuple[str, str, int, int]]]:
    doc = parse_document(raw, name="t.pdf", kb="k", doc_path="t.pdf", config=IngestConfig())
    text = doc.text
    units = document_units(list(doc.nodes))
    return text, [(u.kind, u.display, u.start, u.end) for u in units]


def test_a_pdf_sentence_cut_by_a_gap_is_one_unit_with_exact_offsets() -> None:
    text, units = _units(tiny_pdf(PAGE))
    # the gap stays in the stored text (lines and citations do not move) ...
    assert "The wing type that is\n\nthe most common" in text
    # ... but the sentence is one unit, quoted whole and cited exactly
    whole = [
        u
        for u in units
        if u[1] == "The wing type that is the most common is made of aluminum alloy."
    ]
    assert whole, units
    _, _, start, end = whole[0]
    assert text[start:end] == "The wing type that is\n\nthe most common is made of aluminum alloy."
    assert not any(u[1] == "The wing type that is" for u in units)


def test_a_pdf_lead_in_carries_the_numbered_list_it_introduces() -> None:
    text, units = _units(tiny_pdf(PAGE))
    leads = [u for u in units if u[0] == "lead"]
    assert len(leads) == 1, units
    _kind, shown, start, end = leads[0]
    assert shown.startswith("The limitations are based on the following four categories")
    for item in ("Transitory communications", "System caching", "Information location tools"):
        assert item in shown
    assert text[start:end].endswith("3. Information location tools.")
    items = [u[1] for u in units if u[0] == "item"]
    assert items == ["1. Transitory communications;", "2. System caching; and",
                     "3. Information location tools."]  # fmt: skip


def test_what_continues_a_sentence_and_what_is_a_list() -> None:
    assert continues("The wing type that is", "the most common ranges")
    assert continues("ranges up to 1 inch, the", "Rol-top ranges from")  # an open article
    assert not continues("It is made of steel.", "the next paragraph")  # a closed sentence
    assert not continues("NOTES", "below")  # a heading in capitals
    assert continues("The FAA estimates that this proposed", "AD affects 73 airplanes.")
    assert not continues("Costs of Compliance", "The FAA estimates")  # a heading
    assert not continues("Tightened nut", "Boots aircraft nut")  # a caption
    assert not continues("Flexloc nut Fiber locknut Elastic stop nut", "Elastic anchor nut")
    assert not continues("to accommodate a fiber locking collar. This", "Tightened nut")
    assert not continues("the following categories", "1. Transitory communications;")
    assert list_runs(["1. One;", "2. Two;", "and", "3. Three."]) == [(0, 1), (1, 3), (3, 4)]
    assert list_runs(["1. Introduction", "The body starts here."]) is None  # one marker
    assert list_runs(["Some prose", "1. then a number"]) is None  # no marker first


def test_only_one_nodes_blank_line_inside_a_sentence_is_stepped_over() -> None:
    node = "The wing type that is\n\nthe most common. Next one.\n\nlower case after a stop."
    got = [s.text for s in split_sentences(node, blocks=False)]
    assert got == ["The wing type that is\n\nthe most common.", "Next one.",
                   "lower case after a stop."]  # fmt: skip
    # Markdown text (blocks=True) keeps every blank line a boundary
    assert len(split_sentences("The wing type that is\n\nthe most common.")) == 2


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path_factory.mktemp("realdocs")
    shutil.copyfile(OFFICE / "stanley-cups.xlsx", corpus / "stanley-cups.xlsx")
    policy = "\n\n".join(
        f"## Rule {n}\n\nRule {n} covers the filing of trustee report number {n} each month."
        for n in range(1, 40)
    )
    (corpus / "handbook.md").write_text(
        "# Trustee handbook\n\n## Reports\n\n"
        "The reporting rule takes effect two years after the date of enactment.\n\n"
        f"## Early changes\n\n[Policy change effective October 1, 2014.]\n\n{policy}\n\n"
        "## Late changes\n\n[Policy change effective March 1, 2014.]\n",
        "utf-8",
    )
    ducks = docx.Document()
    ducks.add_heading("Food", level=1)
    ducks.add_paragraph("Here are some things a duck could eat:")
    table = ducks.add_table(rows=4, cols=2)
    for r, (food, cal) in enumerate(
        [("Food", "Calories per portion"), ("Leaves", "50"), ("Berries", "150"), ("Grain", "200")]
    ):
        table.cell(r, 0).text, table.cell(r, 1).text = food, cal
    ducks.save(str(corpus / "ducks.docx"))
    (corpus / "lake.md").write_text("# The lake\n\nFish swim in the lake all summer long.\n")
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def test_tables_of_two_sheets_answer_without_a_conflict(kb: KnowledgeBase) -> None:
    answer = kb.ask("How many Stanley Cups have the Maple Leafs won?")
    assert answer.outcome == "answered", answer.answer
    assert "13" in answer.answer
    assert answer.degradation != "conflict", answer.answer
    assert not [c for c in answer.citations if c.role == "conflict"]


def test_a_disagreement_the_answer_does_not_rest_on_is_not_reported(kb: KnowledgeBase) -> None:
    # two sections far from the evidence disagree on "policy change effective"; the
    # question shares only "effect" with them: no conflict of the asked subject
    answer = kb.ask("When does the reporting rule take effect?")
    assert answer.outcome == "answered", answer.answer
    assert "two years" in answer.answer
    assert answer.degradation != "conflict", answer.answer
    assert "Policy change" not in answer.answer


def test_a_table_without_the_asked_row_is_no_answer(kb: KnowledgeBase) -> None:
    answer = kb.ask("How many calories per portion do fish have?")
    assert answer.outcome == "insufficient_evidence", answer.answer
    assert "fish" in answer.answer  # the reason names the word it could not find
    berries = kb.ask("How many calories per portion do berries have?")
    assert berries.outcome == "answered" and "150" in berries.answer, berries.answer
    # the answer shows "Calories per portion": no reason may say calories were not found
    assert not any("calories" in r for r in berries.sufficiency.reason_texts), berries
    assert berries.degradation == "none", berries  # no degradation left without a reason


def test_absent_row_reads_table_claims_only() -> None:
    table = "Food | Calories per portion\nLeaves | 50\nBerries | 150"
    asked = [("calori", "calories"), ("portion", "portion"), ("fish", "fish")]
    assert absent_row(asked, [table]) == ("fish",)
    assert absent_row([("berri", "berries"), *asked[:2]], [table]) == ()
    assert absent_row([("mapl", "Maple"), ("cup", "Cups")], ["Maple Leafs | TOR | 13"]) == ()
    assert absent_row(asked, [table, "Fish are not on the list."]) == ()  # prose claim
    assert table_lines(table) == (["Food | Calories per portion"], table.splitlines()[1:])
    code = "```bash\n_FOO_COMPLETE=fish_source foo | source\n```"
    assert absent_row([("enabl", "enable"), ("program", "program")], [code]) == ()


@pytest.fixture(scope="module")
def designs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path_factory.mktemp("designs")
    (corpus / "designs.md").write_text(
        "# Designs\n\n## Vessel hulls\n\nThe Vessel Hull Design Protection Act creates a new "
        "form of protection for the design of vessel hulls. It protects original designs of "
        "useful articles that make them attractive. Once registered, protection lasts ten "
        "years. A design made public more than one year before the application for "
        "registration is not protected.\n",
        "utf-8",
    )
    (corpus / "studies.md").write_text(
        "# Studies\n\nThe Copyright Office is directed to conduct two joint studies with the "
        "Patent and Trademark Office on the effect of the new rules on authors.\n\n"
        "Online service providers must designate an agent to receive notices.\n",
        "utf-8",
    )
    with Home.open(tmp_path_factory.mktemp("home") / "home") as h:
        assert h.kb().add([corpus]).ok
        yield h.kb()
    mp.undo()


def test_a_how_to_without_steps_about_something_else_is_no_answer(
    designs: KnowledgeBase,
) -> None:
    # no passage gives a step, and what is cited misses part of the question ("hull"):
    # the passages are next to the question, not an answer to it
    answer = designs.ask(
        "How do I register a vessel hull design online with the Patent and Trademark Office?"
    )
    assert answer.outcome == "insufficient_evidence", answer.answer
    assert "hull" in answer.answer


def test_a_pdf_lead_in_with_its_list_is_cited_on_its_own_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "t.pdf").write_bytes(tiny_pdf(PAGE))
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([tmp_path / "c"]).ok
        answer = kb.ask(
            "Which four categories of conduct by a service provider are the limitations based on?"
        )
        assert "Information location tools" in answer.answer, answer.answer
        first = answer.citations[0]
        text = kb.store.get_document_text(kb.name, first.doc_id, first.version_id)
        for c in answer.citations:
            assert text[c.char_start : c.char_end] == c.excerpt
            # the lines are the excerpt's own, not those of the block it starts in
            assert c.line_start == text[: c.char_start].count("\n") + 1
            assert c.line_end == text[: c.char_end].count("\n") + 1
            assert c.id.endswith(f":{c.char_start}-{c.char_end}")
