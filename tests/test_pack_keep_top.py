"""The pack keeps the best unit of each top-ranked document, and identical documents
answer once (issue 34; evidence/keep_top.py).

RSE values a document by its retrieved chunks scaled by their length, so a short
document ranked second reached no segment and left the pack ("rse: no segment of this
document reached the minimum segment value")."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.core.search import Hit
from citewise.evidence import assemble
from citewise.evidence.budget import apply_budget
from citewise.evidence.keep_top import (
    TOP_DOCS_KEPT,
    copies_of,
    guaranteed_segments,
    protected_fragments,
    top_document_hits,
)
from citewise.evidence.models import Budget, Fragment, RSEParams, Segment
from citewise.evidence.rse import best_segments, chunk_values
from citewise.kb import Home, KnowledgeBase

pytestmark = pytest.mark.usefixtures("dense_off")


def _hit(doc: str, rank: int, chunk: str = "") -> Hit:
    return Hit(
        chunk_id=chunk or f"{doc}-{rank}",
        doc_id=doc,
        path=f"{doc}.md",
        version_id=1,
        revision=1,
        rank=rank,
        score=1.0 / rank,
        excerpt="x",
        char_start=0,
        char_end=1,
        line_start=1,
        line_end=1,
        heading_path=(),
        citation_id=f"c-{doc}-{rank}",
        title=doc,
        node_ids=("n",),
        sha256="0" * 64,
    )


def test_a_short_chunk_ranked_second_reaches_no_rse_segment() -> None:
    # the failure the guarantee repairs: RSE alone leaves a short second document out
    params = RSEParams()
    values = {
        "a": chunk_values([900, 900, 900], {0: (1, 1.0), 1: (3, 0.9), 2: (4, 0.8)}, params),
        "b": chunk_values([200], {0: (2, 0.95)}, params),
    }
    assert {key for key, *_ in best_segments(values, params)} == {"a"}


def test_the_best_hit_of_each_top_document_becomes_a_segment() -> None:
    chosen = [Segment("a", 1, 0, 3, 2.0)]
    best = [(("a", 1), 1, 0.8), (("b", 1), 0, 0.2), (("c", 1), 4, 0.1)]
    out = guaranteed_segments(chosen, best)
    assert out[0] == chosen[0]  # a's hit is already covered: nothing added for it
    assert [(s.doc_id, s.start, s.end) for s in out[1:]] == [("b", 0, 1), ("c", 4, 5)]


def test_top_documents_are_those_of_the_best_hits() -> None:
    hits = [_hit("a", 1), _hit("b", 2), _hit("c", 3), _hit("a", 4)]
    assert [h.doc_id for h in top_document_hits(hits, 2)] == ["a", "b"]
    assert [h.doc_id for h in top_document_hits(hits, 3)] == ["a", "b", "c"]
    # one document holding both best hits: nothing else is guaranteed
    same = [_hit("a", 1), _hit("a", 2), _hit("b", 3)]
    assert [h.rank for h in top_document_hits(same)] == [1]
    assert TOP_DOCS_KEPT == 2


def _frag(doc: str, start: int, rank: float, words: int) -> Fragment:
    text = " ".join(["word"] * words)
    return Fragment(
        role="direct_support",
        doc_id=doc,
        path=f"{doc}.md",
        revision=1,
        version_id=1,
        node_ids=("n",),
        line_start=1,
        line_end=1,
        char_start=start,
        char_end=start + len(text),
        heading_path=(),
        text=text,
        tokens=words,
        truncated=False,
        citation_id=f"{doc}:{start}",
        rank=rank,
    )


def test_the_budget_shrinks_others_before_a_protected_unit() -> None:
    # a's three spans fill the budget; b's best unit, ranked after them, still enters
    frags = [_frag("a", i * 1000, 100.0 + i, 40) for i in range(3)] + [_frag("b", 0, 500.0, 30)]
    tight = Budget(total_chars=400, doc_share=1.0)  # 100 tokens
    plain, _, _ = apply_budget(frags, tight)
    assert "b" not in {f.doc_id for f in plain}
    first = protected_fragments(frags, {"a", "b"})
    kept, _, use = apply_budget(frags, tight, first=first)
    assert "b" in {f.doc_id for f in kept}
    assert use.tokens <= tight.total_tokens  # the hard budget still holds


def test_protected_is_the_best_ranked_direct_unit_of_each_document() -> None:
    frags = [_frag("a", 0, 300.0, 5), _frag("a", 50, 120.0, 5), _frag("b", 0, 900.0, 5)]
    assert protected_fragments(frags, {"a"}) == frozenset({("a", 50, 74)})


def test_copies_leave_with_a_decision_naming_the_kept_document() -> None:
    hits = [_hit("a", 1), _hit("b", 2), _hit("c", 3), _hit("b", 4)]
    digest = {("a", 1): "x", ("b", 1): "x", ("c", 1): "y"}
    kept, pairs, decisions = copies_of(hits, digest.get)
    assert [h.doc_id for h in kept] == ["a", "c"]
    assert pairs == [("a.md", "b.md")]
    assert len(decisions) == 2 and all("same text as a.md" in d.reason for d in decisions)


def test_an_unreadable_version_is_never_taken_for_a_copy() -> None:
    hits = [_hit("a", 1), _hit("b", 2)]
    kept, pairs, _ = copies_of(hits, lambda key: None)
    assert kept == hits and pairs == []


# -- a real knowledge base ------------------------------------------------------------

LONG = """# Port operations

