"""Dense vectors in the PostgreSQL store (table ``dense_vector``, migration 2; see
:mod:`citewise.store._vectors`), and nearest-neighbour search with pgvector's HNSW where the
server has the extension.

Vector writes are derived data: they take no advisory write lock (``ON CONFLICT DO
NOTHING`` keeps the first vector of a key, whichever server wrote it), so encoding on one
server never holds up ingest on another.

pgvector is optional. When the server offers the ``vector`` extension, opening the store
creates it and adds an ``embedding vector`` column (filled from the bytes then and by every
write after), and :meth:`PgVectors.search_vectors` ranks in the database: one partial HNSW
index per encoder (``vector_ip_ops`` on ``embedding::vector(dim)``, built on first use),
queried with pgvector's iterative scan in strict order, so rows the caller may not see are
skipped inside the scan instead of crowding out the ones it may. ``CITEWISE_PGVECTOR=off``
keeps ranking in-process (the column is still kept filled).
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
from collections.abc import Collection, Mapping, Sequence, Set
from typing import TYPE_CHECKING, Any

from citewise.errors import UsageError
from citewise.store._vectors import check_vectors, groups
from citewise.store.postgres._db import PgTx
from citewise.switches import env_switch

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]

#: Rows converted per statement when the embedding column is first filled.
_FILL_BATCH = 2000
#: HNSW candidate list; pgvector's default is 40, and it must be at least the rows asked for.
EF_SEARCH = 100
#: From this many permitted keys a search first scans unfiltered (see ``search_vectors``)...
UNFILTERED_MIN = 10_000
#: ... for this many rows per result wanted.
OVERSCAN = 4


def pgvector_text(data: bytes) -> str:
    """float32 little-endian bytes as pgvector's text form (exact: each value round-trips)."""
    values = struct.unpack(f"<{len(data) // 4}f", data)
    return "[" + ",".join(repr(v) for v in values) + "]"


def version_tuple(text: str) -> tuple[int, ...]:
    """``"0.8.2"`` -> ``(0, 8, 2)`` (non-numeric parts end it)."""
    out: list[int] = []
    for part in text.split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def enable_pgvector(c: Conn) -> bool:
    """Create the extension and the ``embedding`` column where the server offers pgvector
    (caller holds the write lock); True when the column is there."""
    has_column = c.execute(
        "SELECT 1 FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = 'dense_vector' "
        "AND column_name = 'embedding'"
    ).fetchone()
    if has_column:
        return True
    if not c.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
        return False
    import psycopg

    try:
        with c.transaction():  # a savepoint: no privilege to create it is no error
            c.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error:
        return False
    c.execute("ALTER TABLE dense_vector ADD COLUMN embedding vector")
    fill_embeddings(c)
    return True


def fill_embeddings(c: Conn) -> None:
    """Fill the ``embedding`` column of rows stored without it (caller holds the write
    lock): vectors written before the extension was there, or copied in by a migration."""
    while True:
        rows = c.execute(
            "SELECT fingerprint, text_key, data FROM dense_vector WHERE embedding IS NULL LIMIT %s",
            (_FILL_BATCH,),
        ).fetchall()
        if not rows:
            return
        with c.cursor() as cur:
            cur.executemany(
                "UPDATE dense_vector SET embedding = %s::vector "
                "WHERE fingerprint = %s AND text_key = %s",
                [(pgvector_text(r["data"]), r["fingerprint"], r["text_key"]) for r in rows],
            )


#: Memory for building an HNSW index (``$CITEWISE_PG_INDEX_MEMORY`` overrides): a million
#: 384-dimension vectors need about 2.5 GB for the build to stay in memory.
INDEX_MEMORY = "1GB"


def index_build_memory() -> str:
    """``maintenance_work_mem`` for the HNSW build: :data:`INDEX_MEMORY` or the environment's
    (UsageError when it is not a PostgreSQL memory size)."""
    raw = os.environ.get("CITEWISE_PG_INDEX_MEMORY", "").strip() or INDEX_MEMORY
    if not re.fullmatch(r"[1-9][0-9]{0,6}(kB|MB|GB)", raw):
        raise UsageError(
            f"CITEWISE_PG_INDEX_MEMORY={raw!r} is not a memory size PostgreSQL reads.",
            hint="Unset it, or set a size such as 512MB or 4GB.",
        )
    return raw


