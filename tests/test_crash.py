"""SIGKILL an ingest at random points: the database stays consistent and a re-run completes.

On each store backend (``tests/backends.py``): SQLite, and PostgreSQL, where what is under
test is that a file, its revision bookkeeping and its ledger entries commit together (the
server's own crash safety is PostgreSQL's, so fewer kills there)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citewise.store.protocol import Store
from tests.backends import Backend

#: Kill runs and corpus size per backend.
KILLS = {"sqlite": 20, "postgresql": 8}
FILES = {"sqlite": 120, "postgresql": 40}


def _write_corpus(root: Path, n: int = 120) -> None:
    rng = random.Random(7)
    words = [
        "sync",
        "cursor",
        "replica",
        "lease",
        "retry",
        "backoff",
        "shard",
        "ledger",
        "token",
        "quorum",
    ]
    for i in range(n):
        paras = [" ".join(rng.choices(words, k=60)) + "." for _ in range(6)]
        body = "\n\n".join(paras)
        text = (
            f"---\ntitle: Doc {i}\n---\n# Doc {i}\n\n## Part A\n\n{body}\n\n## Part B\n\n{body}\n"
        )
        (root / f"doc{i:03d}.md").write_text(text, encoding="utf-8")


def _ingest(corpus: Path, home: Path, backend: Backend) -> subprocess.Popen[bytes]:
    code = "from citewise.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, "add", str(corpus), "--home", str(home)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # The store's crash safety is under test; derived vectors are rebuilt on use.
        env=dict(os.environ, CITEWISE_DENSE="off", **backend.env(home)),
    )


def _check_engine(backend: Backend, home: Path) -> None:
    """The database engine's own consistency checks (SQLite's; PostgreSQL's are its WAL)."""
    if backend.name == "sqlite":
        import sqlite3

        con = sqlite3.connect(home / "citewise.db")
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        finally:
            con.close()


def _check_ledger(store: Store) -> None:
    """Gap-free sequence numbers, and every stored leaf hash matches its entry."""
    leaves = list(store.ledger.iter_leaves())
    assert [s for s, *_ in leaves] == list(range(len(leaves)))
    assert all(leaf.hex() == stored for _, leaf, stored, _, _ in leaves)


def _check_consistent(backend: Backend, home: Path) -> None:
    _check_engine(backend, home)
    with backend.open(home) as h:
        assert h.store.integrity_check() == []
        _check_ledger(h.store)
        kb = h.kb()
        for doc in kb.documents():
            # No half document: a stored document has all its nodes and chunks.
            assert doc.node_count > 0 and doc.chunk_count > 0, doc.path
            text = h.store.get_document_text("default", doc.doc_id, doc.version_id)
            assert len(text) > 0


def _started(backend: Backend, home: Path) -> bool:
    return backend.name != "sqlite" or (home / "citewise.db").exists()


@pytest.mark.slow
def test_sigkill_mid_ingest_leaves_consistent_db(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    kills, files = KILLS[backend.name], FILES[backend.name]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _write_corpus(corpus, files)
    # Time one full ingest in a subprocess, so kill points land inside the ingest.
    timed = tmp_path / "timed"
    started = time.perf_counter()
    assert _ingest(corpus, timed, backend).wait(timeout=300) == 0
    full = time.perf_counter() - started
    home = tmp_path / "home"
    rng = random.Random(1234)
    killed = attempts = 0
    while killed < kills and attempts < 3 * kills:
        attempts += 1
        # Change every file, so each run has a whole corpus of work to do.
        for path in sorted(corpus.iterdir()):
            path.write_text(path.read_text(encoding="utf-8") + f"\nRun {attempts}.\n", "utf-8")
        proc = _ingest(corpus, home, backend)
        time.sleep(rng.uniform(0.2, full))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait()
        if _started(backend, home):
            _check_consistent(backend, home)
    assert killed >= kills, f"only {killed} of {attempts} runs were killed mid-ingest"
    # Re-running the same add completes, and the corpus matches a clean ingest of it.
    with Backend("sqlite").open(tmp_path / "clean") as h:
        assert h.kb().add([corpus]).ok
        expected = h.kb().revisions()[-1]
    final = _ingest(corpus, home, backend)
    assert final.wait(timeout=300) == 0
    _check_consistent(backend, home)
    with backend.open(home) as h:
        got = h.kb().revisions()[-1]
        assert got.hash == expected.hash
        assert got.document_count == expected.document_count == files
