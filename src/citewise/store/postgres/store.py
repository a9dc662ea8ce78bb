"""The PostgreSQL backend of the :class:`~citewise.store.protocol.Store` protocol: the write
side (knowledge bases, batches, revisions, ingest, delete).

``PostgresStore("postgresql://user@host/db")`` opens (and migrates, see :mod:`.schema`) the
database. Every change is one transaction holding the global advisory write lock (see
:mod:`._db`): the version rows, content, nodes, chunks, the revision's multiset hash, the
base's ``generation`` counter and the ledger entries commit together or not at all, and
several servers writing into one database serialise without losing or duplicating a version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citewise.core.records import ParsedDocument
from citewise.store import _convert as cv
from citewise.store._at_revision import SQLRevisionReads
from citewise.store._notes import SQLNotes
from citewise.store._revisions import timestamp
from citewise.store._sql import sql_for
from citewise.store._withhold import SQLWithhold
from citewise.store._writes import DEFAULT_KB, SQLWrites
from citewise.store.postgres import schema
from citewise.store.postgres._db import connect, redact
from citewise.store.postgres.ledger import PgLedger
from citewise.store.postgres.lexical import PgLexical, fill_chunk_terms, insert_term_rows
from citewise.store.postgres.revisions import PgRevisions
from citewise.store.postgres.vectors import PgVectors, enable_pgvector

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]

#: The schema version that added the lexical postings (see :mod:`.lexical`).
LEXICAL_SINCE = 3


class PostgresStore(
    PgRevisions, PgVectors, PgLexical, SQLWrites, SQLRevisionReads, SQLNotes, SQLWithhold
):
    """``PostgresStore(url)``; thread-safe (a pool of connections, see :mod:`._db`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = redact(url)
        self._batches: dict[str, int | None] = {}
        self._hnsw_ready: set[str] = set()
        self._db = connect(url)
        self.ledger = PgLedger(self._db)
        try:
            with self._write() as c:
                if 0 < schema.migrate(c, self.where) < LEXICAL_SINCE:
                    fill_chunk_terms(c)  # chunks stored before the term rows existed
                self._pgvector = enable_pgvector(c)
                c.execute(
                    "INSERT INTO kb(name, description, created_at) VALUES (%s, %s, %s) "
                    "ON CONFLICT (name) DO NOTHING",
                    (DEFAULT_KB, "The default knowledge base.", timestamp()),
                )
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    # -- ingest and delete (store/_writes.py): how this backend stores content -----
    def _store_content(self, c: Conn, doc_id: str, content_sha: str, parsed: ParsedDocument) -> int:
        """The content row of (doc_id, text sha), inserting its text, nodes and chunks once."""
        row = c.execute(
            "SELECT content_id FROM content WHERE doc_id = %s AND content_sha256 = %s",
            (doc_id, content_sha),
        ).fetchone()
        if row is not None:  # same text seen before (e.g. a revert): reuse its nodes
            return int(row["content_id"])
        new = c.execute(
            "INSERT INTO content(doc_id, content_sha256, text, node_count, chunk_count) "
            "VALUES (%s, %s, %s, %s, %s) RETURNING content_id",
            (doc_id, content_sha, parsed.text, len(parsed.nodes), len(parsed.chunks)),
        ).fetchone()
        assert new is not None
        content_id = int(new["content_id"])
        with c.cursor() as cur:
            cur.executemany(
                "INSERT INTO node(content_id, node_id, kind, parent_id, heading_path, ordinal, "
                "line_start, line_end, char_start, char_end, text, search_text, sha256, "
                "clause_path, attrs) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(content_id, *cv.node_values(n)) for n in parsed.nodes],
            )
            cur.executemany(
                "INSERT INTO chunk(content_id, chunk_id, ordinal, node_ids, heading_path, "
                "breadcrumb, search_text, line_start, line_end, char_start, char_end, "
                "word_count) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(content_id, *cv.chunk_values(k)) for k in parsed.chunks],
            )
        insert_term_rows(
            c, content_id, [(k.id, k.search_text, k.breadcrumb) for k in parsed.chunks]
        )
        return content_id

    @staticmethod
    def _insert_id(c: Conn, column: str, sql: str, args: tuple[Any, ...]) -> int:
        row = c.execute(f"{sql_for(c, sql)} RETURNING {column}", args).fetchone()
        assert row is not None
        return int(row[column])
