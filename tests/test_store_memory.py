"""The toy in-memory backend passes the same store and ledger suites as SQLite, and a whole
home (ingest, search, answer, audit) runs on it: the protocols are the whole contract."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.audit import checkpoint as cp
from citewise.kb import Home
from citewise.store.factory import DB_NAME
from citewise.store.protocol import Ledger, Store
from citewise.testing.ledger_suite import LedgerSuite
from citewise.testing.store_suite import StoreFactory, StoreSuite
from tests.conftest import EXAMPLES
from tests.memstore import MemStore


@pytest.fixture
def make_mem() -> Iterator[StoreFactory]:
    opened: list[MemStore] = []

    def make() -> Store:
        opened.append(MemStore())
        return opened[-1]

    yield make
    for s in opened:
        s.close()


class TestMemStore(StoreSuite):
    @pytest.fixture
    def make_store(self, make_mem: StoreFactory) -> StoreFactory:
        return make_mem

    def tamper_node_text(self, store: Store, node_id: str, text: str) -> None:
        assert isinstance(store, MemStore)
        store.tamper_node_text(node_id, text)

    def tamper_document_text(self, store: Store, doc_id: str, text: str) -> None:
        assert isinstance(store, MemStore)
        store.tamper_document_text(doc_id, text)


class TestMemLedger(LedgerSuite):
    @pytest.fixture
    def make_store(self, make_mem: StoreFactory) -> StoreFactory:
        return make_mem


def test_memstore_satisfies_the_protocols() -> None:
    store = MemStore()
    assert isinstance(store, Store) and isinstance(store.ledger, Ledger)


QUESTIONS = ["How long are audit logs retained?", "What is the default port?"]


def _run_home(home: Home, corpus: Path) -> list[tuple[object, ...]]:
    kb = home.kb()
    assert kb.add([corpus]).ok
    (corpus / "glossary.md").write_text("# Glossary\n\nA changed glossary.\n", "utf-8")
    assert kb.add([corpus]).ok
    kb.delete("sync-modes.md")
    out: list[tuple[object, ...]] = []
    for q in QUESTIONS:
        hits = kb.search(q)
        pack = kb.evidence(q)
        answer = kb.ask(q)
        cited = tuple((c.id, c.sha256) for c in answer.citations)
        fragments = [f.citation_id for f in pack.fragments]
        out.append((q, [h.citation_id for h in hits.hits], fragments, answer.outcome, cited))
        out.append((answer.replay_id, answer.revision, kb.info().revision))
    return out


def test_a_home_runs_on_the_toy_backend_with_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ingest, change, delete, search, ask and audit through Home.open(store=...): the toy
    backend gives the same hits, outcomes, replay ids and citations as SQLite."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    results = {}
    for name in ("sqlite", "memory"):
        corpus = tmp_path / name / "corpus"
        shutil.copytree(EXAMPLES, corpus)
        store = None if name == "sqlite" else MemStore()
        with Home.open(tmp_path / name / "home", store=store) as home:
            results[name] = _run_home(home, corpus)
            led = home.store.ledger
            types = {e.type for e in led.iter_ledger()}
            assert {"ingest", "delete", "search", "evidence", "answer", "route"} <= types
            report = cp.verify(led, tmp_path / name / "key")
            assert report.ok and home.verify() == []
            if name == "memory":
                assert not (tmp_path / name / "home" / DB_NAME).exists()
    assert results["memory"] == results["sqlite"]
    assert any("answered" in row for row in results["sqlite"])
