"""``citewise migrate`` takes its column lists from the PostgreSQL store's own schema and
quotes every identifier: a column name in the SQLite file is data, compared and never run.
A source column the schema does not know is an error naming it, and nothing is written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from citewise.errors import StoreError
from citewise.kb import Home
from citewise.store.factory import DB_NAME
from citewise.sync.migrate import copy_columns, source_columns
from citewise.testing.docs import make_doc
from citewise.testing.store_suite import P1
from tests.conftest import run_cli
from tests.pg import PgCluster, pg_cluster, pg_url  # noqa: F401  (fixtures)

#: A column name that, pasted into an INSERT, turns it into a SELECT run as the migrating
#: role (the statement's own parameters feed it; the rest of the line is commented out).
INJECTED = (
    "generation) SELECT $1::text, $2::text || current_user, $3::text, 0 WHERE $4::text IS NULL --"
)


def test_copy_columns_are_the_targets_in_its_order() -> None:
    target = ["name", "description", "created_at", "generation"]
    assert copy_columns("kb", ["created_at", "name", "description"], target) == [
        "name",
        "description",
        "created_at",
    ]  # generation: the target's own, left to its default


@pytest.mark.parametrize("extra", [INJECTED, "notes", 'a"b', "NAME"])
def test_a_source_column_the_schema_lacks_is_an_error_naming_it(extra: str) -> None:
    with pytest.raises(StoreError) as err:
        copy_columns("kb", ["name", "description", extra], ["name", "description", "created_at"])
    assert repr(extra) in str(err.value) and "kb" in str(err.value)
    assert "nothing was copied" in str(err.value) and err.value.hint


def _crafted_store(tmp_path: Path) -> Path:
    with Home.open(tmp_path / "home") as home:
        home.store.ingest_document("default", "a.md", *make_doc("default", "a.md", P1))
    db = tmp_path / "home" / DB_NAME
    with sqlite3.connect(db) as conn:
        conn.execute(f'ALTER TABLE kb ADD COLUMN "{INJECTED}"')
    return db


def test_source_columns_read_the_crafted_name_as_data(tmp_path: Path) -> None:
    conn = sqlite3.connect(_crafted_store(tmp_path))
    try:
        assert source_columns(conn, "kb") == ["name", "description", "created_at", INJECTED]
        assert source_columns(conn, "no_such_table") is None
    finally:
        conn.close()


@pytest.mark.subprocess
def test_a_crafted_column_name_runs_no_sql_and_writes_nothing(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
) -> None:
    psycopg = pytest.importorskip("psycopg")
    from citewise.sync.migrate import migrate_store

    db = _crafted_store(tmp_path)
    with pytest.raises(StoreError, match="nothing was copied") as err:
        migrate_store(f"sqlite:{db}", pg_url)
    assert repr(INJECTED) in str(err.value)
    cli = run_cli("migrate", "--from", f"sqlite:{db}", "--to", pg_url, home=tmp_path / "h2")
    assert cli.returncode != 0 and "nothing was copied" in cli.stderr and "copied" not in cli.stdout
    with psycopg.connect(pg_url) as conn:
        kbs = conn.execute("SELECT name, description FROM kb").fetchall()
        docs = conn.execute("SELECT count(*) FROM document").fetchone()
        ledger = conn.execute("SELECT count(*) FROM ledger").fetchone()
    assert [name for name, _ in kbs] == ["default"]  # the empty store the open made
    assert kbs[0][1] == "The default knowledge base."
    assert docs == (0,) and ledger == (0,)
    with sqlite3.connect(db) as conn:  # without the crafted column the same file copies
        conn.execute(f'ALTER TABLE kb DROP COLUMN "{INJECTED}"')
    report = migrate_store(f"sqlite:{db}", pg_url)
    assert report.rows["document"] == 1 and report.rows["kb"] == 1
