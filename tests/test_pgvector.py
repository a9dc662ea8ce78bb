"""Vector search in PostgreSQL with pgvector's HNSW (store/postgres/vectors.py): the same
ranking as the in-process index, only over the rows the caller may see, and the recall
route's results unchanged by documents the caller may not read. Needs a server with the
``vector`` extension (tests/pg.py ``pgvector_cluster``); skipped, with the reason, without."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from citewise.core.search import SearchFilters
from citewise.index.manager import _WHOLE_BY_KEY, _WHOLE_BY_PASSAGE
from citewise.index.vectors import VectorIndex, vectors_to_bytes
from citewise.kb import Home
from citewise.store.factory import open_store
from citewise.store.postgres.vectors import pgvector_text, version_tuple
from citewise.store.protocol import Store, VectorSearch
from tests._leak_corpus import HIDDEN, QUERIES, build
from tests.pg import PgCluster, pg_cluster, pgvector_cluster  # noqa: F401  (fixtures)

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (extra 'postgres')")

FP = "test-encoder@1#0"
_names = itertools.count()


@pytest.fixture
def pgv_url(pgvector_cluster: PgCluster) -> str:  # noqa: F811
    return pgvector_cluster.create_database(f"v{next(_names)}")


@pytest.fixture
def store(pgv_url: str) -> Iterator[Store]:
    opened = open_store(pgv_url)
    yield opened
    opened.close()


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_helpers() -> None:
    assert version_tuple("0.8.2") == (0, 8, 2) and version_tuple("0.7.4-dev") == (0, 7)
    assert pgvector_text(vectors_to_bytes(np.array([[0.5, -1.0]], np.float32))[0]) == "[0.5,-1.0]"


@pytest.mark.parametrize("permitted_rows", [300, 2000])
@pytest.mark.parametrize("unfiltered_min", [10**9, 50])
def test_hnsw_ranks_the_permitted_rows_like_the_in_process_index(
    store: Store, monkeypatch: pytest.MonkeyPatch, permitted_rows: int, unfiltered_min: int
) -> None:
    """2000 vectors; the caller may see 300 of them, chosen far from the query, while the
    rest crowd round it (or all 2000): pgvector's iterative scan still returns the permitted
    top ten, in the order (and within float error the scores) of the exact in-process
    search, whether the filtered scan runs at once or after an unfiltered one found too
    few permitted rows (``unfiltered_min`` 50)."""
    from citewise.store.postgres import vectors as pg_vectors

    monkeypatch.setattr(pg_vectors, "UNFILTERED_MIN", unfiltered_min)
    assert isinstance(store, VectorSearch) and store.vector_search_ready()
    rng = np.random.default_rng(7)
    vecs = _unit(rng, 2000, 32)
    query = vecs[0]
    keys = [f"k{i:04d}" for i in range(2000)]
    store.put_vectors(FP, dict(zip(keys, vectors_to_bytes(vecs), strict=True)))
    far = np.argsort(vecs @ query)[:permitted_rows]  # the farthest from the query first
    permitted = [keys[i] for i in far]
    index = VectorIndex(32)
    index.add(keys, vecs)
    want = index.search(query, 10, allowed=permitted)
    got = store.search_vectors(FP, vectors_to_bytes(query[None, :])[0], 10, permitted)
    assert [k for k, _ in got] == [h.id for h in want]
    assert np.allclose([s for _, s in got], [h.score for h in want], atol=1e-5)
    # a set the caller keeps (a dict's keys) is probed as it is, with the same result
    kept = dict.fromkeys(permitted).keys()
    assert store.search_vectors(FP, vectors_to_bytes(query[None, :])[0], 10, kept) == got
    assert store.search_vectors(FP, vectors_to_bytes(query[None, :])[0], 10, []) == []
    with psycopg.connect(store.url) as conn:  # type: ignore[attr-defined]
        names = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes").fetchall()]
    assert any(n.startswith("vector_hnsw_") for n in names)  # the HNSW index was built


def test_vectors_stored_before_the_extension_are_filled_in(pgv_url: str) -> None:
    """A database whose vectors were written without pgvector gets them in the new
    column when a store opens with the extension."""
    first = open_store(pgv_url)
    first.close()
    with psycopg.connect(pgv_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE dense_vector DROP COLUMN embedding")
        conn.execute(
            "INSERT INTO dense_vector(fingerprint, text_key, data) VALUES (%s, 'old', %s)",
            (FP, vectors_to_bytes(np.array([[1.0, 0.0]], np.float32))[0]),
        )
    store = open_store(pgv_url)
    try:
        assert isinstance(store, VectorSearch) and store.vector_search_ready()
        q = vectors_to_bytes(np.array([[1.0, 0.0]], np.float32))[0]
        assert store.search_vectors(FP, q, 3, ["old"]) == [("old", 1.0)]
    finally:
        store.close()


@pytest.mark.model
@pytest.mark.parametrize("passages", ["on", "off"])
def test_the_vector_route_through_hnsw_is_the_same_and_leaks_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pgvector_cluster: PgCluster,  # noqa: F811
    passages: str,
) -> None:
    """Homes on pgvector stores, every vector search through HNSW: bob's vector hits are
    those of a corpus without the document he may not read, and equal the in-process
    route's (CITEWISE_PGVECTOR=off); chunks scored by their best passage (the passages
    ranked in the store) or, with CITEWISE_PASSAGES=off, by their pooled vector."""
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    monkeypatch.setenv("CITEWISE_PASSAGES", passages)
    bob, alice = SearchFilters(principal="bob"), SearchFilters(principal="alice")
    results: dict[str, list[list[tuple[str, float]]]] = {}
    for variant, pgvector in (("without", "on"), ("with", "on"), ("with", "off")):
        monkeypatch.setenv("CITEWISE_PGVECTOR", pgvector)
        name = f"{variant}-{pgvector}"
        url = pgvector_cluster.create_database(f"leak_{name.replace('-', '_')}_{passages}")
        with Home.open(build(tmp_path / name, variant, url), store=url) as home:
            index = home.index("default")
            index.store_search_min = 0  # every search to the store, however small
            index.sync()
            if index.vectors is None:
                pytest.skip(f"dense route unavailable: {index.dense.reason}")
            assert isinstance(home.store, VectorSearch)
            assert home.store.vector_search_ready() == (pgvector == "on")
            results[name] = [
                [(h.path, h.score) for h in home.kb().search(q, filters=bob, mode="vector").hits]
                for q in QUERIES
            ]
            # alice may read every chunk: the grouping kept per index state is used
            results["all-" + name] = [
                [(h.path, h.score) for h in home.kb().search(q, filters=alice, mode="vector").hits]
                for q in QUERIES
            ]
            assert (index.passages is not None) == (passages == "on")
            whole = _WHOLE_BY_PASSAGE if passages == "on" else _WHOLE_BY_KEY
            if pgvector == "on" or passages == "off":  # passages group only for the store
                assert whole in index.state.scopes
    assert any(results["with-on"]) and HIDDEN not in str(results["with-on"])
    for got, want in zip(results["with-on"], results["without-on"], strict=True):
        assert [p for p, _ in got] == [p for p, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)
    for got, want in zip(results["with-on"], results["with-off"], strict=True):
        assert [p for p, _ in got] == [p for p, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)
    assert HIDDEN in str(results["all-with-on"])  # alice's search finds it
    for got, want in zip(results["all-with-on"], results["all-with-off"], strict=True):
        assert [p for p, _ in got] == [p for p, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)


def test_migrate_copies_vectors_into_pgvectors_column(tmp_path: Path, pgv_url: str) -> None:
    """``citewise migrate`` from SQLite: the copied vectors are searchable with HNSW."""
    from citewise.store.sqlite import SQLiteStore
    from citewise.sync.migrate import migrate_store

    vecs = _unit(np.random.default_rng(3), 50, 8)
    keys = [f"m{i:02d}" for i in range(50)]
    source = SQLiteStore(tmp_path / "citewise.db")
    source.put_vectors(FP, dict(zip(keys, vectors_to_bytes(vecs), strict=True)))
    source.close()
    report = migrate_store(f"sqlite:{tmp_path / 'citewise.db'}", pgv_url)
    assert report.rows["dense_vector"] == 50
    store = open_store(pgv_url)
    try:
        q = vectors_to_bytes(vecs[7][None, :])[0]
        assert isinstance(store, VectorSearch)
        got = store.search_vectors(FP, q, 3, keys)
        assert got[0][0] == "m07" and abs(got[0][1] - 1.0) < 1e-5
        assert store.get_vectors(FP, ["m07"]) == {"m07": q}
    finally:
        store.close()


@pytest.mark.parametrize("raw", ["lots", "4 GB", "0MB", "-1GB", "4gb'; DROP TABLE chunk; --"])
def test_a_bad_index_build_memory_is_refused_with_the_fix(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The HNSW build memory goes into a SET statement: only a plain size passes."""
    from citewise.errors import UsageError
    from citewise.store.postgres.vectors import INDEX_MEMORY, index_build_memory

    monkeypatch.setenv("CITEWISE_PG_INDEX_MEMORY", raw)
    with pytest.raises(UsageError, match="CITEWISE_PG_INDEX_MEMORY") as err:
        index_build_memory()
    assert "4GB" in (err.value.hint or "")
    monkeypatch.setenv("CITEWISE_PG_INDEX_MEMORY", "512MB")
    assert index_build_memory() == "512MB"
    monkeypatch.delenv("CITEWISE_PG_INDEX_MEMORY")
    assert index_build_memory() == INDEX_MEMORY