## Cranes

The harbour cranes load containers onto ships at the north quay every morning.
Each crane lifts containers for eight hours before its crew changes.

## Ferries

The ferries leave the south pier every hour and carry cars and bicycles to the island.
Tickets are sold at the pier office and on board.

## Tides

Ships enter the basin only at high tide; the tide tables are posted at the lock gates.
"""

SHORT = """# Pilot note

On container days the crane crews change at 14:00.
"""


def _kb(tmp_path: Path, files: dict[str, str]) -> KnowledgeBase:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in files.items():
        (corpus / name).write_text(text, encoding="utf-8")
    kb = Home.open(tmp_path / "home").kb()
    assert kb.add([corpus]).ok
    return kb


def test_a_short_document_ranked_second_keeps_its_best_unit(tmp_path: Path) -> None:
    kb = _kb(tmp_path, {"logistics.md": LONG, "pilot.md": SHORT})
    question = "When do the harbour container crane crews change?"
    found = kb.search(question)
    assert [h.path for h in found.hits[:2]] == ["logistics.md", "pilot.md"]
    # before the guarantee, pilot.md left the pack: "rse: no segment of this document ..."
    pack = assemble(kb.context, question, search_result=found)
    assert {f.path for f in pack.direct} >= {"logistics.md", "pilot.md"}
    assert not [d for d in pack.decisions if d.reason.startswith("rse:")]
    assert any("14:00" in f.text for f in pack.direct)


COPY = """# Release policy

Releases of the Orbit toolkit are cut every second Tuesday by the release captain.
"""


def test_identical_documents_answer_once_naming_the_other_copy(tmp_path: Path) -> None:
    kb = _kb(tmp_path, {"policy.md": COPY, "policy-copy.md": COPY, "other.md": LONG})
    question = "When are releases of the Orbit toolkit cut?"
    pack = assemble(kb.context, question)
    assert len(pack.copies) == 1 and set(pack.copies[0]) == {"policy.md", "policy-copy.md"}
    assert any(d.reason.startswith("duplicate: the same text as") for d in pack.decisions)
    answer = kb.ask(question)
    assert answer.outcome == "answered"
    paths = {c.path for c in answer.citations}
    kept, copy = pack.copies[0]
    assert paths == {kept}
    assert answer.answer.count("every second Tuesday") == 1
    assert f"(The same text is in {copy}.)" in answer.answer


def test_the_kept_top_documents_are_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from citewise.errors import UsageError
    from citewise.evidence.keep_top import TOP_DOCS_ENV, TOP_DOCS_KEPT, top_docs_kept

    monkeypatch.delenv(TOP_DOCS_ENV, raising=False)
    assert top_docs_kept() == TOP_DOCS_KEPT
    monkeypatch.setenv(TOP_DOCS_ENV, "0")
    assert top_docs_kept() == 0
    for bad in ("two", "-1", "11", "1.5"):
        monkeypatch.setenv(TOP_DOCS_ENV, bad)
        with pytest.raises(UsageError, match=TOP_DOCS_ENV):
            top_docs_kept()
