"""Lexical retrieval done by PostgreSQL (issue 37: store/postgres/lexical.py and
index/db_lexical.py): the stored term rows are the in-process index's bags, and BM25 over the
database's candidates ranks and scores as the in-process index does on the same chunks, for
the whole KB, a caller's population and an ``allowed`` set, after replacements and deletes,
and on a second server that reads only the postings a search needs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.analysis.tokenize import tokenize
from citewise.index.db_lexical import DbLexical, bm25_over_postings, top_hits
from citewise.index.lexical import DEFAULT_TITLE_WEIGHT, LexicalIndex
from citewise.store.factory import open_store
from citewise.store.postgres.lexical import TITLE_WEIGHT, Posting, term_row
from citewise.store.protocol import Store
from citewise.testing.docs import make_doc
from tests.pg import PgCluster, pg_cluster, pg_url  # noqa: F401  (fixtures)

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (extra 'postgres')")

KB = "default"
#: Paragraphs of several text classes: English prose with inflections, identifiers and
#: numbers (literal tokens), Chinese (CJK bigrams), and a mix.
DOCS: dict[str, list[str]] = {
    "cells.md": [
        "Stem cells divide and differentiate into many specialised cell types.",
        "Cell division is regulated by checkpoints; errors lead to cancer cells.",
    ],
    "proteins.md": [
        "Proteins fold into structures; misfolded proteins aggregate in neurons.",
        "The p53 protein (TP53 gene) suppresses tumours after DNA damage.",
    ],
    "http.md": [
        "The HTTPClient retries a request three times with exponential backoff.",
        "Set max_retries=5 in the client config to retry failed requests more often.",
    ],
    "law.md": [
        "劳动者依法享有获得劳动报酬的权利，用人单位应当按时足额支付工资。",
        "用人单位违反劳动合同约定的，应当承担赔偿责任。",
    ],
    "mixed.md": [
        "The 劳动合同 (labour contract) must be signed within one month of employment.",
        "Cancer research funds protein studies and cell biology in 2024.",
    ],
    "repeat.md": [
        "Cell cell cell: a chunk that repeats one word to test term frequency saturation.",
        "Retries and retry: stemming folds both into one term for the index.",
    ],
}
QUERIES = [
    "cell division cancer",
    "protein folding neurons",
    "retry failed requests",
    "max_retries client",
    "p53 TP53 tumour",
    "劳动合同 赔偿",
    "用人单位 工资",
    "cells proteins retries 劳动",
    "nothing matches this zzzz",
]


def _ingest(store: Store, paths: dict[str, list[str]]) -> None:
    for path, paragraphs in paths.items():
        title = path.removesuffix(".md").title()
        store.ingest_document(KB, path, *make_doc(KB, path, paragraphs, title=title))


def _in_process(store: Store) -> LexicalIndex:
    return LexicalIndex.build(
        (c.chunk_id, c.search_text, c.breadcrumb) for c in store.iter_chunks(KB)
    )


def _same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [c for c, _ in got] == [c for c, _ in want]
    for (_, s), (_, t) in zip(got, want, strict=True):
        assert abs(s - t) <= 1e-6


@pytest.fixture
def store(pg_url: str) -> Iterator[Store]:  # noqa: F811
    opened = open_store(pg_url)
    _ingest(opened, DOCS)
    yield opened
    opened.close()


def test_the_title_weight_is_the_in_process_default() -> None:
    assert TITLE_WEIGHT == DEFAULT_TITLE_WEIGHT


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("abc XYZ_-.5 劳动合同的\n"), max_size=60),
    st.text(alphabet=st.sampled_from("ab Q 劳动"), max_size=12),
)
def test_term_row_is_the_in_process_bag_summed_per_term(text: str, title: str) -> None:
    tokens, weights, length = LexicalIndex().bag_of(text, title)
    summed: dict[str, float] = {}
    for token, w in zip(tokens, weights, strict=True):
        summed[token] = summed.get(token, 0.0) + w
    row = term_row(text, title)
    assert dict(zip(row.terms, row.tfs, strict=True)) == summed
    assert row.length == length


def test_bm25_over_postings_counts_df_on_the_candidates() -> None:
    postings = [
        Posting("a", 4.0, "x", 1.0),
        Posting("b", 8.0, "x", 2.0),
        Posting("b", 8.0, "y", 1.0),
    ]
    scores = bm25_over_postings(postings, ["x", "y"], n_live=10, total_length=60.0)
    assert set(scores) == {"a", "b"} and scores["b"] > scores["a"] > 0
    assert top_hits(scores, 1, None)[0].chunk_id == "b"
    assert top_hits(scores, 5, {"a"}) == [top_hits(scores, 5, None)[1]]
    assert bm25_over_postings([], ["x"], 10, 60.0) == {}


@pytest.mark.subprocess  # the session's cluster: initdb and pg_ctl run as processes
def test_database_bm25_equals_the_in_process_index(store: Store) -> None:
    memory, db = _in_process(store), DbLexical(store, KB)  # type: ignore[arg-type]
    assert len(memory) >= len(DOCS)
    for query in QUERIES:
        want = memory.search(query, k=8)
        got = db.search(query, k=8)
        _same(got, want)
        assert (got == []) == (query == QUERIES[-1])


@pytest.mark.subprocess
def test_a_population_and_allowed_set_score_as_in_process(store: Store) -> None:
    memory, db = _in_process(store), DbLexical(store, KB)  # type: ignore[arg-type]
    readable = [c.chunk_id for c in store.iter_chunks(KB) if c.path != "mixed.md"]
    allowed = set(readable[::2])
    population = memory.population(readable)
    for query in QUERIES:
        tokens = tokenize(query)
        want = memory.search_tokens(tokens, 8, allowed, population)
        got = db.search_tokens(tokens, 8, allowed, readable)
        _same(got, want)
        for term in set(tokens):
            assert db.document_frequency(term, readable) == memory.document_frequency(
                term, population
            )


@pytest.mark.subprocess
def test_replaced_and_deleted_documents_leave_the_database_ranking(store: Store) -> None:
    db = DbLexical(store, KB)  # type: ignore[arg-type]
    assert any(h.chunk_id for h in db.search("neurons", 5))
    _ingest(store, {"proteins.md": ["Proteins are made of amino acids joined by peptide bonds."]})
    store.delete_document(KB, "http.md")
    memory = _in_process(store)
    assert db.search("neurons", 5) == []
    assert db.search("exponential backoff", 5) == []
    for query in QUERIES:
        _same(db.search(query, 8), memory.search(query, k=8))


@pytest.mark.subprocess
def test_a_write_through_one_server_is_searched_at_once_on_another(
    store: Store,
    pg_url: str,  # noqa: F811
) -> None:
    """Server B holds no corpus: its searches read postings and two aggregates, never the
    chunk table, and B sees A's upload on its next search (no catch-up to wait for)."""
    other = open_store(pg_url)
    try:
        b = DbLexical(other, KB)  # type: ignore[arg-type]
        other.iter_chunks = None  # type: ignore[method-assign,assignment]  # never called
        before = b.search("zebrafish regeneration", 5)
        reads = other.lexical_reads  # type: ignore[attr-defined]
        _ingest(store, {"fish.md": ["Zebrafish regeneration of the fin after amputation."]})
        hits = b.search("zebrafish regeneration", 5)
        assert before == [] and len(hits) == 1
        assert other.lexical_reads - reads == 2  # type: ignore[attr-defined]  # stats + postings
        b.search("zebrafish", 5)
        assert other.lexical_reads - reads == 3  # type: ignore[attr-defined]  # stats cached
    finally:
        other.close()


@pytest.mark.subprocess
def test_a_database_from_before_the_term_rows_is_filled_at_open(
    store: Store,
    pg_url: str,  # noqa: F811
) -> None:
    want = _in_process(store).search("cell division cancer", 8)
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE term_posting, chunk_length")
        conn.execute("DELETE FROM schema_version WHERE version = 3")
    reopened = open_store(pg_url)
    try:
        _same(DbLexical(reopened, KB).search("cell division cancer", 8), want)  # type: ignore[arg-type]
    finally:
        reopened.close()


@pytest.mark.subprocess
def test_a_chunk_outside_the_population_is_never_returned_even_when_best(store: Store) -> None:
    db = DbLexical(store, KB)  # type: ignore[arg-type]
    best = db.search("exponential backoff retries", 1)[0].chunk_id
    readable = [c.chunk_id for c in store.iter_chunks(KB) if c.chunk_id != best]
    got = db.search_tokens(tokenize("exponential backoff retries"), 10, None, readable)
    assert got and best not in {h.chunk_id for h in got}
    assert db.document_frequency("backoff", readable) == 0
    with pytest.raises(TypeError, match="collections of chunk ids"):
        db.search_tokens(["x"], 5, best)
