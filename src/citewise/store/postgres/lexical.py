"""Lexical postings in PostgreSQL (issue 37): each chunk's BM25 terms, computed by citewise
at ingest with the tokenization of the in-process index (:mod:`citewise.index.lexical`:
English stemming, literal tokens, CJK bigrams) and stored as one ``chunk_terms`` row per
chunk of a content: the distinct terms (``text[]``, GIN-indexed), their field-weighted term
frequencies (``real[]``) and the chunk's BM25 length, so a server never tokenizes the
corpus nor holds its postings.

Reads give what BM25 needs and nothing else (scoring is :mod:`citewise.index.db_lexical`):

* :meth:`PgLexical.lexical_postings` — for query terms, ``(chunk_id, length, term, tf)``
  of every live chunk holding one of them, found through the GIN index. This candidate set
  is every chunk a term scores in, so document frequencies counted on it are exact;
* :meth:`PgLexical.lexical_stats` — the number of live chunks and the sum of their lengths
  (of a caller's population when given), for the idf and the average length.

"Live" is what :meth:`iter_chunks` reads: the head version of each document, not deleted.
Rows are derived data keyed like ``chunk`` (``content_id``, ``chunk_id``) and written in
the same transaction as the chunk rows; a database made before this migration is filled
once at open (:func:`fill_chunk_terms`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from citewise.analysis.tokenize import content_tokens, literal_tokens
from citewise.store.postgres._db import PgTx

if TYPE_CHECKING:
    import psycopg

    Conn = psycopg.Connection[dict[str, Any]]

#: The heading field's weight baked into stored term frequencies; equal to
#: :data:`citewise.index.lexical.DEFAULT_TITLE_WEIGHT` (a test holds them equal).
TITLE_WEIGHT = 3.0
#: Chunks tokenized per statement when an older database is filled at open.
_FILL_BATCH = 2000

#: Migration 3: the table and its inverted index.
MIGRATION = """
CREATE TABLE chunk_terms (
    content_id BIGINT NOT NULL REFERENCES content(content_id) ON DELETE CASCADE,
    chunk_id   TEXT NOT NULL,
    terms      TEXT[] NOT NULL,
    tfs        REAL[] NOT NULL,
    length     REAL NOT NULL,
    PRIMARY KEY (content_id, chunk_id)
);
CREATE INDEX chunk_terms_by_term ON chunk_terms USING gin (terms);
"""

_LIVE = (
    "FROM document d JOIN version v ON v.vid = d.head_vid "
    "JOIN chunk_terms t ON t.content_id = v.content_id "
    "WHERE d.kb = %s AND v.action != 'deleted'"
)
_INSERT = (
    "INSERT INTO chunk_terms(content_id, chunk_id, terms, tfs, length) "
    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
)


class TermRow(NamedTuple):
    """One chunk's stored terms: distinct terms, their weighted frequencies, BM25 length."""

    terms: list[str]
    tfs: list[float]
    length: float


def term_row(text: str, title: str, title_weight: float = TITLE_WEIGHT) -> TermRow:
    """The terms of a chunk as :meth:`citewise.index.lexical.LexicalIndex.bag_of` counts
    them, summed per distinct term: text tokens weigh 1, heading tokens ``title_weight``;
    literal tokens are terms but not length (they re-view words already counted)."""
    body = content_tokens(text)
    head = content_tokens(title) if title and title_weight > 0 else []
    length = len(body) + title_weight * len(head)
    body += literal_tokens(text)
    if title and title_weight > 0:
        head += literal_tokens(title)
    tfs: dict[str, float] = {}
    for token in body:
        tfs[token] = tfs.get(token, 0.0) + 1.0
    for token in head:
        tfs[token] = tfs.get(token, 0.0) + title_weight
    return TermRow(list(tfs), list(tfs.values()), float(length))


def insert_term_rows(c: Conn, content_id: int, chunks: Sequence[tuple[str, str, str]]) -> None:
    """Store the term rows of ``(chunk_id, search_text, breadcrumb)`` chunks of a content."""
    rows = []
    for chunk_id, text, title in chunks:
        row = term_row(text, title)
        rows.append((content_id, chunk_id, row.terms, row.tfs, row.length))
    with c.cursor() as cur:
        cur.executemany(_INSERT, rows)


def fill_chunk_terms(c: Conn) -> int:
    """Tokenize the chunks that have no term row yet (a database from before migration 3),
    in batches; returns how many were filled. Caller holds the write lock."""
    filled = 0
    while True:
        rows = c.execute(
            "SELECT ch.content_id, ch.chunk_id, ch.search_text, ch.breadcrumb FROM chunk ch "
            "WHERE NOT EXISTS (SELECT 1 FROM chunk_terms t WHERE t.content_id = ch.content_id "
            "AND t.chunk_id = ch.chunk_id) LIMIT %s",
            (_FILL_BATCH,),
        ).fetchall()
        if not rows:
            return filled
        for r in rows:
            insert_term_rows(
                c, r["content_id"], [(r["chunk_id"], r["search_text"], r["breadcrumb"])]
            )
        filled += len(rows)


class Posting(NamedTuple):
    chunk_id: str
    length: float
    term: str
    tf: float


class PgLexical(PgTx):
    """The lexical reads of :class:`~citewise.store.postgres.store.PostgresStore`."""

    #: Statements run by the lexical reads (a test counts them: a server reads no chunk).
    lexical_reads: int = 0

    def lexical_postings(
        self, kb: str, terms: Collection[str], allowed: Collection[str] | None = None
    ) -> list[Posting]:
        """The postings of ``terms`` over the live chunks of ``kb`` (among ``allowed`` chunk
        ids when given): candidates through the GIN index, one row per (chunk, term)."""
        wanted = sorted(set(terms))
        if not wanted:
            return []
        sql = (
            "SELECT t.chunk_id, t.length, p.term, p.tf "
            "FROM document d JOIN version v ON v.vid = d.head_vid "
            "JOIN chunk_terms t ON t.content_id = v.content_id "
            "CROSS JOIN LATERAL unnest(t.terms, t.tfs) AS p(term, tf) "
            "WHERE d.kb = %s AND v.action != 'deleted' AND t.terms && %s::text[] "
            "AND p.term = ANY(%s::text[])"
        )
        args: list[Any] = [kb, wanted, wanted]
        if allowed is not None:
            sql += " AND t.chunk_id = ANY(%s::text[])"
            args.append(list(allowed))
        self.lexical_reads += 1
        with self._read() as c:
            rows = c.execute(sql, args).fetchall()
        return [Posting(r["chunk_id"], float(r["length"]), r["term"], float(r["tf"])) for r in rows]

    def lexical_stats(
        self, kb: str, population: Collection[str] | None = None
    ) -> tuple[int, float]:
        """(number of live chunks, sum of their BM25 lengths) of ``kb``, or of the live
        chunks among ``population``; the sum in float64 (lengths are whole multiples)."""
        sql = f"SELECT count(*) AS n, coalesce(sum(t.length::float8), 0) AS total {_LIVE}"
        args: list[Any] = [kb]
        if population is not None:
            sql += " AND t.chunk_id = ANY(%s::text[])"
            args.append(list(population))
        self.lexical_reads += 1
        with self._read() as c:
            row = c.execute(sql, args).fetchone()
        assert row is not None
        return int(row["n"]), float(row["total"])
