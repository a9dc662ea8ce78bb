"""Search in PostgreSQL mode takes its lexical route from the database (issue 37:
index/pg_lexical_route.py): the same hits and scores as SQLite mode (lexical and hybrid),
no in-process BM25 index built or saved, a write through one store found by a search
through another on its next search, and ``CITEWISE_PG_LEXICAL`` read strictly."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.analysis.tokenize import tokenize
from citewise.core.search import SearchFilters, SearchMode, SearchResult
from citewise.errors import UsageError
from citewise.index.embedder import Embedder, Unavailable
from citewise.index.lexical import LexicalIndex
from citewise.index.manager import KBIndex
from citewise.index.pg_lexical_route import StoredLexical, pg_lexical_mode
from citewise.recall.search import search
from citewise.store.factory import open_store
from citewise.store.protocol import Store
from tests.pg import PgCluster, pg_cluster, pg_url  # noqa: F401  (fixtures)
from tests.test_pg_lexical import DOCS, KB, QUERIES, _ingest

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (extra 'postgres')")


class WordHashEncoder:
    """A deterministic stand-in encoder: each index token hashed to one of ``dim`` axes,
    rows L2-normalised (shared words make close vectors; it passes the health probe)."""

    name = "word-hash"
    dim = 256
    multilingual = True
    fingerprint = "word-hash@1"

    def encode(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in tokenize(text) or ["empty"]:
                out[i, int(hashlib.sha256(token.encode()).hexdigest()[:8], 16) % self.dim] += 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _encoder() -> Embedder | Unavailable:
    got: Embedder = WordHashEncoder()  # type: ignore[assignment]
    return got


def _no_model() -> Embedder | Unavailable:
    return Unavailable("dense", "off in this test")


def _index(store: Store, where: Path, dense: bool) -> KBIndex:
    return KBIndex(store, KB, where, dense=dense, loader=_encoder if dense else _no_model)


def _ranked(result: SearchResult) -> list[tuple[str, float]]:
    return [(h.chunk_id, h.score) for h in result.hits]


@pytest.fixture
def stores(pg_url: str, tmp_path: Path) -> Iterator[tuple[Store, Store]]:  # noqa: F811
    pg, lite = open_store(pg_url), open_store(tmp_path / "kb.sqlite")
    for s in (pg, lite):
        _ingest(s, DOCS)
    yield pg, lite
    pg.close()
    lite.close()


@pytest.mark.parametrize(("mode", "dense"), [("lexical", False), ("hybrid", True)])
def test_postgres_mode_searches_as_sqlite_mode(
    stores: tuple[Store, Store], tmp_path: Path, mode: SearchMode, dense: bool
) -> None:
    pg, lite = stores
    on_pg, on_lite = _index(pg, tmp_path / "pg", dense), _index(lite, tmp_path / "lite", dense)
    for query in QUERIES:
        got = search(on_pg, query, mode=mode, top_k=8)
        want = search(on_lite, query, mode=mode, top_k=8)
        assert [c for c, _ in _ranked(got)] == [c for c, _ in _ranked(want)], query
        for (_, a), (_, b) in zip(_ranked(got), _ranked(want), strict=True):
            assert abs(a - b) <= 1e-6, query
        assert got.outcome == want.outcome and got.criterion == want.criterion, query
        lex = [(d.route, d.status, d.candidates, d.top_score) for d in got.diagnostics]
        assert lex == [(d.route, d.status, d.candidates, d.top_score) for d in want.diagnostics]
    assert isinstance(on_pg.lexical, StoredLexical)
    assert on_pg.dense.status == ("ok" if dense else "disabled")  # hybrid: both routes ran
    assert not isinstance(on_lite.lexical, StoredLexical)


def test_a_caller_population_scores_as_in_sqlite_mode(
    stores: tuple[Store, Store], tmp_path: Path
) -> None:
    """A caller reading part of the KB: BM25 statistics of its population, in the query."""
    pg, lite = stores
    for s in (pg, lite):
        _ingest_restricted(s)
    on_pg, on_lite = _index(pg, tmp_path / "pg", False), _index(lite, tmp_path / "lite", False)
    scope = SearchFilters(principal="guest")
    for query in [*QUERIES, "secret retries budget"]:
        got = search(on_pg, query, mode="lexical", filters=scope)
        want = search(on_lite, query, mode="lexical", filters=scope)
        assert [c for c, _ in _ranked(got)] == [c for c, _ in _ranked(want)], query
        for (_, x), (_, y) in zip(_ranked(got), _ranked(want), strict=True):
            assert abs(x - y) <= 1e-6, query
        assert not any(h.path == "secret.md" for h in got.hits)
    ops = SearchFilters(principal="ops-team")  # reads everything: the global statistics
    assert search(on_pg, "secret retries budget", mode="lexical", filters=ops).hits[0].path == (
        "secret.md"
    )


def _ingest_restricted(store: Store) -> None:
    from citewise.testing.docs import make_doc

    paragraphs = ["Secret retries budget: the internal retry budget is three."]
    doc = make_doc(KB, "secret.md", paragraphs, title="Secret", meta={"access": ["ops-team"]})
    store.ingest_document(KB, "secret.md", *doc)


def test_a_fresh_server_builds_no_in_process_lexical_index(
    pg_url: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its first lexical search tokenizes no chunk and saves no lexical files: the route's
    reads are the store's postings and statistics (counted)."""
    writer = open_store(pg_url)
    _ingest(writer, DOCS)
    fresh = open_store(pg_url)
    try:

        def never(*_: object) -> None:
            raise AssertionError("an in-process lexical index was built")

        monkeypatch.setattr(LexicalIndex, "add", never)
        index = _index(fresh, tmp_path / "idx", False)
        before = fresh.lexical_reads  # type: ignore[attr-defined]
        got = search(index, "cell division cancer", mode="lexical")
        assert got.hits and got.hits[0].path == "cells.md"
        assert fresh.lexical_reads - before == 2  # type: ignore[attr-defined]  # stats, postings
        assert not (tmp_path / "idx" / "lexical").exists()
        route = next(d for d in got.diagnostics if d.route == "lexical")
        assert route.status == "ok" and route.candidates >= len(got.hits) and route.ms > 0
    finally:
        fresh.close()
        writer.close()


