"""The PostgreSQL backend: the shared store and ledger suites, migrations, the URL plumbing
and a whole home giving the same results as SQLite. Runs against a throwaway cluster
(tests/pg.py); skipped, with the reason, where PostgreSQL cannot be started."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.audit import checkpoint as cp
from citewise.errors import StoreError
from citewise.kb import Home
from citewise.store import adhash
from citewise.store.factory import DB_NAME, open_store
from citewise.store.protocol import Ledger, Store
from citewise.testing.docs import make_doc
from citewise.testing.ledger_suite import LedgerSuite
from citewise.testing.store_suite import P1, P2, StoreFactory, StoreSuite
from tests.conftest import EXAMPLES, run_cli
from tests.pg import PgCluster, pg_cluster, pg_url  # noqa: F401  (fixtures)
from tests.test_store_memory import _run_home

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (extra 'postgres')")


def _sql(url: str, sql: str, args: tuple[Any, ...] = ()) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql, args)


@pytest.fixture
def make_pg(pg_cluster: PgCluster) -> Iterator[StoreFactory]:  # noqa: F811
    opened: list[Store] = []

    def make() -> Store:
        from tests.pg import _db_numbers

        url = pg_cluster.create_database(f"s{next(_db_numbers)}")
        opened.append(open_store(url))
        return opened[-1]

    yield make
    for s in opened:
        s.close()


@pytest.mark.subprocess  # the session's cluster: initdb and pg_ctl run as processes
class TestPostgres(StoreSuite):
    @pytest.fixture
    def make_store(self, make_pg: StoreFactory) -> StoreFactory:
        return make_pg

    def tamper_node_text(self, store: Store, node_id: str, text: str) -> None:
        _sql(store.url, "UPDATE node SET text = %s WHERE node_id = %s", (text, node_id))  # type: ignore[attr-defined]

    def tamper_document_text(self, store: Store, doc_id: str, text: str) -> None:
        _sql(store.url, "UPDATE content SET text = %s WHERE doc_id = %s", (text, doc_id))  # type: ignore[attr-defined]


@pytest.mark.subprocess
class TestPostgresLedger(LedgerSuite):
    @pytest.fixture
    def make_store(self, make_pg: StoreFactory) -> StoreFactory:
        return make_pg


def test_the_store_satisfies_the_protocols(pg_url: str) -> None:  # noqa: F811
    store = open_store(pg_url)
    assert isinstance(store, Store) and isinstance(store.ledger, Ledger)
    store.close()


def test_migrations_are_recorded_and_rerun_is_a_noop(pg_url: str) -> None:  # noqa: F811
    from citewise.store.postgres.schema import SCHEMA_VERSION

    open_store(pg_url).close()
    store = open_store(pg_url)  # second open: nothing to apply, data kept
    store.create_kb("docs")
    store.close()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
    store = open_store(pg_url)
    assert [k.name for k in store.list_kbs()] == ["default", "docs"]
    store.close()


def test_newer_schema_and_foreign_database_are_refused(pg_cluster: PgCluster) -> None:  # noqa: F811
    newer = pg_cluster.create_database("newer_schema")
    open_store(newer).close()
    _sql(newer, "INSERT INTO schema_version(version) VALUES (999)")
    with pytest.raises(StoreError, match="newer than"):
        open_store(newer)
    foreign = pg_cluster.create_database("foreign_db")
    _sql(foreign, "CREATE TABLE t (x int)")
    with pytest.raises(StoreError, match="not a citewise store"):
        open_store(foreign)


def test_ledger_refuses_rewrites(pg_url: str) -> None:  # noqa: F811
    store = open_store(pg_url)
    store.ingest_document("default", "a.md", *make_doc("default", "a.md", P1))
    store.close()
    for sql in ("UPDATE ledger SET principal = 'x'", "DELETE FROM ledger"):
        with pytest.raises(psycopg.errors.RaiseException, match="never rewritten"):
            _sql(pg_url, sql)


def test_two_stores_on_one_database_stay_consistent(pg_url: str) -> None:  # noqa: F811
    """Two servers' stores writing into one base: revisions interleave, nothing is lost."""
    a, b = open_store(pg_url), open_store(pg_url)
    a.begin_batch("default")
    a.ingest_document("default", "a.md", *make_doc("default", "a.md", P1))
    gen = b.generation("default")
    b.ingest_document("default", "b.md", *make_doc("default", "b.md", P2))  # own revision
    assert a.generation("default") != gen  # a sees b's change before its next search
    a.ingest_document("default", "c.md", *make_doc("default", "c.md", P1))
    rev = a.end_batch("default")
    assert rev is not None and rev.revision == 3 and rev.document_count == 3
    assert [r.revision for r in b.list_revisions("default")] == [1, 2, 3]
    assert rev.hash == adhash.multiset_hash(
        (d.path, d.content_sha256) for d in b.list_documents("default")
    )
    assert [e.seq for e in b.ledger.iter_ledger()] == list(range(a.ledger.ledger_size()))
    assert a.integrity_check() == []
    a.close()
    b.close()


