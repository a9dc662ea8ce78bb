"""Short-passage vectors (index/passages.py): a chunk's vector score is its best 96-token
passage's; the passages are kept in the store (a new server loads them), follow removals,
and can be turned off."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citewise.index.passages import (
    PASSAGE_OVERLAP,
    PASSAGE_TOKENS,
    Passages,
    namespace,
    search,
)
from citewise.index.vectors import VectorIndex
from citewise.kb import Home
from citewise.recall.search import RecallSettings, encoder_key
from citewise.store.sqlite import SQLiteStore
from tests.backends import Backend


def _unit(*rows: list[float]) -> np.ndarray:
    x = np.asarray(rows, dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _passages(vecs: dict[str, np.ndarray]) -> Passages:
    index = VectorIndex(8, fingerprint="enc#1:p96")
    counts = {}
    for cid, rows in vecs.items():
        index.add([f"{cid}#{j}" for j in range(len(rows))], rows)
        counts[cid] = len(rows)
    return Passages(index, counts)


def test_a_chunk_scores_by_its_best_passage_not_its_mean(tmp_path: Path) -> None:
    q = _unit([1, 0, 0, 0, 0, 0, 0, 0])[0]
    # "broad": every passage leans a little towards q (best mean); "sharp": one passage is q
    broad = _unit(*[[0.6, 0.8 if i == j else 0, *([0] * 6)] for j, i in enumerate(range(3))])
    sharp = _unit([1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0, 0])
    assert (sharp @ q).mean() < (broad @ q).mean()
    p = _passages({"broad": broad, "sharp": sharp, "other": _unit([0, 0, 0, 0, 0, 0, 1, 1])})
    store = SQLiteStore(tmp_path / "s.db")
    try:
        hits = search(store, p, {}, q, 3, None, store_min=10**9)
        assert [h.id for h in hits] == ["sharp", "broad", "other"]
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert hits[1].score == pytest.approx(0.6, abs=1e-5)
        # only the permitted chunks' passages are ranked
        assert [h.id for h in search(store, p, {}, q, 3, {"broad", "other"}, store_min=10**9)] == [
            "broad",
            "other",
        ]
    finally:
        store.close()


def test_k_distinct_chunks_even_when_the_best_passages_crowd_into_one(tmp_path: Path) -> None:
    """The first 4k passages all belong to one chunk: the search widens until it has k."""
    q = _unit([1, 0, 0, 0, 0, 0, 0, 0])[0]
    crowd = _unit(*[[1, 0.01 * j, 0, 0, 0, 0, 0, 0] for j in range(30)])
    p = _passages(
        {"crowd": crowd, **{f"c{i}": _unit([0.1, 0, 1, i, 0, 0, 0, 0]) for i in range(5)}}
    )
    store = SQLiteStore(tmp_path / "s.db")
    try:
        hits = search(store, p, {}, q, 4, None, store_min=10**9)
    finally:
        store.close()
    assert len(hits) == 4 and hits[0].id == "crowd"
    assert len({h.id for h in hits}) == 4


def test_passages_round_trip_through_their_file(tmp_path: Path) -> None:
    p = _passages({"a": _unit([1] * 8, [1, -1] * 4), "b#x": _unit([0, 1] * 4)})
    p.save(tmp_path / "p.npz")
    back = Passages.load(tmp_path / "p.npz")
    assert back.counts == {"a": 2, "b#x": 1}  # a '#' inside a chunk id survives
    assert np.array_equal(
        back.vectors.get(back.ids(["a", "b#x"])), p.vectors.get(p.ids(["a", "b#x"]))
    )


BACKUP = (
    "The backup job runs every night at two o'clock. It copies the database to tape. "
    "The nightly backup keeps fourteen copies. A failed backup run pages the operator. "
    "Backups are verified each morning by restoring the newest copy to a spare server. "
    "The backup window ends at four o'clock, before the first users log in."
)
LONG = (
    "# Operations\n\n"
    + BACKUP
    + " "
    + " ".join(
        f"Step {i}: the protein kinase number {i} regulates membrane transport in yeast cells."
        for i in range(10)
    )
    + "\n"
)
DOCS = {
    "ops.md": LONG,
    "leases.md": "# Leases\n\nA lease lasts thirty seconds and is renewed by the holder.\n",
}


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    return corpus


@pytest.mark.model
def test_the_vector_route_scores_by_the_best_passage_and_a_new_server_loads_them(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    monkeypatch.setenv("CITEWISE_PASSAGES", "on")
    corpus = _corpus(tmp_path)
    first_home = tmp_path / "first"
    store = backend.store(first_home) or str(first_home / "citewise.db")
    query = "When does the nightly database backup run?"
    with Home.open(first_home, store=store) as first:
        assert first.kb().add([corpus]).ok
        index = first.index("default")
        index.sync()
        if index.vectors is None:
            pytest.skip(f"dense route unavailable: {index.dense.reason}")
        emb = index.embedder
        held = index.passages
        assert held is not None and encoder_key(index) == "minilm:p96"
        assert held.vectors.fingerprint == namespace(emb.fingerprint)  # type: ignore[union-attr]
        ops = next(c for c in index.chunks.values() if c.path == "ops.md")
        text = f"{ops.breadcrumb}\n{index.chunk_text(ops.chunk_id)}"
        windows = emb.passage_windows(text, PASSAGE_TOKENS, PASSAGE_OVERLAP)  # type: ignore[union-attr]
        assert len(windows) >= 3 and max(len(w) for w in windows) == PASSAGE_TOKENS
        assert held.counts[ops.chunk_id] == len(windows)
        qvec = index.embed_query(query)
        assert qvec is not None
        passage_vecs = emb.encode_segments(windows)  # type: ignore[union-attr]
        best = float((passage_vecs @ qvec).max())
        pooled = float(index.vectors.get([ops.chunk_id])[0] @ qvec)
        hits = first.kb().search(query, mode="vector").hits
        assert hits[0].path == "ops.md"
        assert hits[0].route_ranks == {"vector": 1}
        got = {h.chunk_id: h for h in first.kb().search(query, mode="vector").hits}
        scores = index.search_vectors(qvec, 5)
        assert scores[0].id == ops.chunk_id
        assert scores[0].score == pytest.approx(best, abs=1e-4)
        assert best > pooled + 0.05  # the one sentence stands out of its passage, not the mean
        pooled_route = index.search_vectors(qvec, 5, passages=False)
        assert pooled_route[0].score == pytest.approx(pooled, abs=1e-4)
        assert ops.chunk_id in got
        # the offered mix: a share of the best passage's cosine, the rest of the pooled one's
        mixed = first.kb().search(
            query, mode="vector", settings=RecallSettings(passage_weight=0.5, vector_threshold=0.0)
        )
        vector = next(d for d in mixed.diagnostics if d.route == "vector")
        assert vector.top_score == pytest.approx(0.5 * best + 0.5 * pooled, abs=1e-4)
        stored = [f"{index.state.keys[c]}#{j}" for c, n in held.counts.items() for j in range(n)]
        assert len(first.store.get_vectors(held.vectors.fingerprint, stored)) == len(held)
        made = held.vectors.get(held.ids(sorted(held.counts)))
    # Another server: its own home directory (no index cache), the same store.
    with Home.open(tmp_path / "second", store=store) as second:
        again = second.index("default")
        report = again.sync()
        assert report.passages.passages_encoded == 0
        assert report.passages.reused == len(again.chunks)
        held2 = again.passages
        assert held2 is not None
        assert np.array_equal(held2.vectors.get(held2.ids(sorted(held2.counts))), made)


@pytest.mark.model
def test_passages_follow_removals_and_can_be_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    monkeypatch.setenv("CITEWISE_PASSAGES", "on")
    corpus = _corpus(tmp_path)
    with Home.open(tmp_path / "h") as home:
        assert home.kb().add([corpus]).ok
        index = home.index("default")
        index.sync()
        if index.vectors is None:
            pytest.skip(f"dense route unavailable: {index.dense.reason}")
        held = index.passages
        assert held is not None
        leases = {c.chunk_id for c in index.chunks.values() if c.path == "leases.md"}
        assert leases and leases <= set(held.counts)
        home.kb().delete("leases.md")
        index.sync()
        after = index.passages
        assert after is not None and not leases & set(after.counts)
        assert set(after.counts) == set(index.chunks)
        assert len(after) == sum(after.counts.values())
    with Home.open(tmp_path / "default") as home:  # on by default
        monkeypatch.delenv("CITEWISE_PASSAGES")
        assert home.kb().add([corpus]).ok
        index = home.index("default")
        index.sync()
        assert index.passages is not None and encoder_key(index) == "minilm:p96"
    for value in ("off", "0", "no"):
        monkeypatch.setenv("CITEWISE_PASSAGES", value)
        with Home.open(tmp_path / f"off-{value}") as home:
            assert home.kb().add([corpus]).ok
            index = home.index("default")
            index.sync()
            assert index.passages is None and encoder_key(index) == "minilm"
        qvec = index.embed_query("When does the nightly database backup run?")
        assert qvec is not None
        assert index.search_vectors(qvec, 5) == index.search_vectors(qvec, 5, passages=False)
        assert not list((tmp_path / f"off-{value}").rglob("passages.npz"))


class _WordEncoder:
    """A stand-in encoder: one window per three words, each word a fixed direction
    (the sync's bookkeeping is under test here, not the model)."""

    fingerprint = "words@1#0"
    dim = 8

    def __init__(self) -> None:
        self.encoded = 0

    def passage_windows(self, text: str, width: int, overlap: int) -> list[list[int]]:
        ids = [sum(map(ord, w)) % 8 for w in text.split()]
        return [ids[i : i + 3] for i in range(0, len(ids), 3)] or [[0]]

    def encode_segments(self, segs: list[list[int]]) -> np.ndarray:
        self.encoded += len(segs)
        out = np.zeros((len(segs), 8), dtype=np.float32)
        for r, seg in enumerate(segs):
            for i in seg:
                out[r, i] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_sync_encodes_a_text_once_and_a_new_index_reads_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citewise.index.passages import sync_passages

    monkeypatch.setenv("CITEWISE_PASSAGES", "on")

    texts = {"a": "one two three four five", "b": "one two three four five", "c": "six seven"}
    keys = {"a": "k1", "b": "k1", "c": "k2"}
    emb = _WordEncoder()
    store = SQLiteStore(tmp_path / "s.db")
    try:
        held, report = sync_passages(store, emb, None, texts, texts.__getitem__, keys)
        assert held is not None and held.counts == {"a": 2, "b": 2, "c": 1}
        assert emb.encoded == 3 and report.passages_encoded == 3  # "a" and "b" share a text
        assert np.array_equal(held.vectors.get(["a#1"]), held.vectors.get(["b#1"]))
        fresh = _WordEncoder()  # another server: nothing encoded, all read from the store
        again, report = sync_passages(store, fresh, None, texts, texts.__getitem__, keys)
        assert again is not None and fresh.encoded == 0 and report.reused == 3
        ids = held.ids(["a", "b", "c"])
        assert np.array_equal(again.vectors.get(ids), held.vectors.get(ids))
        # "c" leaves: its passage goes; the rest are kept, nothing encoded
        left = {k: v for k, v in texts.items() if k != "c"}
        after, report = sync_passages(store, fresh, again, left, left.__getitem__, keys)
        assert after is not None and set(after.counts) == {"a", "b"} and len(after) == 4
        assert fresh.encoded == 0 and "c#0" not in after.vectors
        assert "c#0" in again.vectors  # the published state it was built from is untouched
    finally:
        store.close()
