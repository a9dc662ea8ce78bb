"""The meaning check's reading of clause-structured text (answer/clause_reading.py):
a paragraph of a regulation is read under its part's title and its section's subject.

Headings come from real parses of a regulation in each XML schema (GPO CFR XML, CFPB
RegML) and of a Markdown regulation; a manual's numbered headings are not the class."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.answer.candidate import Candidate
from citewise.answer.clause_reading import (
    clause_read,
    clause_structured,
    heading_subject,
    scope_title,
)
from citewise.config import IngestConfig
from citewise.core.records import ParsedDocument
from citewise.evidence.models import Fragment
from citewise.evidence.sentences import Span
from citewise.ingest.parse import parse_document

FIXTURES = Path(__file__).parent / "fixtures" / "parse"


def _parse(name: str) -> ParsedDocument:
    raw = (FIXTURES / name).read_bytes()
    return parse_document(raw, name=name, kb="kb", doc_path=name, config=IngestConfig())


def _heading_path(name: str, starts: str) -> tuple[str, ...]:
    doc = _parse(name)
    node = next(n for n in doc.nodes if n.kind == "paragraph" and starts in n.search_text)
    return node.heading_path


def _fragment(
    heading_path: tuple[str, ...], regulation: dict[str, object] | None = None
) -> Fragment:
    text = "A permit holder must apply for renewal within 30 days before expiry."
    return Fragment(
        "direct_support", "d", "r.xml", 1, 1, ("n",), 1, 1, 0, len(text), heading_path, text,
        10, False, f"n:0-{len(text)}", regulation=regulation,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("heading", "subject"),
    [
        ("§ 1212.400 Appeals.", "Appeals"),
        ("PART 1212—PRIVACY ACT—NASA REGULATIONS", "PRIVACY ACT—NASA REGULATIONS"),
        ("Subpart D—Procedures and Time Limits", "Procedures and Time Limits"),
        ("1206.700 How to submit an appeal.", "How to submit an appeal"),
        ("Part 9001 — Example Regulation", "Example Regulation"),
        ("Appendix A to Part 1016—Model Forms", "Model Forms"),
        ("§ 9203b.102", ""),
        ("Quickstart", "Quickstart"),
    ],
)
def test_heading_subject_drops_the_number(heading: str, subject: str) -> None:
    assert heading_subject(heading) == subject


def test_scope_title_from_each_schema() -> None:
    gpo = _heading_path("gpo_parts.xml", "apply for renewal")
    assert scope_title(gpo) == "MOORING PERMITS: Renewal"
    regml = _heading_path("regml_parts.xml", "apply for renewal")
    assert scope_title(regml) == "General: Renewal"  # RegML's part has no title element
    md = _heading_path("cfr_like.md", "Discouragement")
    assert scope_title(md) == "Example Regulation: General rules"


def test_clause_structured_is_the_class_of_numbered_clauses() -> None:
    assert clause_structured(_fragment(_heading_path("gpo_parts.xml", "apply for renewal")))
    assert clause_structured(_fragment(_heading_path("cfr_like.md", "Discouragement")))
    assert clause_structured(_fragment(("Rules",), {"clause": "9203b.102(a)"}))
    # a manual's numbered headings and an edition record without a clause are not it
    assert not clause_structured(_fragment(("Guide", "1.2 Install", "Part of the setup")))
    assert not clause_structured(_fragment(("Guide",), {"clause": None}))


def test_clause_read_puts_the_scope_first() -> None:
    frag = _fragment(("PART 9203b—MOORING PERMITS", "Subpart A—General", "§ 9203b.102 Renewal."))
    text = frag.text
    cand = Candidate(frag, Span(0, len(text), text), text, 1.0, (0,))
    assert clause_read(cand) == f"MOORING PERMITS: Renewal. {text}"
    plain = _fragment(("Guide", "Install"))
    assert clause_read(Candidate(plain, Span(0, len(text), text), text, 1.0, (0,))) is None


@pytest.mark.model
@pytest.mark.parametrize("name", ["gpo_parts.xml", "regml_parts.xml"])
def test_clause_read_answers_a_question_naming_the_regulation(name: str) -> None:
    from citewise.recall.meaning_model import meaning_model

    model = meaning_model()
    if model is None:
        pytest.skip("the shipped cross-encoder is not installed")
    doc = _parse(name)
    node = next(n for n in doc.nodes if n.kind == "paragraph" and "decides" in n.search_text)
    frag = _fragment(node.heading_path)
    text = node.search_text
    cand = Candidate(frag, Span(0, len(text), text), text, 1.0, (0,))
    read = clause_read(cand)
    assert read is not None
    q = "Under the mooring permit renewal rules, how long does the harbour master take?"
    alone, in_scope = model.score(q, [text], timeout=30)[0], model.score(q, [read], timeout=30)[0]
    assert in_scope > alone
