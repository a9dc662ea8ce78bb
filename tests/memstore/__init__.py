"""A toy in-memory backend of the Store and Ledger protocols: dicts of immutable rows and a lock.

It exists to prove that ``store/protocol.py`` is the whole contract: it passes the same
store and ledger suites as SQLite, and a :class:`~citewise.kb.Home` runs on it. Each write
works on a copy of the state and swaps it in only when the block ends without an
exception, so a failing write leaves nothing half-way (the SQLite transaction, in dicts).
"""

from tests.memstore.ledger import MemLedger
from tests.memstore.store import MemStore

__all__ = ["MemLedger", "MemStore"]
