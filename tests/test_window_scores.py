"""A pronoun sentence's window scores by both its sentences (answer/ranking.py, issue 15):
"He came back to Lahore in 1908" answers "What year did Iqbal return to Lahore?" with the
sentence before it, which names Iqbal, beside another sentence that names both words."""

from __future__ import annotations

from citewise.answer.compose import compose
from citewise.answer.units import document_units
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
        "What year did Iqbal return to Lahore?", "generic", [frag], units_of=lambda f: units
    )
    quoted = " ".join(c.clean for c in chosen)
    assert "He came back to Lahore in 1908." in quoted
    window = next(c for c in chosen if "1908" in c.clean)
    assert window.kind == "window" and window.clean.startswith("While studying law")
