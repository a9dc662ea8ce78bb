"""PDF section paths (issue 36): from the outline (bookmarks) when it names the headings,
else from text printed as a heading (larger, or bold at the body size), so a PDF
citation names its section."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citewise.config import IngestConfig
from citewise.core.records import ParsedDocument
from citewise.ingest import pdf_headings as heads
from citewise.ingest.parse import parse_document
from tests.pdf_build import Run, text_pdf

BODY = [
    "Pilots board inbound ships at the outer buoy and take them to the berth, where",
    "the mooring crew waits with lines ready for the bow and the stern of the ship.",
]
RULES = [
    "A ship over two hundred metres long takes two pilots for the whole passage",
    "from the buoy to the berth, and a tug on each side from the breakwater inward.",
]


def _doc(raw: bytes) -> ParsedDocument:
    return parse_document(raw, name="h.pdf", kb="kb", doc_path="h.pdf", config=IngestConfig())


def _page(title: str, sub: str, body: list[str], top: float = 740) -> list[Run]:
    runs = [Run(72, top, title, 18, bold=True), Run(72, top - 40, sub, 11, bold=True)]
    runs += [Run(72, top - 56 - 14 * i, t) for i, t in enumerate(body)]
    return runs


def _section_of(doc: ParsedDocument, words: str) -> tuple[str, ...]:
    node = next(n for n in doc.nodes if n.kind == "paragraph" and words in n.text)
    return node.heading_path


def test_headings_printed_larger_or_bold_give_the_section_path() -> None:
    raw = text_pdf(
        [
            _page("1 Harbour pilotage", "1.1 Boarding", BODY),
            _page("2 Large ships", "2.1 Two pilots", RULES),
        ]
    )
    doc = _doc(raw)
    assert _section_of(doc, "mooring crew") == ("1 Harbour pilotage", "1.1 Boarding")
    assert _section_of(doc, "two pilots for the whole") == ("2 Large ships", "2.1 Two pilots")
    # body lines are never headings
    titles = [n.heading_path[-1] for n in doc.nodes if n.kind == "section"]
    assert titles == ["1 Harbour pilotage", "1.1 Boarding", "2 Large ships", "2.1 Two pilots"]


def test_a_bold_heading_right_above_its_text_is_split_from_it() -> None:
    runs = [Run(72, 700, "Berthing rules", 11, bold=True)]
    runs += [Run(72, 686 - 14 * i, t) for i, t in enumerate(BODY + RULES)]
    doc = _doc(text_pdf([runs]))
    assert _section_of(doc, "mooring crew") == ("Berthing rules",)
    para = next(n for n in doc.nodes if n.kind == "paragraph" and "mooring crew" in n.text)
    assert not para.text.startswith("Berthing")


def test_the_outline_names_the_sections_when_it_has_them() -> None:
    pages = [
        _page("Harbour pilotage", "Boarding", BODY),
        _page("Large ships", "Two pilots", RULES),
    ]
    outline = [(1, "Harbour pilotage", 0), (2, "Boarding", 0), (1, "Large ships", 1)]
    doc = _doc(text_pdf(pages, outline))
    assert _section_of(doc, "mooring crew") == ("Harbour pilotage", "Boarding")
    # the outline has no "Two pilots": the outline decides, the printed style does not
    assert _section_of(doc, "two pilots for the whole") == ("Large ships",)


def test_running_headers_and_front_matter_are_no_sections() -> None:
    pages = []
    for n in range(4):
        runs = [Run(72, 760, f"Harbour Notes {n + 1}", 14, bold=True)]
        if n == 0:
            runs += [Run(72, 720, "Pilotage in Practice", 20, bold=True)]
            runs += [Run(72, 690, "A. Pilot and B. Master", 14), Run(72, 670, "Port Authority", 14)]
        body = (BODY + RULES)[n:] + (BODY + RULES)[:n]  # the text differs page by page
        runs += [Run(72, 640 - 14 * i, t) for i, t in enumerate(body)]
        pages.append(runs)
    doc = _doc(text_pdf(pages))
    # the title is the one section: not the running header, not the authors' lines
    sections = [n.text for n in doc.nodes if n.kind == "section"]
    assert len(sections) == 1 and sections[0].startswith("Pilotage in Practice")


def test_ocr_or_unknown_styles_are_never_headings() -> None:
    unknown = heads.Style(0.0, True, 10)
    assert not heads.is_heading("Boarding", [unknown], 11.0)
    assert not heads.is_heading("Boarding", [heads.Style(11.0, True, 8)], 0.0)


@given(
    st.lists(
        st.tuples(
            st.text(max_size=120),
            st.lists(
                st.builds(heads.Style, st.floats(0, 40), st.booleans(), st.integers(0, 80)),
                min_size=1,
                max_size=3,
            ),
        ),
        max_size=12,
    ),
    st.floats(0, 40),
)
def test_levels_are_positive_and_only_short_styled_paragraphs_are_headings(
    paras: list[tuple[str, list[heads.Style]]], body: float
) -> None:
    found = heads.find_headings(paras, body)
    for i, level in found.items():
        text, styles = paras[i]
        assert level >= 1
        assert len(styles) <= heads.MAX_LINES and len(" ".join(text.split())) <= heads.MAX_CHARS
