"""The PostgreSQL backend (psycopg 3): :class:`~citewise.store.postgres.store.PostgresStore`.

Modules: ``schema`` (numbered migrations), ``_db`` (connection, transactions, the advisory
write lock), ``ledger``, ``reads``, ``lookup``, ``resolve``, ``revisions`` and ``store``
(writes). psycopg is imported only when a store is opened; without it
:func:`._db.connect` raises a ``UsageError`` naming the ``postgres`` extra.
"""