def test_a_write_through_store_a_is_found_through_store_b_on_its_next_search(
    pg_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    a, b = open_store(pg_url), open_store(pg_url)
    try:
        _ingest(a, DOCS)
        on_b = _index(b, tmp_path / "b", False)
        assert not search(on_b, "zebrafish fin regeneration", mode="lexical").hits
        _ingest(a, {"fish.md": ["Zebrafish regeneration of the fin after amputation."]})
        hits = search(on_b, "zebrafish fin regeneration", mode="lexical").hits
        assert [h.path for h in hits] == ["fish.md"]
        a.delete_document(KB, "fish.md")
        assert not search(on_b, "zebrafish fin regeneration", mode="lexical").hits
    finally:
        a.close()
        b.close()


def test_memory_mode_keeps_the_in_process_index(
    pg_url: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CITEWISE_PG_LEXICAL", "memory")
    store = open_store(pg_url)
    try:
        _ingest(store, DOCS)
        index = _index(store, tmp_path / "idx", False)
        assert search(index, "cell division cancer", mode="lexical").hits
        assert not isinstance(index.lexical, StoredLexical) and len(index.lexical) > 0
    finally:
        store.close()


def test_the_setting_takes_db_or_memory_and_names_the_fix() -> None:
    assert pg_lexical_mode({}) == "db"
    assert pg_lexical_mode({"CITEWISE_PG_LEXICAL": " Memory "}) == "memory"
    with pytest.raises(UsageError, match="CITEWISE_PG_LEXICAL='sql' is neither db nor memory"):
        pg_lexical_mode({"CITEWISE_PG_LEXICAL": "sql"})


def test_evidence_and_sufficiency_read_the_same_statistics_in_both_modes(
    stores: tuple[Store, Store], tmp_path: Path
) -> None:
    """The other readers of the lexical index (evidence's term rarity, sufficiency's term
    profile and phrase check) see the database's statistics as the in-process ones, for
    the whole KB and for a caller that reads part of it."""
    from citewise.analysis.question import analyse
    from citewise.evidence.assemble import term_weights
    from citewise.sufficiency.presence import weigh

    pg, lite = stores
    for s in (pg, lite):
        _ingest_restricted(s)
    on_pg, on_lite = _index(pg, tmp_path / "pg", False), _index(lite, tmp_path / "lite", False)
    on_pg.sync()
    on_lite.sync()
    terms = ["cell", "protein", "retri", "budget", "secret", "zzzz", "劳动"]
    for principal in (None, "ops-team"):
        scope = SearchFilters(principal=principal)
        assert term_weights(on_pg, terms, scope) == term_weights(on_lite, terms, scope)
        for text in ("How do stem cells divide?", "What is the secret retry budget?"):
            question = analyse(text)
            assert weigh(question, on_pg, principal) == weigh(question, on_lite, principal)


def test_a_request_pinned_to_a_state_never_meets_a_chunk_written_after_it(
    pg_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The database ranks its live chunks; a request holding an older state keeps to that
    state's chunks (the best match written meanwhile waits for the next sync)."""
    a, b = open_store(pg_url), open_store(pg_url)
    try:
        _ingest(a, DOCS)
        on_b = _index(b, tmp_path / "b", False)
        with on_b.pinned():
            _ingest(a, {"more.md": ["Cell division cancer cells: division of cancer cells."]})
            held = search(on_b, "cell division cancer", mode="lexical")
            assert held.hits and all(h.path != "more.md" for h in held.hits)
        assert search(on_b, "cell division cancer", mode="lexical").hits[0].path == "more.md"
    finally:
        a.close()
        b.close()


@given(st.text(max_size=12))
def test_any_other_setting_value_is_refused(raw: str) -> None:
    value = raw.strip().lower()
    if value in ("", "db", "memory"):
        assert pg_lexical_mode({"CITEWISE_PG_LEXICAL": raw}) == (value or "db")
    else:
        with pytest.raises(UsageError, match="neither db nor memory"):
            pg_lexical_mode({"CITEWISE_PG_LEXICAL": raw})


def test_an_in_process_population_or_slot_mask_is_refused(
    stores: tuple[Store, Store], tmp_path: Path
) -> None:
    pg, lite = stores
    on_pg, on_lite = _index(pg, tmp_path / "pg", False), _index(lite, tmp_path / "lite", False)
    on_pg.sync()
    on_lite.sync()
    foreign = on_lite.lexical.population(list(on_lite.chunks)[:3])
    with pytest.raises(ValueError, match="in-process index"):
        on_pg.lexical.search_tokens(["cell"], 5, None, foreign)
    with pytest.raises(ValueError, match="chunk ids, not a slot mask"):
        on_pg.lexical.search_tokens(["cell"], 5, np.ones(3, dtype=bool))
    mine = on_pg.lexical.population(list(on_pg.chunks)[:3])
    assert len(on_pg.lexical.search_tokens(["cell"], 5, mine.mask, mine)) <= 3