class PgVectors(PgTx):
    #: Whether the ``embedding`` column exists (set when the store opens).
    _pgvector: bool
    #: Encoders whose HNSW index this store has made sure of.
    _hnsw_ready: set[str]
    _pgvector_version: str | None = None

    def get_vectors(self, fingerprint: str, keys: Sequence[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        with self._read() as c:
            for group in groups(keys):
                rows = c.execute(
                    "SELECT text_key, data FROM dense_vector WHERE fingerprint = %s "
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
            if self._pgvector:
                cur.executemany(
                    "INSERT INTO dense_vector(fingerprint, text_key, data, embedding) "
                    "VALUES (%s, %s, %s, %s::vector) ON CONFLICT DO NOTHING",
                    [(fingerprint, k, d, pgvector_text(d)) for k, d in rows],
                )
            else:
                cur.executemany(
                    "INSERT INTO dense_vector(fingerprint, text_key, data) VALUES (%s, %s, %s) "
                    "ON CONFLICT DO NOTHING",
                    [(fingerprint, k, d) for k, d in rows],
                )

    # -- search in the database (pgvector) ---------------------------------------------
    def vector_search_ready(self) -> bool:
        """Whether :meth:`search_vectors` ranks with pgvector's HNSW here (pgvector 0.8 or
        later: older ones filter after the scan, which could lose permitted rows)."""
        if not self._pgvector or not env_switch("CITEWISE_PGVECTOR", True):
            return False
        if self._pgvector_version is None:
            with self._read() as c:
                row = c.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()
            self._pgvector_version = str(row["extversion"]) if row else ""
        return version_tuple(self._pgvector_version) >= (0, 8)

    def search_vectors(
        self, fingerprint: str, query: bytes, k: int, keys: Collection[str]
    ) -> list[tuple[str, float]]:
        """The ``k`` text keys among ``keys`` whose vectors have the largest inner product
        with ``query`` (float32 bytes), best first, with that product.

        For many keys (at least :data:`UNFILTERED_MIN`) the index is first scanned with no
        filter for :data:`OVERSCAN` times ``k`` rows and those outside ``keys`` dropped here
        (sending and probing a large key array costs more than the scan); when fewer than
        ``k`` remain, the filtered scan runs. Either way the result is the best permitted
        rows the index finds: an unpermitted row only ever takes a candidate's place, never
        a result's. ``keys`` may be a set (or a dict's keys) the caller keeps: it is then
        probed as it is, not copied (at a million keys the copy costs more than the scan)."""
        if k <= 0 or not keys:
            return []
        dim = len(query) // 4
        self._ensure_hnsw(fingerprint, dim)
        q = pgvector_text(query)
        if len(keys) >= UNFILTERED_MIN:
            permitted = keys if isinstance(keys, Set) else set(keys)
            rows = self._scan(fingerprint, dim, q, min(OVERSCAN * k, 1000), None)
            found = [(key, score) for key, score in rows if key in permitted][:k]
            if len(found) == k:
                return found
        return self._scan(fingerprint, dim, q, k, list(keys))

    def _scan(
        self, fingerprint: str, dim: int, q: str, k: int, keys: list[str] | None
    ) -> list[tuple[str, float]]:
        cast = f"vector({dim})"
        where = "" if keys is None else " AND text_key = ANY(%s)"
        args = (q, fingerprint, *(() if keys is None else (keys,)), q, k)
        with self._read() as c:
            c.execute("SET LOCAL hnsw.iterative_scan = strict_order")
            c.execute(f"SET LOCAL hnsw.ef_search = {max(EF_SEARCH, min(k, 1000))}")
            rows = c.execute(
                f"SELECT text_key, (embedding::{cast} <#> %s::{cast}) AS d FROM dense_vector "
                f"WHERE fingerprint = %s{where} "
                f"ORDER BY embedding::{cast} <#> %s::{cast} LIMIT %s",
                args,
            ).fetchall()
        found = [(str(r["text_key"]), -float(r["d"])) for r in rows]
        return sorted(found, key=lambda hit: (-hit[1], hit[0]))

    def _ensure_hnsw(self, fingerprint: str, dim: int) -> None:
        """The partial HNSW index of one encoder (built once, under the write lock, so two
        servers do not both build it)."""
        if fingerprint in self._hnsw_ready:
            return
        from psycopg import sql

        name = "vector_hnsw_" + hashlib.sha256(fingerprint.encode()).hexdigest()[:16]
        memory = index_build_memory()
        with self._write() as c:
            # pgvector builds fast only while the graph fits in this memory; past it the
            # build goes on disk and slows by an order of magnitude (pgvector's README).
            c.execute(f"SET LOCAL maintenance_work_mem = '{memory}'")
            c.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {} ON dense_vector USING hnsw "
                    "((embedding::vector({})) vector_ip_ops) WHERE fingerprint = {}"
                ).format(sql.Identifier(name), sql.Literal(dim), sql.Literal(fingerprint))
            )
        self._hnsw_ready.add(fingerprint)
