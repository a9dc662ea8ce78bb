"""VectorIndex: binary prefilter + int8 rescoring vs exact, authorisation before ranking,
removal, persistence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citewise.index.vectors import VectorIndex, quantize_int8


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _clustered(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """Embedding-like data: points around a few hundred topic centres."""
    centres = _unit(rng, 300, dim)
    v = centres[rng.integers(0, 300, n)] + 0.6 * _unit(rng, n, dim)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def test_int8_codes_keep_inner_products() -> None:
    rng = np.random.default_rng(1)
    v = _unit(rng, 500, 384)
    codes, scale = quantize_int8(v)
    approx = codes.astype(np.float32) * scale[:, None]
    q = _unit(rng, 1, 384)[0]
    assert np.max(np.abs(approx @ q - v @ q)) < 5e-3


def test_binary_int8_recall_vs_exact() -> None:
    rng = np.random.default_rng(7)
    data = _clustered(rng, 8000, 384)
    ids = [f"c{i}" for i in range(len(data))]
    exact = VectorIndex(384, exact_threshold=10**9)
    approx = VectorIndex(384, exact_threshold=0)
    exact.add(ids, data)
    approx.add(ids, data)
    assert exact.exact and not approx.exact
    queries = data[rng.integers(0, len(data), 100)] + 0.3 * _unit(rng, 100, 384)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    recall = []
    for q in queries:
        want = {h.id for h in exact.search(q, 10)}
        got = {h.id for h in approx.search(q, 10)}
        recall.append(len(want & got) / 10)
    assert float(np.mean(recall)) >= 0.9


@pytest.mark.parametrize("threshold", [0, 10**9])
def test_allowed_is_applied_before_truncation(threshold: int) -> None:
    rng = np.random.default_rng(3)
    data = _unit(rng, 3000, 64)
    ids = [f"d{i}" for i in range(3000)]
    idx = VectorIndex(64, exact_threshold=threshold, candidates=50, oversample=2)
    idx.add(ids, data)
    q = data[0]
    top = [h.id for h in idx.search(q, 100)]
    # allow only ids that rank far below the unrestricted top 100
    allowed = {f"d{i}" for i in range(3000)} - set(top)
    allowed = set(sorted(allowed)[:40])
    hits = idx.search(q, 5, allowed=allowed)
    assert len(hits) == 5
    assert {h.id for h in hits} <= allowed
    brute = sorted(allowed, key=lambda i: -float(data[int(i[1:])] @ q))[:5]
    if threshold:
        assert [h.id for h in hits] == brute
    assert idx.search(q, 5, allowed=set()) == []
    assert idx.search(q, 5, allowed={"nope"}) == []


@pytest.mark.parametrize("threshold", [0, 10**9])
def test_removed_ids_never_returned(threshold: int) -> None:
    rng = np.random.default_rng(5)
    data = _unit(rng, 2000, 64)
    ids = [f"x{i}" for i in range(2000)]
    idx = VectorIndex(64, exact_threshold=threshold)
    idx.add(ids, data)
    gone = set(ids[:1500])  # enough to trigger compaction
    assert idx.remove(gone) == 1500
    assert idx.remove(["x0", "unknown"]) == 0
    assert len(idx) == 500
    for q in data[:20]:
        assert not {h.id for h in idx.search(q, 50)} & gone
        assert not {h.id for h in idx.search(q, 50, allowed=set(ids))} & gone
    # re-adding an id replaces it instead of duplicating it
    idx.add(["x1999"], data[:1])
    assert len(idx) == 500
    assert idx.search(data[0], 1)[0].id == "x1999"


@pytest.mark.parametrize("threshold", [0, 10**9])
def test_save_load_round_trip(tmp_path: Path, threshold: int) -> None:
    rng = np.random.default_rng(9)
    data = _unit(rng, 1200, 128)
    ids = [f"p{i}" for i in range(1200)]
    idx = VectorIndex(128, fingerprint="fp-1", exact_threshold=threshold)
    idx.add(ids, data)
    idx.remove(ids[:10])
    path = tmp_path / "vec.npz"
    idx.save(path)
    back = VectorIndex.load(path)
    assert back.fingerprint == "fp-1" and back.dim == 128 and len(back) == 1190
    assert back.exact == idx.exact
    for q in data[10:30]:
        assert back.search(q, 10) == idx.search(q, 10)
    assert "p0" not in back and "p10" in back


def test_shape_and_value_checks() -> None:
    idx = VectorIndex(16)
    with pytest.raises(ValueError):
        idx.add(["a"], np.zeros((1, 8), dtype=np.float32))
    with pytest.raises(ValueError):
        idx.add(["a", "a"], np.ones((2, 16), dtype=np.float32))
    with pytest.raises(ValueError):
        idx.add(["a"], np.full((1, 16), np.nan, dtype=np.float32))
    with pytest.raises(ValueError):
        idx.search(np.ones(8, dtype=np.float32), 3)
    assert idx.search(np.ones(16, dtype=np.float32), 3) == []


@pytest.mark.parametrize("threshold", [0, 10**9])
def test_tombstoned_top_hits_are_skipped(threshold: int) -> None:
    rng = np.random.default_rng(11)
    data = _unit(rng, 3000, 64)
    ids = [f"t{i}" for i in range(3000)]
    idx = VectorIndex(64, exact_threshold=threshold, candidates=20, oversample=2, fraction=0.0)
    idx.add(ids, data)
    q = data[42]
    first = [h.id for h in idx.search(q, 30)]
    assert first[0] == "t42"
    idx.remove(first[:10])  # few removals: tombstones, no compaction
    again = idx.search(q, 30)
    assert len(again) == 30
    assert not {h.id for h in again} & set(first[:10])
    tiny = VectorIndex(64, exact_threshold=threshold, candidates=20)
    tiny.add(ids[:5], data[:5])
    tiny.remove(ids[:3])
    assert {h.id for h in tiny.search(q, 10)} == {"t3", "t4"}


@pytest.mark.parametrize("threshold", [0, 10**9])
def test_get_returns_stored_vectors(threshold: int) -> None:
    rng = np.random.default_rng(13)
    data = _unit(rng, 50, 384)
    idx = VectorIndex(384, exact_threshold=threshold)
    idx.add([f"g{i}" for i in range(50)], data)
    got = idx.get(["g3", "g7"])
    assert got.shape == (2, 384) and got.dtype == np.float32
    assert np.min(np.sum(got * data[[3, 7]], axis=1)) > 0.999
    assert idx.get([]).shape == (0, 384)
    with pytest.raises(KeyError):
        idx.get(["missing"])