def test_threads_share_one_store(pg_url: str) -> None:  # noqa: F811
    from concurrent.futures import ThreadPoolExecutor

    store = open_store(pg_url)

    def work(i: int) -> str:
        raw, parsed = make_doc("default", f"d{i}.md", [f"Doc {i}.", "Body."])
        store.ingest_document("default", f"d{i}.md", raw, parsed)
        return store.resolve(parsed.nodes[1].id).text

    with ThreadPoolExecutor(4) as pool:
        assert sorted(pool.map(work, range(20))) == sorted(f"Doc {i}." for i in range(20))
    assert store.get_kb("default").document_count == 20
    assert store.integrity_check() == []
    store.close()


def test_a_home_runs_on_postgresql_with_the_same_results(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pg_url: str,  # noqa: F811
) -> None:
    """Ingest, change, delete, search, ask and audit through Home.open(store=URL): the same
    hits, outcomes, replay ids and citations as SQLite, and the audit verifies."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    results = {}
    for name in ("sqlite", "postgresql"):
        corpus = tmp_path / name / "corpus"
        shutil.copytree(EXAMPLES, corpus)
        store = None if name == "sqlite" else pg_url
        with Home.open(tmp_path / name / "home", store=store) as home:
            results[name] = _run_home(home, corpus)
            led = home.store.ledger
            types = {e.type for e in led.iter_ledger()}
            assert {"ingest", "delete", "search", "evidence", "answer", "route"} <= types
            report = cp.verify(led, tmp_path / name / "key")
            assert report.ok and home.verify() == []
        if name == "postgresql":
            assert not (tmp_path / name / "home" / DB_NAME).exists()
    assert results["postgresql"] == results["sqlite"]
    assert any("answered" in row for row in results["sqlite"])


_WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[3])
    from citewise.store.factory import open_store
    from citewise.testing.docs import make_doc

    store = open_store(sys.argv[1])
    me = sys.argv[2]
    names = [f"{me}-{i}.md" for i in range(15)] + [f"shared-{i}.md" for i in range(5)]
    for i, name in enumerate(names):
        if i % 5 == 0:
            store.begin_batch("default")
        raw, parsed = make_doc("default", name, [f"Text of {name}.", "Body."])
        store.ingest_document("default", name, raw, parsed)
        if i % 5 == 4:
            store.end_batch("default")
    store.close()
    """
)


@pytest.mark.subprocess
def test_two_processes_ingesting_into_one_base_lose_and_duplicate_nothing(
    pg_url: str,  # noqa: F811
) -> None:
    open_store(pg_url).close()  # schema first, so the writers race only on documents
    root = str(Path(__file__).parents[1])
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, pg_url, me, root], stderr=subprocess.PIPE)
        for me in ("a", "b")
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    store = open_store(pg_url)
    docs = store.list_documents("default")
    assert len(docs) == 35  # 15 + 15 own files, 5 shared ones once
    for d in docs:  # a shared file is added once; the other writer found it unchanged
        assert [v.version_id for v in store.list_versions("default", d.path)] == [1]
    head = store.list_revisions("default")[-1]
    assert head.document_count == 35
    assert head.hash == adhash.multiset_hash((d.path, d.content_sha256) for d in docs)
    entries = list(store.ledger.iter_ledger())
    assert [e.seq for e in entries] == list(range(len(entries)))
    assert sum(e.type == "ingest" for e in entries) == 35
    revisions = [e.payload["revision"] for e in entries if e.type == "revision"]
    assert revisions == list(range(1, len(store.list_revisions("default")) + 1))
    assert store.integrity_check() == []
    store.close()


