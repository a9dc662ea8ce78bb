"""The SQLite backend: the shared suite plus file-level behaviour (pragmas, crashes)."""

from __future__ import annotations

import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.errors import StoreError
from citewise.store import adhash
from citewise.store.factory import open_store
from citewise.store.protocol import Store
from citewise.store.sqlite import SCHEMA_VERSION, SQLiteStore
from citewise.testing.docs import make_doc
from citewise.testing.ledger_suite import LedgerSuite
from citewise.testing.store_suite import P1, P2, StoreFactory, StoreSuite


def _raw(store: Store) -> sqlite3.Connection:
    assert isinstance(store, SQLiteStore)
    return sqlite3.connect(store.path, isolation_level=None)


@pytest.fixture
def make_sqlite(tmp_path: Path) -> Iterator[StoreFactory]:
    opened: list[Store] = []
    counter = itertools.count()

    def make() -> Store:
        s = open_store(f"sqlite:{tmp_path}/home{next(counter)}/citewise.db")
        opened.append(s)
        return s

    yield make
    for s in opened:
        s.close()


class TestSQLite(StoreSuite):
    @pytest.fixture
    def make_store(self, make_sqlite: StoreFactory) -> StoreFactory:
        return make_sqlite

    def tamper_node_text(self, store: Store, node_id: str, text: str) -> None:
        with _raw(store) as conn:
            conn.execute("UPDATE node SET text = ? WHERE node_id = ?", (text, node_id))

    def tamper_document_text(self, store: Store, doc_id: str, text: str) -> None:
        with _raw(store) as conn:
            conn.execute("UPDATE content SET text = ? WHERE doc_id = ?", (text, doc_id))


class TestSQLiteLedger(LedgerSuite):
    @pytest.fixture
    def make_store(self, make_sqlite: StoreFactory) -> StoreFactory:
        return make_sqlite


def test_pragmas_are_set(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "citewise.db")
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    store.close()


def test_reopen_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "citewise.db"
    store = SQLiteStore(path)
    store.create_kb("docs")
    raw, parsed = make_doc("docs", "a.md", P1)
    store.ingest_document("docs", "a.md", raw, parsed)
    store.close()
    store = SQLiteStore(path)
    assert store.get_version_content("docs", "a.md", 1)[0] == raw
    assert store.resolve(parsed.nodes[1].id).text == P1[0]
    assert [k.name for k in store.list_kbs()] == ["default", "docs"]
    store.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "citewise.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than"):
        SQLiteStore(path)


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="not a citewise store"):
        SQLiteStore(path)


def test_tampered_raw_bytes_detected(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "citewise.db")
    raw, parsed = make_doc("default", "a.md", P1)
    store.ingest_document("default", "a.md", raw, parsed)
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE version SET raw = ?", (b"tampered",))
    from citewise.errors import CorruptContent

    with pytest.raises(CorruptContent):
        store.get_version_content("default", "a.md", 1)
    store.close()


def test_revision_members_match_hash(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "citewise.db")
    for path, paras in [("a.md", P1), ("b.md", P2), ("a.md", P2)]:
        raw, parsed = make_doc("default", path, paras)
        store.ingest_document("default", path, raw, parsed)
    store.delete_document("default", "b.md")
    for rev in store.list_revisions("default"):
        members = store.revision_members("default", rev.revision)
        assert rev.hash == adhash.multiset_hash((p, s) for p, s, _ in members)
        assert rev.document_count == len(members)
    assert [v for _, _, v in store.revision_members("default", 2)] == [1, 1]
    store.close()


_CRASH_CHILD = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, sys.argv[2])
    from citewise.testing.docs import make_doc
    from citewise.store.sqlite import SQLiteStore
    import citewise.store.sqlite as mod

    store = SQLiteStore(mod.Path(sys.argv[1]))
    store.begin_batch("default")
    for i in range(3):
        raw, parsed = make_doc("default", f"doc{i}.md", [f"Paragraph {i}.", "Second."])
        store.ingest_document("default", f"doc{i}.md", raw, parsed)
    real = store._store_content
    def dying(*args, **kwargs):
        result = real(*args, **kwargs)   # nodes written, version row not yet
        os.kill(os.getpid(), signal.SIGKILL)
        return result
    store._store_content = dying
    raw, parsed = make_doc("default", "doc3.md", ["Paragraph 3.", "Second."])
    store.ingest_document("default", "doc3.md", raw, parsed)
    """
)


@pytest.mark.slow
@pytest.mark.subprocess
def test_sigkill_mid_ingest_leaves_consistent_db(tmp_path: Path) -> None:
    db = tmp_path / "citewise.db"
    proc = subprocess.run(
        [sys.executable, "-c", _CRASH_CHILD, str(db), str(Path(__file__).parents[1])],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    store = SQLiteStore(db)
    assert store.integrity_check() == []
    assert [d.path for d in store.list_documents("default")] == ["doc0.md", "doc1.md", "doc2.md"]
    revs = store.list_revisions("default")
    assert len(revs) == 1 and not revs[0].sealed and revs[0].document_count == 3
    assert store.stats("default")["stored_nodes"] == 9  # no orphan nodes of doc3
    # The next batch seals the stale revision and the same ingest completes.
    store.begin_batch("default")
    assert store.list_revisions("default")[-1].sealed
    raw, parsed = make_doc("default", "doc3.md", ["Paragraph 3.", "Second."])
    assert store.ingest_document("default", "doc3.md", raw, parsed).action == "added"
    rev = store.end_batch("default")
    assert rev is not None and rev.revision == 2 and rev.document_count == 4
    assert rev.hash == adhash.multiset_hash(
        (d.path, d.content_sha256) for d in store.list_documents("default")
    )
    store.close()
    assert os.path.exists(db)


def test_node_helpers(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "citewise.db")
    raw, parsed = make_doc("default", "a.md", P1)
    store.ingest_document("default", "a.md", raw, parsed)
    store.ingest_document("default", "a.md", *make_doc("default", "a.md", P2))
    assert store.nodes_of_version("default", "a.md", 1) == list(parsed.nodes)
    assert store.get_node(parsed.nodes[1].id).text == P1[0]
    store.delete_document("default", "a.md")
    from citewise.errors import VersionNotFound

    with pytest.raises(VersionNotFound):
        store.nodes_of_version("default", "a.md", 3)
    assert store.integrity_check() == []
    store.close()


def test_two_stores_on_one_file_stay_consistent(tmp_path: Path) -> None:
    path = tmp_path / "citewise.db"
    a, b = SQLiteStore(path), SQLiteStore(path)
    a.begin_batch("default")
    a.ingest_document("default", "a.md", *make_doc("default", "a.md", P1))
    b.ingest_document("default", "b.md", *make_doc("default", "b.md", P2))  # own revision
    a.ingest_document("default", "c.md", *make_doc("default", "c.md", P1))
    rev = a.end_batch("default")
    assert rev is not None and rev.revision == 3 and rev.document_count == 3
    assert [r.revision for r in b.list_revisions("default")] == [1, 2, 3]
    assert a.integrity_check() == []
    a.close()
    b.close()


def test_threads_share_one_store(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store = SQLiteStore(tmp_path / "citewise.db")

    def work(i: int) -> str:
        raw, parsed = make_doc("default", f"d{i}.md", [f"Doc {i}.", "Body."])
        store.ingest_document("default", f"d{i}.md", raw, parsed)
        return store.resolve(parsed.nodes[1].id).text

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(work, range(40))) == sorted(f"Doc {i}." for i in range(40))
    assert store.get_kb("default").document_count == 40
    assert store.integrity_check() == []
    store.close()
