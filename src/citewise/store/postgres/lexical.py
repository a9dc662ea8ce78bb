"""Lexical postings in PostgreSQL (issue 37): each chunk's BM25 terms, computed by citewise
at ingest with the tokenization of the in-process index (:mod:`citewise.index.lexical`:
English stemming, literal tokens, CJK bigrams) and stored as an inverted index:
``term_posting`` rows (term, chunk, field-weighted tf, the chunk's BM25 length) under a
B-tree on the term that covers the other columns, and one ``chunk_length`` row per chunk,
so a server never tokenizes the corpus nor holds its postings. (A first version kept each
chunk's terms as a GIN-indexed ``text[]``; reading whole arrays of half the corpus for a
sentence query made it ten times slower, see docs/scaling.md.)

Reads give what BM25 needs and nothing else (scoring is :mod:`citewise.index.db_lexical`):

* :meth:`PgLexical.lexical_postings` — for query terms, ``(chunk_id, length, term, tf)``
  of every live chunk holding one of them, read through the term index. This candidate set
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
CREATE TABLE chunk_length (
    content_id BIGINT NOT NULL REFERENCES content(content_id) ON DELETE CASCADE,
    chunk_id   TEXT NOT NULL,
    length     REAL NOT NULL,
    PRIMARY KEY (content_id, chunk_id)
);
CREATE TABLE term_posting (
    term       TEXT NOT NULL,
    content_id BIGINT NOT NULL REFERENCES content(content_id) ON DELETE CASCADE,
    chunk_id   TEXT NOT NULL,
    tf         REAL NOT NULL,
    length     REAL NOT NULL
);
CREATE INDEX term_posting_by_term ON term_posting(term) INCLUDE (content_id, chunk_id, tf, length);
"""

_LIVE = (
    "FROM document d JOIN version v ON v.vid = d.head_vid "
    "JOIN chunk_length t ON t.content_id = v.content_id "
    "WHERE d.kb = %s AND v.action != 'deleted'"
)
_COPY_POSTINGS = "COPY term_posting(term, content_id, chunk_id, tf, length) FROM STDIN"
_COPY_LENGTHS = "COPY chunk_length(content_id, chunk_id, length) FROM STDIN"


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
    """Store the lengths and postings of ``(chunk_id, search_text, breadcrumb)`` chunks of a
    content (a repeated chunk id keeps its first row, as the chunk table does)."""
    copy_term_rows(c, [(content_id, *chunk) for chunk in chunks])


def copy_term_rows(c: Conn, chunks: Sequence[tuple[int, str, str, str]]) -> None:
    """:func:`insert_term_rows` for ``(content_id, chunk_id, search_text, breadcrumb)`` of
    any number of contents: two COPY statements (also the bulk loaders' path)."""
    rows: dict[tuple[int, str], TermRow] = {}
    for content_id, chunk_id, text, title in chunks:
        if (content_id, chunk_id) not in rows:
            rows[content_id, chunk_id] = term_row(text, title)
    with c.cursor() as cur:
        with cur.copy(_COPY_LENGTHS) as copy:
            for (content_id, chunk_id), row in rows.items():
                copy.write_row((content_id, chunk_id, row.length))
        with cur.copy(_COPY_POSTINGS) as copy:
            for (content_id, chunk_id), row in rows.items():
                for term, tf in zip(row.terms, row.tfs, strict=True):
                    copy.write_row((term, content_id, chunk_id, tf, row.length))


def fill_chunk_terms(c: Conn) -> int:
    """Tokenize the chunks that have no length row yet (a database from before migration
    3), in batches; returns how many were filled. Caller holds the write lock."""
    filled = 0
    while True:
        rows = c.execute(
            "SELECT ch.content_id, ch.chunk_id, ch.search_text, ch.breadcrumb FROM chunk ch "
            "WHERE NOT EXISTS (SELECT 1 FROM chunk_length t WHERE t.content_id = ch.content_id "
            "AND t.chunk_id = ch.chunk_id) ORDER BY ch.content_id LIMIT %s",
            (_FILL_BATCH,),
        ).fetchall()
        if not rows:
            return filled
        copy_term_rows(
            c, [(r["content_id"], r["chunk_id"], r["search_text"], r["breadcrumb"]) for r in rows]
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
        ids when given): read through the term index, one row per (chunk, term)."""
        wanted = sorted(set(terms))
        if not wanted:
            return []
        sql = (
            "SELECT p.chunk_id, p.length, p.term, p.tf FROM term_posting p "
            "JOIN version v ON v.content_id = p.content_id JOIN document d ON d.head_vid = v.vid "
            "WHERE p.term = ANY(%s::text[]) AND d.kb = %s AND v.action != 'deleted'"
        )
        args: list[Any] = [wanted, kb]
        if allowed is not None:
            sql += " AND p.chunk_id = ANY(%s::text[])"
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
