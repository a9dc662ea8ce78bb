"""Sentence pairs as answer units (answer/units.py, answer/ranking.py, issue 15).

A pronoun sentence's window scores by both its sentences: "He came back to Lahore in 1908"
answers "What year did Iqbal return to Lahore?" with the sentence before it, which names
Iqbal, beside another sentence that names both words. A sentence's sequel (it and the
sentence after it) carries the value the first one leads to; two pairs never quote one
sentence twice."""

from __future__ import annotations

from citewise.analysis.question import analyse
from citewise.answer.candidate import Candidate
from citewise.answer.composition.compose import compose
from citewise.answer.units.structure import document_units
from citewise.config import IngestConfig
from citewise.evidence.models import Fragment
from citewise.ingest.parse import parse_document

_TEXT = (
    "# Islamism\n\nWhile studying law in England, Iqbal became a member of the London "
    "branch of the Muslim League. He came back to Lahore in 1908. He divided his time "
    "between law and poetry. He remained active in the League.\n\nSir Muhammad Iqbal was "
    "elected president of the Muslim League in 1930 at its session in Allahabad as well as "
    "for the session in Lahore in 1932.\n"
)


def test_the_referent_sentence_counts_for_the_pronoun_sentence() -> None:
    doc = parse_document(
        _TEXT.encode(), name="i.md", kb="k", doc_path="i.md", config=IngestConfig()
    )
    units = document_units(list(doc.nodes))
    start = _TEXT.index("While")
    frag = Fragment(
        "direct_support", "d1", "i.md", 1, 1, ("n1",), 3, 7, start, len(_TEXT),
        ("Islamism",), _TEXT[start:], 90, False, "c1",
    )  # fmt: skip
    chosen = compose(
        analyse("What year did Iqbal return to Lahore?"),
        "generic",
        [frag],
        units_of=lambda f: units,
    )
    quoted = " ".join(c.clean for c in chosen)
    assert "He came back to Lahore in 1908." in quoted
    window = next(c for c in chosen if "1908" in c.clean)
    assert window.kind == "window" and window.clean.startswith("While studying law")


_THESIS = (
    "# Complexity\n\nCobham studied feasible computation. The complexity class P is often "
    "seen as a mathematical abstraction modeling those computational tasks that admit an "
    "efficient algorithm. This hypothesis is called the Cobham-Edmonds thesis. The class NP "
    "contains many problems that people would like to solve efficiently.\n"
)


def _compose(text: str, question: str) -> list[Candidate]:
    doc = parse_document(text.encode(), name="t.md", kb="k", doc_path="t.md", config=IngestConfig())
    units = document_units(list(doc.nodes))
    start = text.index("\n\n") + 2
    frag = Fragment(
        "direct_support", "d1", "t.md", 1, 1, ("n1",), 3, 3, start, len(text),
        ("Complexity",), text[start:], 60, False, "c1",
    )  # fmt: skip
    return compose(analyse(question), "generic", [frag], units_of=lambda f: units)


def test_a_sentence_is_offered_with_the_sentence_after_it() -> None:
    doc = parse_document(
        _THESIS.encode(), name="t.md", kb="k", doc_path="t.md", config=IngestConfig()
    )
    sequels = [u for u in document_units(list(doc.nodes)) if u.kind == "sequel"]
    assert len(sequels) == 3  # four sentences: three pairs
    assert all(_THESIS[u.start : u.end] == u.text for u in sequels)  # exact spans
    short = "# A\n\nOne sentence here. Another one there.\n"
    doc = parse_document(
        short.encode(), name="s.md", kb="k", doc_path="s.md", config=IngestConfig()
    )
    assert not [u for u in document_units(list(doc.nodes)) if u.kind == "sequel"]  # a para


def test_the_value_in_the_next_sentence_is_quoted_once() -> None:
    q = "What hypothesis says P is a mathematical abstraction of efficient algorithms?"
    chosen = _compose(_THESIS, q)
    quoted = " ".join(c.clean for c in chosen)
    assert "Cobham-Edmonds thesis" in quoted
    assert quoted.count("This hypothesis is called") == 1  # overlapping pairs: one kept


def test_a_unit_a_chosen_pair_quotes_takes_no_place() -> None:
    from dataclasses import replace

    from citewise.answer.candidate import diverse

    chosen = _compose(_THESIS, "What is the class P often seen as?")
    pair = next(c for c in chosen if c.kind == "sequel")
    first = pair.clean.split(". ")[0] + "."
    alone = replace(pair, span=replace(pair.span, end=pair.span.start + len(first)), clean=first)
    alone = replace(alone, kind="sentence")
    other = replace(pair, span=replace(pair.span, start=0, end=5), clean="Cobham studied.")
    assert diverse([pair, alone, other], 2) == [pair, other]
