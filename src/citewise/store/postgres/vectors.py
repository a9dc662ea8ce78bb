"""Dense vectors in the PostgreSQL store (table ``vector``, migration 2; see
:mod:`citewise.store._vectors`). Vector writes are derived data: they take no advisory
write lock (``ON CONFLICT DO NOTHING`` keeps the first vector of a key, whichever server
wrote it), so encoding on one server never holds up ingest on another."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from citewise.store._vectors import check_vectors, groups
from citewise.store.postgres._db import PgTx


class PgVectors(PgTx):
    def get_vectors(self, fingerprint: str, keys: Sequence[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        with self._read() as c:
            for group in groups(keys):
                rows = c.execute(
                    "SELECT text_key, data FROM vector WHERE fingerprint = %s "
                    "AND text_key = ANY(%s)",
                    (fingerprint, group),
                ).fetchall()
                out.update((str(r["text_key"]), bytes(r["data"])) for r in rows)
        return out

    def put_vectors(self, fingerprint: str, vectors: Mapping[str, bytes]) -> None:
        rows = check_vectors(fingerprint, vectors)
        if not rows:
            return
        with self._txn("BEGIN", "vector write") as c, c.cursor() as cur:
            cur.executemany(
                "INSERT INTO vector(fingerprint, text_key, data) VALUES (%s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(fingerprint, k, d) for k, d in rows],
            )
