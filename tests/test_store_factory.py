"""The store factory: which backend a location names, and Home.open(store=...)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import citewise
from citewise.errors import StoreError, UsageError
from citewise.kb import Home
from citewise.store.factory import DB_NAME, StoreLocation, open_store, parse_location
from tests.memstore import MemStore


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        (Path("h/citewise.db"), StoreLocation("sqlite", "h/citewise.db")),
        ("h/citewise.db", StoreLocation("sqlite", "h/citewise.db")),
        (" sqlite:h/citewise.db ", StoreLocation("sqlite", "h/citewise.db")),
        ("SQLite:/abs/citewise.db", StoreLocation("sqlite", "/abs/citewise.db")),
        ("sqlite:///abs/citewise.db", StoreLocation("sqlite", "/abs/citewise.db")),
        ("C:\\homes\\citewise.db", StoreLocation("sqlite", "C:\\homes\\citewise.db")),
        (
            "postgresql://db.example/citewise",
            StoreLocation("postgresql", "postgresql://db.example/citewise"),
        ),
        ("postgres://db/citewise", StoreLocation("postgresql", "postgres://db/citewise")),
    ],
)
def test_parse_location(location: str | Path, expected: StoreLocation) -> None:
    assert parse_location(location) == expected


@pytest.mark.parametrize(
    ("location", "words"),
    [("", "empty"), ("sqlite:", "names no database"), ("mysql://db/x", "Unknown store scheme")],
)
def test_bad_locations_are_refused_with_a_hint(location: str, words: str) -> None:
    with pytest.raises(StoreError, match=words) as exc:
        parse_location(location)
    assert exc.value.hint


def test_unreachable_postgresql_is_a_store_error_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://me:s3cret@/citewise?host={tmp_path}/nowhere&port=1&connect_timeout=2"
    with pytest.raises(StoreError, match="Cannot connect") as exc:
        open_store(url)
    assert "s3cret" not in str(exc.value) and "server runs" in (exc.value.hint or "")


def test_postgresql_without_psycopg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # makes `import psycopg` fail
    with pytest.raises(UsageError, match="psycopg") as exc:
        open_store("postgresql://localhost/citewise")
    assert "citewise[postgres]" in (exc.value.hint or "")


def test_open_store_sqlite_url_and_path_reach_the_same_file(tmp_path: Path) -> None:
    db = tmp_path / "h" / DB_NAME
    one = open_store(f"sqlite:{db}")
    one.create_kb("docs", "via url")
    one.close()
    two = open_store(db)
    assert two.get_kb("docs").description == "via url"
    two.close()


def test_home_open_default_location_and_given_store(tmp_path: Path) -> None:
    with Home.open(tmp_path / "a") as home:  # today's default: <home>/citewise.db
        home.create_kb("docs")
    assert (tmp_path / "a" / DB_NAME).is_file()
    with Home.open(tmp_path / "b", store=f"sqlite:{tmp_path / 'a' / DB_NAME}") as home:
        assert [k.name for k in home.list_kbs()] == ["default", "docs"]
    assert not (tmp_path / "b" / DB_NAME).exists()
    mem = MemStore()
    with Home.open(tmp_path / "c", store=mem) as home:
        assert home.store is mem and [k.name for k in home.list_kbs()] == ["default"]
    assert not (tmp_path / "c" / DB_NAME).exists()


def test_no_code_outside_store_and_audit_names_a_backend() -> None:
    """The dependency rule of docs/architecture.md: everything else sees the protocols."""
    root = Path(citewise.__file__).parent
    patterns = [
        r"\bSQLite(Store|Ledger|Tx|Reads)\b",
        r"citewise\.store\.(sqlite|_\w+)",
        r"from citewise\.store import .*\b(sqlite|_\w+)\b",
        r"^\s*import sqlite3\b",
    ]
    offenders = [
        f"{path.relative_to(root)}: {pattern}"
        for path in sorted(root.rglob("*.py"))
        if path.relative_to(root).parts[0] not in ("store", "audit")
        # the store migration copies one backend's rows into another: it opens both by name
        and path.relative_to(root).as_posix() != "sync/migrate.py"
        for pattern in patterns
        if re.search(pattern, path.read_text("utf-8"), re.MULTILINE)
    ]
    assert offenders == []
