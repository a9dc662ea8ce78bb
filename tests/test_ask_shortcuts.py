"""Sixth round of per-query shortcuts of ``ask`` (issue 17): each gives exactly what the
code it replaced gave (kept here as the reference), on hand-picked edge cases and on
generated inputs; the store's folded reads raise the same errors in the same cases."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.analysis import tokenize as tok
from citewise.analysis.question import analyse
from citewise.analysis.tokenize import key_terms, term_coverage
from citewise.answer.relevance import lexical_score
from citewise.errors import CorruptContent, DocumentNotFound, KBNotFound, VersionNotFound
from citewise.index import ask_reads
from citewise.kb import Home
from citewise.store.protocol import Store
from citewise.store.sqlite import SQLiteStore
from citewise.testing.docs import make_doc
from tests.test_query_cost import CountingStore


def _literal_tokens_before(text: str) -> list[str]:
    """The replaced code: every lowercase pattern run over all non-alphanumeric tokens."""
    nfkc = text if text.isascii() else unicodedata.normalize("NFKC", text)
    low = nfkc.lower()
    cand = " ".join([w for w in low.split() if not w.isalnum()])
    found: dict[tuple[int, str], None] = {}
    for pattern in tok._LOWER_PATTERNS:
        for m in pattern.finditer(cand):
            found[(m.start(), m.group(0))] = None
    if "§" in low:
        for m in tok._SECTION.finditer(low):
            found[(-1 - m.start(), "§" + re.sub(r"\s+", "", m.group(1)))] = None
    for m in tok._ACRONYM_NUM.finditer(nfkc):
        if m.start() and nfkc[m.start() - 1].isalnum():
            continue
        found[(-1 - m.start(), f"{m.group(1).lower()} {m.group(2).lower()}")] = None
    return [t for (_, t) in found]


LITERAL_CASES = [
    "",
    "plain words only",
    "Upgrade to v2.4.1 (see 1.2.0) and /api/v2/sync, host:8443 and x-req-id.",
    "§ 1002.4(b)(1) and ISO 13485:2016 and HTTP 503 errors.",
    "snake_case_id, 3(a), 12(ab12), 1.2.3.4.5 and .5.6 and 5.",
    "a/b //x /etc/citewise/config.toml C:\\ProgramData\\x.toml http://h.org/a_b-c.",
    "CD4+ T cells (n = 1.5x10^6), IL-2, p<0.05, 95% CI 1.26-2.23, ٣.٤ and ²1.2",
    "ｖ１．２．３ full-width, é-b, ß_ss, 'quoted.words' end.",
    "1. 2.) (3) 4( (5)(6) a.b. c: d:e -f- g-- --h",
]


@pytest.mark.parametrize("text", LITERAL_CASES)
def test_literal_tokens_are_those_the_full_scan_finds(text: str) -> None:
    assert tok.literal_tokens(text) == _literal_tokens_before(text)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="aAvVxz09 5./()_:-§\t\n٣²é,", max_size=40))
def test_literal_tokens_match_the_full_scan_on_generated_text(text: str) -> None:
    assert tok.literal_tokens(text) == _literal_tokens_before(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_literal_tokens_match_the_full_scan_on_any_text(text: str) -> None:
    assert tok.literal_tokens(text) == _literal_tokens_before(text)


def test_key_terms_are_memoised_as_a_fresh_list() -> None:
    q = "What port does the v2.4.1 sync server use in staging?"
    first = key_terms(q)
    assert first == tok._key_terms(q)
    first.append("mutated")
    assert key_terms(q) == tok._key_terms(q)  # the caller's list is its own
    long_q = "word " * 300 + "v1.2.3"
    assert len(long_q) > tok.MEMO_CHARS and key_terms(long_q) == tok._key_terms(long_q)


def _lexical_score_before(question: str, text: str, heading: str) -> float:
    """The replaced code: two coverage calls, each tokenizing the question and the unit."""
    own = term_coverage(question, text).ratio
    cover = term_coverage(question, [text, heading]).ratio
    return 0.6 * own + 0.4 * cover


SCORE_CASES = [
    ("What is the retry limit?", "The retry limit is 3.", "Retries"),
    ("What is the retry limit?", "Nothing here.", "Retry limit"),
    ("What is it?", "Anything.", ""),  # no key terms: both coverages are 1.0
    ("", "", ""),
    ("Which port (8443) for v2.4.1?", "Port 8443 since v2.4.1.", "v2.4.1 notes"),
    ("如何配置端口", "端口配置为 8443。", "配置"),
]


@pytest.mark.parametrize(("question", "text", "heading"), SCORE_CASES)
def test_lexical_score_is_the_two_coverages(question: str, text: str, heading: str) -> None:
    assert lexical_score(analyse(question), text, heading) == _lexical_score_before(
        question, text, heading
    )


WORDS = st.sampled_from(
    ["retry", "retries", "limit", "port", "8443", "v2.4.1", "the", "what", "is", "staging",
     "端口", "配置", "x-req-id", "cells", "cell", "T", "IL-2", "?", "."]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=8), st.lists(WORDS, max_size=12), st.lists(WORDS, max_size=4))
def test_lexical_score_matches_on_generated_units(
    q: list[str], text: list[str], heading: list[str]
) -> None:
    args = (" ".join(q), " ".join(text), " ".join(heading))
    assert lexical_score(analyse(args[0]), *args[1:]) == _lexical_score_before(*args)


P1 = ["Alpha paragraph one.", "Beta paragraph two.", "Gamma three."]
P2 = ["Alpha paragraph one, edited.", "Delta four."]


def test_folded_store_reads_raise_as_before(tmp_path: Path) -> None:
    """The base is checked only when a read finds nothing: the same rows when it holds
    the document, and the same errors (KBNotFound first) when it does not."""
    store = SQLiteStore(tmp_path / "citewise.db")
    kb = "default"
    raw, parsed = make_doc(kb, "a.md", P1)
    store.ingest_document(kb, "a.md", raw, parsed)
    raw2, parsed2 = make_doc(kb, "a.md", P2)
    store.ingest_document(kb, "a.md", raw2, parsed2)
    doc_id = store.get_document(kb, "a.md").doc_id
    store.delete_document(kb, "a.md")  # version 3: a deletion, no content
    for vid, doc in ((1, parsed), (2, parsed2)):
        window = store.nodes_near(kb, "a.md", vid, [(0, 5)])
        assert window.complete and window.nodes == list(doc.nodes)
        assert window.nodes == store.nodes_of_version(kb, "a.md", vid)
        assert store.nodes_near(kb, "a.md", vid, []).nodes == window.nodes
        assert store.get_document_text(kb, doc_id, vid) == doc.text
    for vid in (3, 9):
        with pytest.raises(VersionNotFound):
            store.nodes_near(kb, "a.md", vid, [(0, 5)])
        with pytest.raises(VersionNotFound):
            store.get_document_text(kb, doc_id, vid)
    with pytest.raises(DocumentNotFound):
        store.nodes_near(kb, "never.md", 1, [(0, 5)])
    with pytest.raises(VersionNotFound):
        store.get_document_text(kb, "no-such-doc", 1)
    store.create_kb("other")
    with pytest.raises(VersionNotFound):  # another base's document is not found in it
        store.get_document_text("other", doc_id, 1)
    for read in (
        lambda: store.nodes_near("nope", "a.md", 1, [(0, 5)]),
        lambda: store.nodes_of_version("nope", "a.md", 1),
        lambda: store.get_document_text("nope", doc_id, 1),
        lambda: store.generation("nope"),
    ):
        with pytest.raises(KBNotFound):
            read()
    assert store.generation(kb) == store.generation(kb)
    store.close()


def _coolant_home(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "coolant-a.md").write_text(
        "# Coolant datasheet\n\nThe boiling point of the coolant is 106 °C.\n", "utf-8"
    )
    (docs / "coolant-b.md").write_text(
        "# Coolant notes\n\nThe freezing point of the coolant is -40 °C.\n", "utf-8"
    )
    return docs, tmp_path / "home"


def _unreadable(answer: Any) -> list[dict[str, Any]]:
    lims = answer.trace["pack"]["conflicts_and_limitations"]["limitations"]
    return [x for x in lims if x["kind"] == "source_window_unavailable"]


def test_an_ask_reads_each_version_text_once_and_still_checks_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within one ask the evidence stage takes the text recall read and checked from the
    store moments before; a text the index state kept from an earlier ask is read from
    the store again, so a source that became unreadable is still reported."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    docs, home_dir = _coolant_home(tmp_path)
    counting = CountingStore(SQLiteStore(home_dir / "citewise.db"))
    question = "What is the boiling point of the coolant?"
    with Home.open(home_dir, store=cast(Store, counting)) as home:
        kb = home.kb()
        assert kb.add([docs]).ok
        counting.calls.clear()
        first = kb.ask(question)
        assert first.outcome == "answered" and not _unreadable(first)
        read = counting.calls["get_document_text"]
        assert 0 < read <= 2  # one read per version the ask touched, not one per stage
        assert ask_reads.checked(("any", 1)) is None  # nothing is kept past the ask

        def broken(*args: object) -> str:
            raise CorruptContent("Stored text does not match its sha256.")

        monkeypatch.setattr(counting._inner, "get_document_text", broken)
        again = kb.ask(question)  # recall takes the state's copy; the evidence stage may not
        lims = _unreadable(again)
        assert lims and "CORRUPT_CONTENT" in lims[0]["reason"]


def test_ask_reads_are_kept_for_one_block_only() -> None:
    ask_reads.note(("d", 1), "outside")  # no ask: nothing is recorded
    assert ask_reads.checked(("d", 1)) is None
    with ask_reads.ask_reads():
        ask_reads.note(("d", 1), "text")
        with ask_reads.ask_reads():  # re-entrant: the same record
            assert ask_reads.checked(("d", 1)) == "text"
        assert ask_reads.checked(("d", 1)) == "text"
        assert ask_reads.checked(("d", 2)) is None
    assert ask_reads.checked(("d", 1)) is None


def _term_coverage_before(query: str, texts: list[str]) -> tok.Coverage:
    present: set[str] = set()
    for text in texts:
        present.update(tok.tokenize(text))
    terms = tuple(key_terms(query))
    return tok.Coverage(terms=terms, matched=tuple(t for t in terms if t in present))


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=6), st.lists(st.lists(WORDS, max_size=400), max_size=3))
def test_term_coverage_reads_long_texts_by_their_words(
    q: list[str], texts: list[list[str]]
) -> None:
    query, bodies = " ".join(q), [" ".join(t) for t in texts]
    assert term_coverage(query, bodies) == _term_coverage_before(query, bodies)
    if bodies:
        assert term_coverage(query, bodies[0]) == _term_coverage_before(query, bodies[:1])
    assert term_coverage(query, iter(bodies)) == _term_coverage_before(query, bodies)


@pytest.mark.parametrize(
    "query", ["Which port for v2.4.1?", "What is x-req-id for?", "filler words", "IL-2 cells"]
)
def test_term_coverage_of_a_long_text_keeps_its_literals(query: str) -> None:
    long_text = "filler words here " * 80 + "Use v2.4.1 with x-req-id; IL-2 cells."
    assert len(long_text) > tok.MEMO_CHARS
    got = term_coverage(query, long_text)
    assert got == _term_coverage_before(query, [long_text])
    assert got.ratio > 0
