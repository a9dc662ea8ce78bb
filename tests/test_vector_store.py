"""Dense vectors live in the store (by encoder fingerprint and text key): a new server,
with an empty index directory, on the same store loads them instead of encoding again.
On each store backend (tests/backends.py)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from citewise.index.vectors import vector_from_bytes, vectors_to_bytes
from citewise.kb import Home
from tests.backends import Backend

DOCS = {
    "ports.md": "# Ports\n\nThe ingest gateway listens on port 7311.\n\n## TLS\n\nCerts rotate.\n",
    "leases.md": "# Leases\n\nA lease lasts thirty seconds and is renewed by the holder.\n",
}


def test_vector_bytes_round_trip_and_damaged_rows_are_refused() -> None:
    vecs = np.array([[0.6, 0.8], [1.0, 0.0]], dtype=np.float32)
    rows = vectors_to_bytes(vecs)
    assert rows[0] == struct.pack("<2f", 0.6, 0.8)
    back = [vector_from_bytes(r, 2) for r in rows]
    assert all(b is not None for b in back)
    assert np.array_equal(np.stack([b for b in back if b is not None]), vecs)
    assert vector_from_bytes(rows[0], 3) is None  # another dimension: encode again
    assert vector_from_bytes(struct.pack("<2f", float("nan"), 0.0), 2) is None


@pytest.mark.model
def test_a_new_server_loads_the_stored_vectors_instead_of_encoding(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "on")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    first_home = tmp_path / "first"
    store = backend.store(first_home) or str(first_home / "citewise.db")
    with Home.open(first_home, store=store) as first:
        assert first.kb().add([corpus]).ok
        index = first.index("default")
        index.sync()
        if index.vectors is None:
            pytest.skip(f"dense route unavailable: {index.dense.reason}")
        ids = sorted(index.chunks)
        made = index.vectors.get(ids)
        hits = [(h.path, h.score) for h in first.kb().search("gateway port", mode="vector").hits]
    # Another server: its own home directory (no index cache), the same store.
    with Home.open(tmp_path / "second", store=store) as second:
        again = second.index("default")
        report = again.sync()
        assert (report.encoded, report.reused) == (0, len(ids))
        assert again.vectors is not None and np.array_equal(again.vectors.get(ids), made)
        got = [(h.path, h.score) for h in second.kb().search("gateway port", mode="vector").hits]
        assert got == hits and got[0][0] == "ports.md"