def test_cli_store_option_and_environment_select_postgresql(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pg_url: str,  # noqa: F811
) -> None:
    run_cli("--store", pg_url, "kb", "create", "team", home=tmp_path / "h", check=True)
    monkeypatch.setenv("CITEWISE_STORE", pg_url)
    listed = run_cli("kb", "list", "--json", home=tmp_path / "other", check=True)
    assert [k["name"] for k in json.loads(listed.stdout)] == ["default", "team"]
    assert not (tmp_path / "h" / DB_NAME).exists() and not (tmp_path / "other" / DB_NAME).exists()
    monkeypatch.delenv("CITEWISE_STORE")
    local = run_cli("kb", "list", "--json", home=tmp_path / "h", check=True)
    assert [k["name"] for k in json.loads(local.stdout)] == ["default"]  # default: SQLite


def test_migrate_copies_a_home_with_its_history_and_ledger(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pg_cluster: PgCluster,  # noqa: F811
) -> None:
    """A home with changes, a delete, a revert, a second base, answers and a checkpoint is
    copied whole: the same revisions, bytes, citations and Merkle root, and it runs on."""
    from citewise.sync.migrate import migrate_store

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    with Home.open(tmp_path / "home") as home:
        _run_home(home, corpus)
        store = home.store
        store.create_kb("other")
        raw, parsed = make_doc("other", "x.md", P1)
        store.ingest_document("other", "x.md", raw, parsed)
        store.ingest_document("other", "x.md", *make_doc("other", "x.md", P2))
        store.ingest_document("other", "x.md", raw, parsed, restored_from=1)
        cp.make_checkpoint(store.ledger, tmp_path / "key")
        before = {
            "revs": [store.list_revisions(k.name) for k in store.list_kbs()],
            "ledger": list(store.ledger.iter_ledger()),
            "cite": store.resolve(parsed.nodes[1].id),
            "versions": store.list_versions("other", "x.md"),
            "answers": store.ledger.list_answer_bindings(),
        }
    url = pg_cluster.create_database("migrated")
    report = migrate_store(f"sqlite:{tmp_path / 'home' / DB_NAME}", url)
    assert report.rows["ledger"] == len(before["ledger"]) and report.rows["version"] > 10
    with Home.open(tmp_path / "home2", store=url) as home:
        store = home.store
        assert [store.list_revisions(k.name) for k in store.list_kbs()] == before["revs"]
        assert list(store.ledger.iter_ledger()) == before["ledger"]
        assert store.resolve(parsed.nodes[1].id) == before["cite"]
        assert store.list_versions("other", "x.md") == before["versions"]
        assert store.get_version_content("other", "x.md", 1)[0] == raw
        assert store.ledger.list_answer_bindings() == before["answers"]
        assert cp.verify(store.ledger, tmp_path / "key").ok and home.verify() == []
        assert home.kb().search("How long are audit logs retained?").hits  # it runs on
        store.ingest_document("other", "y.md", *make_doc("other", "y.md", P1))
    with pytest.raises(StoreError, match="already holds"):  # never into a used database
        migrate_store(f"sqlite:{tmp_path / 'home' / DB_NAME}", url)


