"""The backend test suites, for anyone writing a store backend.

``citewise.testing.store_suite.StoreSuite`` calls every method of the
:class:`~citewise.store.protocol.Store` protocol and
``citewise.testing.ledger_suite.LedgerSuite`` every method of the ``Ledger``; SQLite,
PostgreSQL and the tests' in-memory toy store each run both. A third-party backend runs
them the same way: subclass the suite in a pytest module and override the ``make_store``
fixture (a factory returning a fresh, empty store each call)::

    from citewise.testing.store_suite import StoreFactory, StoreSuite

    class TestMyStore(StoreSuite):
        @pytest.fixture
        def make_store(self) -> StoreFactory:
            return lambda: MyStore.open_fresh()

The suites need pytest and hypothesis (``pip install 'citewise[testing]'``); this package
imports neither, so importing ``citewise`` never does. ``citewise.testing.docs.make_doc``
builds parsed documents without the real parser.
"""
