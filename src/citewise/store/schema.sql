-- citewise SQLite schema, version 3 (recorded in PRAGMA user_version).
-- Version 2 added the audit tables at the end (ledger, checkpoint, answer); a version-1
-- store is upgraded by running the statements marked IF NOT EXISTS. Version 3 made node,
-- chunk and the vectors table (dense_vector, made by the first write of vectors:
-- store/_vectors.py) rowid tables keyed by a UNIQUE constraint: their rows (1.5-2 KB)
-- spilled out of a WITHOUT ROWID b-tree into an overflow page each (store/_rebuild.py).
-- The one WITHOUT ROWID table left, revision, has small rows (key, 64-hex hash, count,
-- two timestamps: about 150 bytes), which fit inline.
--
-- History is append-only: a version row is never rewritten except to close its
-- validity interval (rev_removed). A version belongs to revision r of its KB when
-- rev_added <= r < coalesce(rev_removed, infinity); deletion markers are written
-- with an empty interval (rev_removed = rev_added), so membership needs no filter.

CREATE TABLE kb (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

CREATE TABLE revision (
    kb             TEXT NOT NULL REFERENCES kb(name) ON DELETE CASCADE,
    revision       INTEGER NOT NULL CHECK (revision >= 1),
    hash           TEXT NOT NULL,              -- AdHash over membership, 64 hex chars
    document_count INTEGER NOT NULL CHECK (document_count >= 0),
    created_at     TEXT NOT NULL,
    sealed_at      TEXT,                       -- NULL while its batch is open
    PRIMARY KEY (kb, revision)
) WITHOUT ROWID;

CREATE TABLE document (
    doc_id     TEXT PRIMARY KEY,               -- stable_id("d", kb, path)
    kb         TEXT NOT NULL REFERENCES kb(name) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    head_vid   INTEGER,                        -- newest version row (may be a deletion)
    created_at TEXT NOT NULL,
    UNIQUE (kb, path)
);

-- Decoded text and its parse, stored once per (document, content hash): a revert
-- to earlier content reuses the same text, node and chunk rows.
CREATE TABLE content (
    content_id     INTEGER PRIMARY KEY,
    doc_id         TEXT NOT NULL REFERENCES document(doc_id) ON DELETE CASCADE,
    content_sha256 TEXT NOT NULL,
    text           TEXT NOT NULL,
    node_count     INTEGER NOT NULL,
    chunk_count    INTEGER NOT NULL,
    UNIQUE (doc_id, content_sha256)
);

CREATE TABLE version (
    vid            INTEGER PRIMARY KEY,        -- internal, global
    doc_id         TEXT NOT NULL REFERENCES document(doc_id) ON DELETE CASCADE,
    version_no     INTEGER NOT NULL,           -- public version id, 1.. per document
    action         TEXT NOT NULL
                   CHECK (action IN ('added', 'changed', 'reverted', 'deleted')),
    content_id     INTEGER REFERENCES content(content_id),   -- NULL for deletions
    content_sha256 TEXT NOT NULL DEFAULT '',
    raw            BLOB,                       -- exact original bytes; NULL for deletions
    raw_sha256     TEXT NOT NULL DEFAULT '',
    size_bytes     INTEGER NOT NULL DEFAULT 0,
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
    content_id   INTEGER NOT NULL REFERENCES content(content_id) ON DELETE CASCADE,
    node_id      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    parent_id    TEXT,
    heading_path TEXT NOT NULL,                -- JSON array
    ordinal      INTEGER NOT NULL,
    line_start   INTEGER NOT NULL,
    line_end     INTEGER NOT NULL,
    char_start   INTEGER NOT NULL,
    char_end     INTEGER NOT NULL,
    text         TEXT NOT NULL,
    search_text  TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    clause_path  TEXT,
    attrs        TEXT NOT NULL DEFAULT '{}',   -- JSON object
    UNIQUE (content_id, node_id)
);
CREATE INDEX node_by_id ON node(node_id);
CREATE INDEX IF NOT EXISTS node_by_start ON node(content_id, char_start);
CREATE INDEX node_by_clause ON node(clause_path) WHERE clause_path IS NOT NULL;

CREATE TABLE chunk (
    content_id   INTEGER NOT NULL REFERENCES content(content_id) ON DELETE CASCADE,
    chunk_id     TEXT NOT NULL,
    ordinal      INTEGER NOT NULL,
    node_ids     TEXT NOT NULL,                -- JSON array
    heading_path TEXT NOT NULL,                -- JSON array
    breadcrumb   TEXT NOT NULL,
    search_text  TEXT NOT NULL,
    line_start   INTEGER NOT NULL,
    line_end     INTEGER NOT NULL,
    char_start   INTEGER NOT NULL,
    char_end     INTEGER NOT NULL,
    word_count   INTEGER NOT NULL,
    UNIQUE (content_id, chunk_id)
);
CREATE INDEX chunk_by_id ON chunk(chunk_id);

-- Audit (schema version 2). The ledger is append-only: seq is the Merkle leaf index
-- (0..n-1) and entry_hash the RFC 6962 leaf hash of the entry's canonical JSON, kept for
-- convenience only (verification recomputes it). Triggers refuse updates and deletes.
CREATE TABLE IF NOT EXISTS ledger (
    seq        INTEGER PRIMARY KEY CHECK (seq >= 0),
    type       TEXT NOT NULL,
    kb         TEXT,
    principal  TEXT NOT NULL,
    lineage    TEXT NOT NULL DEFAULT '{}',      -- JSON object: session, turn, task, run, trace
    payload    TEXT NOT NULL,                   -- canonical JSON object
    ts         TEXT NOT NULL,
    entry_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ledger_by_type ON ledger(type, kb, seq);
CREATE INDEX IF NOT EXISTS ledger_by_principal ON ledger(principal, ts);
CREATE TRIGGER IF NOT EXISTS ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only');
END;
CREATE TRIGGER IF NOT EXISTS ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only');
END;

-- Signed tree heads; document is the full checkpoint JSON (body, signature, public key).
CREATE TABLE IF NOT EXISTS checkpoint (
    id        INTEGER PRIMARY KEY,
    tree_size INTEGER NOT NULL,
    root_hash TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    key_id    TEXT NOT NULL,
    document  TEXT NOT NULL
);

-- Saved answers, keyed by the answer's trace id; answer_json is the canonical JSON of the
-- full answer with its trace, never rewritten (its sha256 is in the ledger event).
CREATE TABLE IF NOT EXISTS answer (
    answer_id     TEXT PRIMARY KEY,
    kb            TEXT NOT NULL,
    question      TEXT NOT NULL,
    revision      INTEGER NOT NULL,
    revision_hash TEXT NOT NULL,
    replay_id     TEXT NOT NULL,
    outcome       TEXT NOT NULL,
    answer_json   TEXT NOT NULL,
    conditions    TEXT NOT NULL,
    ledger_seq    INTEGER NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS answer_no_update BEFORE UPDATE ON answer
BEGIN
    SELECT RAISE(ABORT, 'saved answers are never rewritten');
END;