def test_migrate_over_the_cli_reports_the_root(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    with Home.open(tmp_path / "home") as home:
        home.store.ingest_document("default", "a.md", *make_doc("default", "a.md", P1))
    proc = run_cli(
        "migrate",
        "--from",
        f"sqlite:{tmp_path / 'home' / DB_NAME}",
        "--to",
        pg_url,
        "--json",
        home=tmp_path / "home",
        check=True,
    )
    out = json.loads(proc.stdout)
    assert out["rows"]["version"] == 1 and len(out["ledger_root"]) == 64
    bad = run_cli("migrate", "--from", pg_url, "--to", pg_url, home=tmp_path / "home")
    assert bad.returncode != 0 and "SQLite store into PostgreSQL" in bad.stderr


def test_a_second_home_sees_anothers_upload_on_its_next_search(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pg_url: str,  # noqa: F811
) -> None:
    """Two servers' homes on one database: B's in-memory index catches up with A's write
    (through ``generation``) before B's next search, with no restart."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "intro.md").write_text("# Intro\n\nThe catalogue lists every service.\n")
    (second / "ports.md").write_text("# Ports\n\nThe ingest gateway listens on port 7311.\n")
    with Home.open(tmp_path / "a", store=pg_url) as a, Home.open(tmp_path / "b", store=pg_url) as b:
        assert a.kb().add([first]).ok
        assert b.kb().search("catalogue service").hits  # B's index now holds intro.md
        assert not b.kb().search("ingest gateway port").hits
        assert a.kb().add([second]).ok
        hits = b.kb().search("ingest gateway port").hits
        assert [h.path for h in hits][:1] == ["ports.md"]


def test_a_read_is_not_held_up_by_another_threads_open_transaction(pg_url: str) -> None:  # noqa: F811
    """The store's pool: while one thread holds a write transaction open, another thread
    reads on a connection of its own (one shared connection would queue it behind)."""
    import threading

    store = open_store(pg_url)
    read_done = threading.Event()
    seen: list[int] = []

    def reader() -> None:
        seen.append(store.ledger.ledger_size())
        read_done.set()

    with store.ledger.transaction() as w:
        w.append("note", {"text": "uncommitted"})
        thread = threading.Thread(target=reader)
        thread.start()
        assert read_done.wait(60), "the read waited for the other thread's transaction"
        assert store.ledger.ledger_size() == 1  # this thread's own reads join its transaction
    thread.join()
    assert seen == [0]  # the other thread's snapshot had no uncommitted entry
    assert store.ledger.ledger_size() == 1
    store.close()


def test_a_failed_transaction_rolls_back_what_joined_it(pg_url: str) -> None:  # noqa: F811
    store = open_store(pg_url)
    with pytest.raises(RuntimeError), store.ledger.transaction() as w:
        w.append("note", {"text": "rolled back"})
        store.ledger.append_event("note", {"text": "joined, so rolled back too"})
        raise RuntimeError("boom")
    assert store.ledger.ledger_size() == 0
    store.ledger.append_event("note", {"text": "the connection went back clean"})
    assert store.ledger.ledger_size() == 1
    store.close()


def test_pool_size_setting_is_checked(monkeypatch: pytest.MonkeyPatch, pg_url: str) -> None:  # noqa: F811
    from citewise.errors import UsageError

    monkeypatch.setenv("CITEWISE_PG_POOL", "0")
    with pytest.raises(UsageError, match="CITEWISE_PG_POOL"):
        open_store(pg_url)
    monkeypatch.setenv("CITEWISE_PG_POOL", "1")  # one connection still serves a store
    store = open_store(pg_url)
    store.ingest_document("default", "a.md", *make_doc("default", "a.md", P1))
    assert store.get_kb("default").document_count == 1 and store.integrity_check() == []
    store.close()


def test_iter_chunks_is_one_snapshot_read_not_one_per_document(make_pg: StoreFactory) -> None:
    """A fresh server reads every chunk at start-up: one transaction on one pooled
    connection streaming the rows (not a query per document), and a document's chunks
    share one parsed metadata dict (memory per chunk)."""
    store = make_pg()
    for i in range(5):
        raw, parsed = make_doc("default", f"d{i}.md", P1, meta={"tags": [str(i)]})
        store.ingest_document("default", f"d{i}.md", raw, parsed)
    pool = store._db.pool  # type: ignore[attr-defined]
    checkouts: list[int] = []
    real = pool.connection

    def counting(*args: object, **kwargs: object) -> object:
        checkouts.append(1)
        return real(*args, **kwargs)

    pool.connection = counting
    try:
        chunks = list(store.iter_chunks("default"))
    finally:
        pool.connection = real
    assert len({c.path for c in chunks}) == 5 and len(chunks) == 5 * len(
        [c for c in chunks if c.path == "d0.md"]
    )
    assert len(checkouts) == 1
    first = [c for c in chunks if c.path == "d3.md"]
    assert first[0].metadata == {"tags": ["3"]}
    assert all(c.metadata is first[0].metadata for c in first)
