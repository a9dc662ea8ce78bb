"""Span-tight PDF boxes (issue 36): a citation of part of a line is boxed around exactly
its characters, measured against PDFium's own character boxes (tests/pdf_boxes.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citewise.config import IngestConfig
from citewise.core import char_edges
from citewise.core.locator import locate
from citewise.core.records import ParsedDocument
from citewise.ingest.parse import parse_document
from tests.pdf_boxes import cited_chars, tightness
from tests.pdf_build import Run, text_pdf

LINES = [
    "Harbor pilots board inbound ships at the outer buoy. Tugs meet them",
    "at the breakwater and the pilot hands over at the berth. Outbound",
    "ships take the pilot from the berth to the buoy in the same way.",
]


def _doc(raw: bytes) -> ParsedDocument:
    return parse_document(raw, name="a.pdf", kb="kb", doc_path="a.pdf", config=IngestConfig())


def _pdf() -> bytes:
    return text_pdf([[Run(72, 700 - 14 * i, t) for i, t in enumerate(LINES)]])


def test_a_span_in_the_middle_of_a_line_is_boxed_around_its_characters_only() -> None:
    raw = _pdf()
    doc = _doc(raw)
    cited = "Tugs meet them\nat the breakwater"
    start = doc.text.index(cited)
    loc = locate(doc.nodes, start, start + len(cited))
    assert loc is not None and len(loc["boxes"]) == 2
    first, second = loc["boxes"]
    para = next(n for n in doc.nodes if n.kind == "paragraph")
    line1, line2 = (b[2:6] for b in para.attrs["line_boxes"][:2])
    step = 1 / char_edges.SCALE  # edges are kept rounded outwards to this
    assert first[0] > line1[0] + 200 and abs(first[2] - line1[2]) <= step  # after "buoy. "
    assert abs(second[0] - line2[0]) <= step and second[2] < line2[0] + 120  # to "breakwater"
    chars = cited_chars(raw, 1, cited)
    assert chars is not None
    tight = tightness(chars, loc["boxes"])
    assert tight.covered > 0.99 and tight.outside < 0.10
    # the whole lines (what a citation showed before) mark far more than the span
    whole = tightness(chars, [line1, line2])
    assert whole.outside > 0.5


def test_whole_lines_keep_the_line_boxes_and_blanks_mark_nothing_extra() -> None:
    doc = _doc(_pdf())
    para = next(n for n in doc.nodes if n.kind == "paragraph")
    lines = para.attrs["line_boxes"]
    s, e = lines[1][0], lines[1][1]
    assert locate(doc.nodes, s, e)["boxes"] == [lines[1][2:6]]  # type: ignore[index]
    # a range that starts with the blank after a full stop is boxed from the next word
    at = doc.text.index(" Tugs")
    loc = locate(doc.nodes, at, at + 5)
    alone = locate(doc.nodes, at + 1, at + 5)
    assert loc is not None and alone is not None and loc["boxes"] == alone["boxes"]


def test_nodes_stored_without_edges_fall_back_to_whole_lines() -> None:
    doc = _doc(_pdf())
    for n in doc.nodes:
        n.attrs.pop("line_x", None)
    at = doc.text.index("Tugs")
    para = next(n for n in doc.nodes if n.kind == "paragraph")
    assert locate(doc.nodes, at, at + 4)["boxes"] == [para.attrs["line_boxes"][0][2:6]]  # type: ignore[index]


def test_a_damaged_edge_code_is_not_trusted() -> None:
    lines = [[0, 10, 10.0, 5.0, 110.0, 15.0]]
    text = "abcdefghij"
    assert char_edges.cited_boxes(lines, ["1,x"], text, 0, 2, 4) == [[10.0, 5.0, 110.0, 15.0]]
    assert char_edges.cited_boxes(lines, ["4,4"], text, 0, 2, 4) == [[10.0, 5.0, 110.0, 15.0]]
    edges = char_edges.encode([(10 + 10 * i, 20 + 10 * i) for i in range(10)])
    assert char_edges.cited_boxes(lines, [edges], text, 0, 2, 4) == [[30.0, 5.0, 50.0, 15.0]]


_EDGE = st.tuples(st.floats(0, 2000), st.floats(0, 40)).map(lambda t: (t[0], t[0] + t[1]))


@given(st.lists(st.one_of(st.none(), _EDGE), max_size=60))
def test_edges_round_trip_and_always_contain_the_glyph(edges: list) -> None:  # type: ignore[type-arg]
    decoded = char_edges.decode(char_edges.encode(edges))
    assert len(decoded) == len(edges)
    for got, want in zip(decoded, edges, strict=True):
        assert got[0] <= got[1]
        if want is not None:
            step = 1 / char_edges.SCALE
            assert want[0] - step - 1e-9 <= got[0] <= want[0] + 1e-9
            assert want[1] - 1e-9 <= got[1] <= want[1] + step + 1e-9


def test_a_line_read_over_two_rows_is_boxed_row_by_row() -> None:
    # PDFium may read two printed rows as one line (interleaved columns): the line's
    # code then keeps each character's bottom and top too
    text = "abc def"
    xs = [(100 + 10 * i, 108 + 10 * i) for i in range(3)] + [(0, 0)]
    xs += [(20 + 10 * i, 28 + 10 * i) for i in range(3)]
    ys = [(700.0, 710.0)] * 3 + [(700.0, 700.0)] + [(680.0, 690.0)] * 3
    code = char_edges.line_code(xs, ys)  # type: ignore[arg-type]
    line = [[0, 7, 20.0, 680.0, 128.0, 710.0]]
    boxes = char_edges.cited_boxes(line, [code], text, 0, 1, 6)
    assert boxes == [[110.0, 700.0, 128.0, 710.0], [20.0, 680.0, 38.0, 690.0]]
