"""The toy in-memory backend passes the same store and ledger suites as SQLite, and a whole
home (ingest, search, answer, audit) runs on it: the protocols are the whole contract."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citewise.store.protocol import Ledger, Store
from tests.ledger_suite import LedgerSuite
from tests.memstore import MemStore
from tests.store_suite import StoreFactory, StoreSuite


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
