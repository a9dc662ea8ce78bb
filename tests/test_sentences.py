"""Sentence units with exact offsets; display cleaning."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.answer.clean import clean_sentence
from citewise.evidence.sentences import Span, split_sentences


def texts(spans: list[Span]) -> list[str]:
    return [s.text for s in spans]


def test_english_sentences_split_at_terminal_punctuation() -> None:
    assert texts(split_sentences("Sync runs hourly. It retries! Why? Because.")) == [
        "Sync runs hourly.",
        "It retries!",
        "Why?",
        "Because.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Use a format, e.g. JSON or YAML.",
        "Pick one, i.e. the default.",
        "Install v2.4.1 before upgrading.",
        "The tolerance is 0.10 mm at 3.5 V.",
        "Ask Dr. Smith about it.",
        "Files, configs, etc. are kept.",
        "Written by J. Smith in 2024.",
        "The U.S. office owns it.",
    ],
)
def test_abbreviations_and_dotted_numbers_do_not_split(text: str) -> None:
    assert texts(split_sentences(text)) == [text]


def test_chinese_sentences_split_after_full_width_terminals() -> None:
    assert texts(split_sentences("同步服务已启用。重试上限为3次！是吗？")) == [
        "同步服务已启用。",
        "重试上限为3次！",
        "是吗？",
    ]


def test_chinese_semicolon_is_not_a_boundary() -> None:
    assert texts(split_sentences("端口为8443；协议为HTTP。")) == ["端口为8443；协议为HTTP。"]


def test_list_items_are_units_with_continuations() -> None:
    text = "- Retry limit: 3. Really.\n  continued line\n- Port 8443\n1. Step one.\n2) Step two"
    spans = split_sentences(text)
    assert texts(spans) == [
        "- Retry limit: 3. Really.\n  continued line",
        "- Port 8443",
        "1. Step one.",
        "2) Step two",
    ]
    assert {s.kind for s in spans} == {"list_item"}


def test_table_rows_are_units_and_delimiter_rows_are_skipped() -> None:
    text = "| Key | Default |\n|:----|------:|\n| retry | 3 |"
    spans = split_sentences(text)
    assert texts(spans) == ["| Key | Default |", "| retry | 3 |"]
    assert [s.kind for s in spans] == ["table_row", "table_row"]


def test_heading_is_a_unit_and_paragraphs_break_at_blank_lines() -> None:
    spans = split_sentences("# Staging\nPort is 9443\n\nNext para")
    assert texts(spans) == ["# Staging", "Port is 9443", "Next para"]
    assert spans[0].kind == "heading"


def test_offsets_are_shifted_by_base_offset() -> None:
    doc = "xxxxx" + "First one. Second one."
    spans = split_sentences(doc[5:], base_offset=5)
    assert [(s.start, s.end) for s in spans] == [(5, 15), (16, 27)]
    assert all(doc[s.start : s.end] == s.text for s in spans)


def test_lowercase_continuation_is_not_a_new_sentence() -> None:
    assert len(split_sentences("See the docs. then continue.")) == 1


def test_empty_and_blank_text() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n\n \t") == []


# blocks=False / clauses=True: the evidence stage's direct-support pieces of one node.


def test_without_blocks_a_list_item_is_split_into_sentences_keeping_its_marker() -> None:
    text = "1. Install the agent. Then restart it."
    assert texts(split_sentences(text)) == [text]
    pieces = split_sentences(text, blocks=False)
    assert texts(pieces) == ["1. Install the agent.", "Then restart it."]
    assert {p.kind for p in pieces} == {"sentence"}


def test_without_blocks_inline_step_numbers_stay_with_their_sentence() -> None:
    text = "Steps: 1. Stop sync. 2. Rotate the key."
    assert texts(split_sentences(text, blocks=False)) == [
        "Steps: 1.",
        "Stop sync.",
        "2. Rotate the key.",
    ]
    assert texts(split_sentences(text))[-2:] == ["2.", "Rotate the key."]


def test_without_blocks_table_rows_and_headings_are_prose() -> None:
    assert [p.kind for p in split_sentences("| a | b |", blocks=False)] == ["sentence"]
    assert texts(split_sentences("# Title\nBody text", blocks=False)) == ["# Title\nBody text"]


def test_clauses_end_at_chinese_semicolon_and_every_exclamation_or_question() -> None:
    assert texts(split_sentences("端口为8443；协议为HTTP。", clauses=True)) == [
        "端口为8443；",
        "协议为HTTP。",
    ]
    assert texts(split_sentences("Is it on? yes it is.")) == ["Is it on? yes it is."]
    assert texts(split_sentences("Is it on? yes it is.", clauses=True)) == [
        "Is it on?",
        "yes it is.",
    ]
    assert texts(split_sentences("同步已启用!重试3次", clauses=True)) == ["同步已启用!", "重试3次"]


def test_pieces_keep_exact_offsets() -> None:
    doc = "xx" + "1. Install it. Then run it；done"
    pieces = split_sentences(doc[2:], 2, blocks=False, clauses=True)
    assert all(doc[p.start : p.end] == p.text for p in pieces)
    assert texts(pieces) == ["1. Install it.", "Then run it；", "done"]


_ALPHABET = st.sampled_from(
    [*"abcAB xyz.!?。！？,;:|-*#>\n\t 12v", "e.g.", "i.e.", "v2.4.1", "同步", "- ", "1. "]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=60).map("".join), st.integers(0, 1000), st.booleans())
def test_spans_slice_the_text_exactly(text: str, base: int, clauses: bool) -> None:
    spans = split_sentences(text, base_offset=base, clauses=clauses)
    prev_end = base
    covered: set[int] = set()
    for s in spans:
        assert text[s.start - base : s.end - base] == s.text
        assert s.text and s.text == s.text.strip()
        assert s.start >= prev_end
        prev_end = s.end
        covered.update(range(s.start - base, s.end - base))
    # Every non-whitespace character is in a span, except on table delimiter rows.
    pos = 0
    for line in text.splitlines(keepends=True):
        is_delim = bool(re.fullmatch(r"[ \t]*\|?[ \t:\-|]*\|?[ \t]*", line.rstrip("\r\n")))
        for k, ch in enumerate(line):
            if not ch.isspace() and not (is_delim and "-" in line):
                assert pos + k in covered, (text, pos + k)
        pos += len(line)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Prerequisite: install Python 3.11.", "install Python 3.11."),
        ("Note: the port is 8443.", "the port is 8443."),
        ("**Note:** the port is 8443.", "the port is 8443."),
        ("> Tip: use JSON.", "use JSON."),
        ("- Retry limit is **3**.", "Retry limit is 3."),
        ("* item", "item"),
        ("1. Run `citewise add`.", "1. Run `citewise add`."),
        ("Step 2: restart the service.", "Step 2: restart the service."),
        ("## Staging", "Staging"),
        ("| retry | 3 |", "retry | 3"),
        ("注意：端口为8443。", "端口为8443。"),
        ("> [!WARNING]\n> Do not edit.", "Do not edit."),
        ("A  line\n  wrapped", "A line wrapped"),
        # XML inline elements leave no space inside a phrase (RegML, 2026-12-07)
        (
            'the <ref target="1002-2-e">applicant</ref>\'s right (other than '
            "<ref>trade credit</ref>) and &#8220;<ref>you owe</ref>&#8221;.",
            "the applicant's right (other than trade credit) and “you owe”.",
        ),
        ("<content>Bonuses.</content> <content>A gift</content>", "Bonuses. A gift"),
        ("plain (text ) stays", "plain (text ) stays"),
    ],
)
def test_clean_sentence(raw: str, clean: str) -> None:
    assert clean_sentence(raw) == clean


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # Wikipedia's editorial marker after the full stop ends the sentence with it
            "The rebellions were suppressed.[citation needed] A group of Huguenots "
            "arrived in Brazil in 1555.",
            [
                "The rebellions were suppressed.[citation needed]",
                "A group of Huguenots arrived in Brazil in 1555.",
            ],
        ),
        (
            "It was Huguenot.[12] In 1705, Amsterdam grew.",
            ["It was Huguenot.[12]", "In 1705, Amsterdam grew."],
        ),
        (
            "Fled by 1700[citation needed]. Then more.",
            ["Fled by 1700[citation needed].", "Then more."],
        ),
        # a Markdown link or a lower-case word after the marker goes on
        ("See the guide.[docs](http://x) For more.", ["See the guide.[docs](http://x) For more."]),
        ("Done.[a] and so on.", ["Done.[a] and so on."]),
    ],
)
def test_editorial_markers_after_a_full_stop_end_the_sentence(
    text: str, expected: list[str]
) -> None:
    spans = split_sentences(text)
    assert texts(spans) == expected
    assert all(text[s.start : s.end] == s.text for s in spans)


def test_held_terms_find_a_bare_name_inside_a_qualified_one() -> None:
    from citewise.evidence.sentences import held_terms

    text = "Using ``Response.iter_content`` is preferred; see requests.Session.send."
    assert held_terms(["iter_content", "session.send", "send", "raw"], text) == [
        "iter_content",
        "session.send",
        "send",
    ]
