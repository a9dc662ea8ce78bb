"""Regulation XML structure (issue 34): part > subpart > section > paragraph read the same
way from GPO CFR XML and CFPB RegML, on a small fixture in each schema.

What each fixture holds that the older ``gpo_like``/``regml_like`` ones do not: a part's
table of contents (GPO ``CONTENTS``, RegML ``tableOfContents``), a part's Authority note
with its own heading, a subpart level, a definitions section and a part number with a
letter suffix (``9203b``), as 14 CFR's parts 1203a/1203b have."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import IngestConfig
from citewise.core.records import ParsedDocument
from citewise.ingest.parse import parse_document
from citewise.recall.identifiers import clause_refs

FIXTURES = Path(__file__).parent / "fixtures" / "parse"


def _parse(name: str) -> ParsedDocument:
    raw = (FIXTURES / name).read_bytes()
    return parse_document(raw, name=name, kb="kb", doc_path=name, config=IngestConfig())


@pytest.mark.parametrize("name", ["gpo_parts.xml", "regml_parts.xml"])
def test_section_titles_are_their_own_headings(name: str) -> None:
    doc = _parse(name)
    for n in doc.nodes:
        assert doc.text[n.char_start : n.char_end] == n.text  # locators stay exact
    renewal = next(n for n in doc.nodes if n.kind == "section" and n.clause_path == "9203b.102")
    # no contents list, no "Authority:" heading in any title along the path
    assert renewal.heading_path[-2:] == ("Subpart A—General", "§ 9203b.102 Renewal.")
    assert all("Authority" not in h and "Definitions" not in h for h in renewal.heading_path)
    # a table of contents makes no section node of its own
    subparts = [
        n
        for n in doc.nodes
        if n.kind == "section" and n.heading_path[-1:] == ("Subpart A—General",)
    ]
    assert len(subparts) == 1


@pytest.mark.parametrize("name", ["gpo_parts.xml", "regml_parts.xml"])
def test_paragraph_markers_and_lettered_parts_make_clause_paths(name: str) -> None:
    doc = _parse(name)
    paths = {n.clause_path for n in doc.nodes if n.kind == "paragraph"}
    assert {"9203b.102(a)", "9203b.102(a)(1)", "9203b.102(b)"} <= paths
    defs = [n for n in doc.nodes if n.kind == "paragraph" and "Berth" in n.search_text]
    # a definition without a marker still belongs to its section, not to the bare part
    assert defs and all((d.clause_path or "").startswith("9203b.101") for d in defs)


def test_gpo_subparagraph_levels() -> None:
    doc = _parse("gpo_parts.xml")
    item = next(n for n in doc.nodes if n.search_text.startswith("(i) A late application"))
    assert item.clause_path == "9203b.102(a)(1)(i)"


def test_question_naming_a_lettered_part_section() -> None:
    assert clause_refs("What does § 1203b.103(a) say?")[:2] == ["1203b.103(a)", "1203b.103"]
    assert clause_refs("Under 14 CFR 1203a.104, who may remove a person?")[0] == "1203a.104"
