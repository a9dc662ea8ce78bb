"""Dense vectors kept in the store: checks and batching shared by every backend.

Vectors are derived data keyed by ``(encoder fingerprint, text key)`` (the sha256 prefix of
the text the encoder saw), so they belong to no revision and make no ledger entry. Each is
the float32 little-endian bytes of one unit-length row. The first vector stored under a key
is kept (``put`` never replaces one), so every server on one store ranks with the same bytes
and a new server loads what another encoded instead of encoding again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from citewise.errors import UsageError
from citewise.store._txn import SQLiteTx

#: The SQLite table (made by the first write of vectors; PostgreSQL's is its migration 2).
#: An ordinary rowid table: a 1,536-byte vector fits inline in a table b-tree leaf (up to
#: about 4 KB of payload on a 4 KB page), whereas a ``WITHOUT ROWID`` row lives in an index
#: b-tree (about 1 KB inline) and spilled into an overflow page (4.7 KB on disk per row;
#: schema 3 rebuilds such a table: store/_rebuild.py). The key is a separate UNIQUE index,
#: which keeps ``INSERT OR IGNORE`` first-write-wins.
VECTOR_TABLE = """CREATE TABLE IF NOT EXISTS dense_vector (
    fingerprint TEXT NOT NULL,
    text_key    TEXT NOT NULL,
    data        BLOB NOT NULL
)"""
VECTOR_KEY = (
    "CREATE UNIQUE INDEX IF NOT EXISTS dense_vector_key ON dense_vector(fingerprint, text_key)"
)
#: Keys looked up per query (well under SQLite's and PostgreSQL's parameter limits).
LOOKUP_GROUP = 500


def check_vectors(fingerprint: str, vectors: Mapping[str, bytes]) -> list[tuple[str, bytes]]:
    """The ``(text key, bytes)`` rows to store, or UsageError naming the bad one."""
    if not fingerprint:
        raise UsageError(
            "Vectors need the fingerprint of the encoder that made them.",
            hint="Pass the embedder's fingerprint.",
        )
    rows = []
    for key, data in sorted(vectors.items()):
        if not key or not data or len(data) % 4:
            raise UsageError(
                f"Vector for text key {key!r} is not float32 bytes ({len(data)} bytes).",
                hint="Store numpy float32 rows as arr.astype('<f4').tobytes().",
            )
        rows.append((key, bytes(data)))
    return rows


def groups(keys: Sequence[str], size: int = LOOKUP_GROUP) -> Iterator[list[str]]:
    """Distinct ``keys`` in sorted groups of at most ``size``."""
    distinct = sorted(set(keys))
    for i in range(0, len(distinct), size):
        yield distinct[i : i + size]


class SQLiteVectors(SQLiteTx):
    """The vectors of the SQLite store (table ``dense_vector``, :data:`VECTOR_TABLE` with its
    :data:`VECTOR_KEY`: made by the first write of vectors, since it holds derived data)."""

    def get_vectors(self, fingerprint: str, keys: Sequence[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        with self._read() as c:
            if not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'dense_vector'").fetchone():
                return out  # no vector stored yet
            for group in groups(keys):
                marks = ",".join("?" * len(group))
                rows = c.execute(
                    "SELECT text_key, data FROM dense_vector WHERE fingerprint = ? "
                    f"AND text_key IN ({marks})",
                    (fingerprint, *group),
                )
                out.update((str(k), bytes(d)) for k, d in rows)
        return out

    def put_vectors(self, fingerprint: str, vectors: Mapping[str, bytes]) -> None:
        rows = check_vectors(fingerprint, vectors)
        if not rows:
            return
        with self._write() as c:
            c.execute(VECTOR_TABLE)
            c.execute(VECTOR_KEY)
            c.executemany(
                "INSERT OR IGNORE INTO dense_vector(fingerprint, text_key, data) VALUES (?, ?, ?)",
                [(fingerprint, k, d) for k, d in rows],
            )
