"""Citation resolution and integrity checks of the PostgreSQL backend: the shared
:class:`~citewise.store._resolve.SQLResolve` (every text is sliced from the stored document
text and checked against its recorded hashes first). Foreign keys and page checksums are the
server's business, so there are no engine checks of its own."""

from __future__ import annotations

from citewise.store._resolve import SQLResolve
from citewise.store.postgres.lookup import PgLookup


class PgResolve(PgLookup, SQLResolve):
    pass
