"""The PostgreSQL backend of the :class:`~citewise.store.protocol.Ledger` protocol: the
shared :class:`~citewise.store._ledger.SQLLedger` (same queries and row layout as SQLite)
over the store's pool. Appends run under the global advisory write lock (so ``max(seq) + 1``
is never handed out twice), and triggers refuse any rewrite (see :mod:`.schema`).
"""

from __future__ import annotations

from citewise.store._ledger import SQLLedger, append_entry
from citewise.store.postgres._db import PgConnections, PgTx


class PgLedger(PgTx, SQLLedger):
    def __init__(self, db: PgConnections) -> None:
        self._db = db  # the store's pool: a change and its entries share one transaction


__all__ = ["PgLedger", "append_entry"]
