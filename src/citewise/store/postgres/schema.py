"""The PostgreSQL schema, created and upgraded by numbered migrations.

``schema_version`` holds one row per applied migration; :func:`migrate` applies the missing
ones in order inside the caller's transaction (under the store's advisory lock, so two
servers opening one new database do not both create it). Migration 1 is the full schema: the
same concepts as the SQLite store (``store/schema.sql``): versions with their exact bytes
and validity interval in revisions, revisions with their multiset hash, content, nodes,
chunks, and the append-only ledger with checkpoints and saved answers. Timestamps and JSON
are stored as text, exactly as SQLite stores them, so both backends hash and print the same.
``kb.generation`` is the counter each change bumps in its transaction (read by
:meth:`~citewise.store.protocol.Store.generation`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citewise.errors import StoreError
from citewise.store.postgres.lexical import MIGRATION as LEXICAL_MIGRATION

if TYPE_CHECKING:
    import psycopg

_M1 = """
CREATE TABLE kb (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    generation  BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE revision (
    kb             TEXT NOT NULL REFERENCES kb(name) ON DELETE CASCADE,
    revision       INTEGER NOT NULL CHECK (revision >= 1),
    hash           TEXT NOT NULL,
    document_count INTEGER NOT NULL CHECK (document_count >= 0),
    created_at     TEXT NOT NULL,
    sealed_at      TEXT,
    PRIMARY KEY (kb, revision)
);
CREATE TABLE document (
    doc_id     TEXT PRIMARY KEY,
    kb         TEXT NOT NULL REFERENCES kb(name) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    head_vid   BIGINT,
    created_at TEXT NOT NULL,
    UNIQUE (kb, path)
);
CREATE TABLE content (
    content_id     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_id         TEXT NOT NULL REFERENCES document(doc_id) ON DELETE CASCADE,
    content_sha256 TEXT NOT NULL,
    text           TEXT NOT NULL,
    node_count     INTEGER NOT NULL,
    chunk_count    INTEGER NOT NULL,
    UNIQUE (doc_id, content_sha256)
);
CREATE TABLE version (
    vid            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_id         TEXT NOT NULL REFERENCES document(doc_id) ON DELETE CASCADE,
    version_no     INTEGER NOT NULL,
    action         TEXT NOT NULL
                   CHECK (action IN ('added', 'changed', 'reverted', 'deleted')),
    content_id     BIGINT REFERENCES content(content_id) ON DELETE CASCADE,
    content_sha256 TEXT NOT NULL DEFAULT '',
    raw            BYTEA,
    raw_sha256     TEXT NOT NULL DEFAULT '',
    size_bytes     BIGINT NOT NULL DEFAULT 0,
    format         TEXT NOT NULL DEFAULT '',
    title          TEXT NOT NULL DEFAULT '',
    metadata_json  TEXT NOT NULL DEFAULT '{}',
    source         TEXT NOT NULL DEFAULT '',
    restored_from  INTEGER,
    rev_added      INTEGER NOT NULL,
    rev_removed    INTEGER,
    created_at     TEXT NOT NULL,
    UNIQUE (doc_id, version_no)
);
CREATE INDEX version_by_content ON version(content_id);
CREATE TABLE node (
    content_id   BIGINT NOT NULL REFERENCES content(content_id) ON DELETE CASCADE,
    node_id      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    parent_id    TEXT,
    heading_path TEXT NOT NULL,
    ordinal      INTEGER NOT NULL,
    line_start   INTEGER NOT NULL,
    line_end     INTEGER NOT NULL,
    char_start   INTEGER NOT NULL,
    char_end     INTEGER NOT NULL,
    text         TEXT NOT NULL,
    search_text  TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    clause_path  TEXT,
    attrs        TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (content_id, node_id)
);
CREATE INDEX node_by_id ON node(node_id);
CREATE INDEX node_by_start ON node(content_id, char_start);
CREATE INDEX node_by_clause ON node(clause_path) WHERE clause_path IS NOT NULL;
CREATE TABLE chunk (
    content_id   BIGINT NOT NULL REFERENCES content(content_id) ON DELETE CASCADE,
    chunk_id     TEXT NOT NULL,
    ordinal      INTEGER NOT NULL,
    node_ids     TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    breadcrumb   TEXT NOT NULL,
    search_text  TEXT NOT NULL,
    line_start   INTEGER NOT NULL,
    line_end     INTEGER NOT NULL,
    char_start   INTEGER NOT NULL,
    char_end     INTEGER NOT NULL,
    word_count   INTEGER NOT NULL,
    PRIMARY KEY (content_id, chunk_id)
);
CREATE INDEX chunk_by_id ON chunk(chunk_id);
CREATE TABLE ledger (
    seq        BIGINT PRIMARY KEY CHECK (seq >= 0),
    type       TEXT NOT NULL,
    kb         TEXT,
    principal  TEXT NOT NULL,
    lineage    TEXT NOT NULL DEFAULT '{}',
    payload    TEXT NOT NULL,
    ts         TEXT NOT NULL,
    entry_hash TEXT NOT NULL
);
CREATE INDEX ledger_by_type ON ledger(type, kb, seq);
CREATE INDEX ledger_by_principal ON ledger(principal, ts);
CREATE FUNCTION citewise_refuse_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'citewise: % rows are never rewritten', TG_TABLE_NAME;
END $$;
CREATE TRIGGER ledger_no_rewrite BEFORE UPDATE OR DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION citewise_refuse_rewrite();
CREATE TABLE checkpoint (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tree_size BIGINT NOT NULL,
    root_hash TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    key_id    TEXT NOT NULL,
    document  TEXT NOT NULL
);
CREATE TABLE answer (
    answer_id     TEXT PRIMARY KEY,
    kb            TEXT NOT NULL,
    question      TEXT NOT NULL,
    revision      INTEGER NOT NULL,
    revision_hash TEXT NOT NULL,
    replay_id     TEXT NOT NULL,
    outcome       TEXT NOT NULL,
    answer_json   TEXT NOT NULL,
    conditions    TEXT NOT NULL,
    ledger_seq    BIGINT NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE TRIGGER answer_no_rewrite BEFORE UPDATE ON answer
    FOR EACH ROW EXECUTE FUNCTION citewise_refuse_rewrite();
"""

#: Dense vectors by encoder fingerprint and text key (derived data, see store/_vectors.py).
_M2 = """
CREATE TABLE dense_vector (
    fingerprint TEXT NOT NULL,
    text_key    TEXT NOT NULL,
    data        BYTEA NOT NULL,
    PRIMARY KEY (fingerprint, text_key)
);
"""

#: Each chunk's BM25 terms for lexical retrieval in the database (store/postgres/lexical.py).
_M3 = LEXICAL_MIGRATION

#: Migration n is ``MIGRATIONS[n - 1]``; append new ones, never edit an applied one.
MIGRATIONS: tuple[str, ...] = (_M1, _M2, _M3)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(c: psycopg.Connection[Any], where: str) -> int:
    """Bring the database to :data:`SCHEMA_VERSION` (caller holds the write lock); returns
    the version it had before (0: a new database)."""
    has_table = c.execute("SELECT to_regclass('schema_version') IS NOT NULL AS ok").fetchone()
    if has_table is None or not has_table["ok"]:
        foreign = c.execute(
            "SELECT count(*) AS n FROM pg_tables WHERE schemaname = current_schema()"
        ).fetchone()
        if foreign is not None and foreign["n"]:
            raise StoreError(
                f"{where} is a PostgreSQL database but not a citewise store.",
                hint="Point citewise at an empty database (createdb citewise).",
            )
        c.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
    row = c.execute("SELECT coalesce(max(version), 0) AS v FROM schema_version").fetchone()
    current = 0 if row is None else int(row["v"])
    if current > SCHEMA_VERSION:
        raise StoreError(
            f"The store at {where} has schema version {current}, newer than this citewise "
            f"supports ({SCHEMA_VERSION}).",
            hint="Upgrade citewise to open it; it was not modified.",
        )
    for number in range(current + 1, SCHEMA_VERSION + 1):
        c.execute(MIGRATIONS[number - 1])
        c.execute(
            "INSERT INTO schema_version(version, applied_at) VALUES (%s, now()::text)", (number,)
        )
    return current
