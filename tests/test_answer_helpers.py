"""Answer-stage helpers shared by the extractive pipeline and the LLM route."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.citations import cite_claims
from citewise.answer.composition.compose import compose, fragment_spans
from citewise.answer.models import new_trace_id
from citewise.core.records import sha256_text
from citewise.evidence import assemble
from citewise.evidence.models import TRUNCATION_MARKER, Fragment
from citewise.evidence.sentences import split_sentences
from citewise.kb import KnowledgeBase
from tests.conftest import one_file_kb

GUIDE = (
    "# Operations Guide\n\n## Key management\n\n"
    "The zebracorn ledger rotates its signing keys every ninety days. "
    "Rotation is automatic and needs no downtime.\n\n"
    "Signing keys are stored in the hardware module.\n"
)


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    return one_file_kb(tmp_path, monkeypatch, GUIDE)


def _fragment(
    source: str, text: str, *, head_end: int | None = None, tail_start: int | None = None
) -> Fragment:
    truncated = head_end is not None
    return Fragment(
        "direct_support",
        "d",
        "p.md",
        1,
        1,
        ("n",),
        1,
        1,
        2,
        len(source),
        (),
        text,
        10,
        truncated,
        f"n:2-{len(source)}",
        head_end,
        tail_start,
    )


def test_new_trace_id_is_fresh_and_well_formed() -> None:
    a, b = new_trace_id(), new_trace_id()
    assert re.fullmatch(r"t_[0-9a-f]{24}", a)
    assert a != b


def test_fragment_spans_of_a_whole_fragment_are_its_sentence_units() -> None:
    source = "xx" + "First one. Second one."
    frag = _fragment(source, source[2:])
    assert fragment_spans(frag) == split_sentences(frag.text, 2)
    assert [s.text for s in fragment_spans(frag)] == ["First one.", "Second one."]


def test_fragment_spans_of_a_truncated_fragment_skip_the_marker() -> None:
    source = "xx" + "Head one. Head two. Middle is cut out. Tail one. Tail two."
    head_end = source.index(" Middle")
    tail_start = source.index("Tail one")
    text = source[2:head_end] + TRUNCATION_MARKER + source[tail_start:]
    spans = fragment_spans(_fragment(source, text, head_end=head_end, tail_start=tail_start))
    assert [s.text for s in spans] == ["Head one.", "Head two.", "Tail one.", "Tail two."]
    assert all(source[s.start : s.end] == s.text for s in spans)


def test_cite_claims_numbers_exact_resolvable_citations_once_per_span(kb: KnowledgeBase) -> None:
    question = "How often does the zebracorn ledger rotate its signing keys?"
    pack = assemble(kb.context, question)
    chosen = compose(analyse(question), "generic", list(pack.fragments))
    assert chosen
    citations, claims = cite_claims(kb.context, [*chosen, chosen[0]], [])
    assert len(claims) == len(chosen) + 1
    assert claims[-1].citations == claims[0].citations  # the same span is cited once
    assert [c.number for c in citations] == list(range(1, len(citations) + 1))
    assert [claim.text for claim in claims[:-1]] == [c.clean for c in chosen]
    for c in citations:
        text = kb.store.get_document_text(kb.name, c.doc_id, c.version_id)
        assert text[c.char_start : c.char_end] == c.excerpt
        assert c.sha256 == sha256_text(c.excerpt)
        resolved = kb.resolve(c.id)
        assert (resolved.char_start, resolved.char_end) == (c.char_start, c.char_end)
        assert (resolved.line_start, resolved.line_end) == (c.line_start, c.line_end)
