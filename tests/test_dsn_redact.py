"""Store locations never show their password: every form libpq reads (URI userinfo, query
parameters, key=value conninfo strings), malformed URIs and mistyped schemes; and the
messages that carry a location (a refused scheme, a failed connection) are cleaned too."""

from __future__ import annotations

import traceback
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.errors import StoreError
from citewise.store.dsn import MASK, redact_dsn, redact_text
from citewise.store.factory import open_store, parse_location
from tests.conftest import run_cli

S = "Sup3rSecret"

FORMS = [
    # URI userinfo, well formed and malformed (raw "@", "/", "?", ":" in the password)
    (f"postgresql://alice:{S}@db.example:5432/kb", "postgresql://alice:***@db.example:5432/kb"),
    (f"postgresql://alice:{S}@x@db/kb", "postgresql://alice:***@db/kb"),
    (f"postgresql://alice:{S}/x@db/kb", "postgresql://alice:***@db/kb"),
    (f"postgresql://alice:{S}?x@db/kb", "postgresql://alice:***@db/kb"),
    (f"postgresql://alice:a:{S}@db/kb", "postgresql://alice:***@db/kb"),
    (f"postgresql://alice:{S}/kb", "postgresql://***/kb"),  # "@" forgotten: not a port
    (f"postgresql://alice:{S}@[::1]:5432/kb", "postgresql://alice:***@[::1]:5432/kb"),
    # query parameters, percent-encoded keys and unknown or misspelt ones included
    (f"postgresql://alice@db/kb?password={S}", "postgresql://alice@db/kb?password=***"),
    (
        f"postgresql://db/kb?sslmode=require&sslpassword={S}",
        "postgresql://db/kb?sslmode=require&sslpassword=***",
    ),
    (f"postgresql://db/kb?%70assword={S}", "postgresql://db/kb?%70assword=***"),
    (
        f"postgresql://db/kb?api_key={S}&client_secret={S}",
        "postgresql://db/kb?api_key=***&client_secret=***",
    ),
    (f"postgresql://db/kb?pasword={S}", "postgresql://db/kb?pasword=***"),
    (f"postgresql://db/kb?{S}", "postgresql://db/kb?***"),
    (f"postgresql://db/kb?sslmode=require%20password={S}", "postgresql://db/kb?sslmode=***"),
    (f"postgresql://db/kb password={S}", "postgresql://db/***"),
    # key=value conninfo strings: bare, quoted with spaces and escaped quotes, unterminated
    (f"host=db port=5432 password={S} dbname=kb", "host=db port=5432 password=*** dbname=kb"),
    (f"host=db password = 'a {S} \\' b' user=u", "host=db password=*** user=u"),
    (f"host=db password='{S}", "host=db password=***"),
    (f"host=db sslpassword={S} sslkey=/k", "host=db sslpassword=*** sslkey=***"),
    (f"host=db application_name='x password={S}'", "host=db application_name=***"),
    (f"host=db {S}", "host=db ***"),
    # mistyped schemes
    (f"postgress://alice:{S}@db/kb", "postgress://alice:***@db/kb"),
    (f"postgresql:/alice:{S}@db/kb", "postgresql:/alice:***@db/kb"),
    (f"postgresql:alice:{S}@db/kb", "postgresql:alice:***@db/kb"),
    (f"pg://alice:{S}@db/kb", "pg://alice:***@db/kb"),
]


@pytest.mark.parametrize(("dsn", "shown"), FORMS)
def test_each_form_is_shown_without_its_password(dsn: str, shown: str) -> None:
    assert redact_dsn(dsn) == shown
    assert S not in redact_dsn(dsn) and MASK in shown


@pytest.mark.parametrize(
    "dsn",
    [
        "postgresql://alice@db.example:5432/kb?sslmode=require&connect_timeout=5",
        "postgresql://h1:5432,h2:5433/kb?target_session_attrs=read-write",
        "postgresql://alice@/kb?host=/var/run/postgresql&port=5432",
        "host=db port=5432 dbname=kb user=alice sslmode=verify-full",
        "sqlite:/srv/kb@2/citewise.db",
        "/srv/home/citewise.db",
    ],
)
def test_a_location_without_secrets_is_shown_whole(dsn: str) -> None:
    assert redact_dsn(dsn) == dsn


def _conninfo_quoted(pw: str) -> str:
    return "'" + pw.replace("\\", "\\\\").replace("'", "\\'") + "'"


TEMPLATES = [
    lambda pw: f"postgresql://alice:{quote(pw, safe='')}@db:5432/kb",
    lambda pw: f"postgresql://alice:{pw}@db:5432/kb",  # raw: malformed when it holds @ / ?
    lambda pw: f"postgresql://alice@db/kb?sslmode=require&password={quote(pw, safe='')}",
    lambda pw: f"postgresql://db/kb?sslpassword={pw}",
    lambda pw: f"host=db dbname=kb password={_conninfo_quoted(pw)} user=alice",
    lambda pw: f"postgress://alice:{pw}@db/kb",
    lambda pw: f"postgresql:/alice:{pw}@db/kb",
    lambda pw: f"pg://alice:{quote(pw, safe='')}@db/kb",
]


@settings(max_examples=300, deadline=None)
@given(
    pw=st.text(st.characters(codec="utf-8"), min_size=4, max_size=24),
    form=st.sampled_from(range(len(TEMPLATES))),
)
def test_a_generated_password_never_appears(pw: str, form: int) -> None:
    make = TEMPLATES[form]
    dsn = make(pw)
    shown = redact_dsn(dsn)
    for spelled in {pw, quote(pw, safe="")}:
        if spelled not in make(""):  # the password's text is not also a host or user name
            assert spelled not in shown, (dsn, shown)
    assert redact_text(f"libpq: bad value {pw!r} in {dsn}", dsn).count(pw) <= make("").count(pw)


@pytest.mark.parametrize(
    "dsn",
    [
        f"postgresql://alice:p%zz{S}@db/kb",  # libpq quotes the undecodable password
        f"postgresql://alice:a {S}@db/kb",  # ... and one with a raw space
        f"postgresql:/alice:{S}@db/kb",  # ... and the whole of a location it cannot read
        f"postgress://alice:{S}@db/kb",  # refused by the location parser
        f"pg://alice:{S}@db/kb",
    ],
)
def test_a_failed_open_names_the_store_without_the_password(dsn: str) -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError) as err:
        open_store(dsn)
    whole = "".join(traceback.format_exception(err.value))
    assert S not in whole and "***" in whole, whole


@pytest.mark.parametrize(
    "dsn", [f"host=db password='a {S}' port=x", f"host=db password = {S} = x dbname=kb"]
)
def test_a_failed_conninfo_connection_is_cleaned_too(dsn: str) -> None:
    pytest.importorskip("psycopg")
    from citewise.store.postgres._db import connect

    with pytest.raises(StoreError) as err:
        connect(dsn)
    whole = "".join(traceback.format_exception(err.value))
    assert S not in whole, whole


@pytest.mark.subprocess
def test_the_cli_prints_no_password_of_a_bad_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for dsn in (f"postgress://alice:{S}@db/kb", f"postgresql://alice:p%zz{S}@db/kb"):
        proc = run_cli("kb", "list", home=home, store=dsn)
        assert proc.returncode != 0 and S not in proc.stdout + proc.stderr, proc.stderr


def test_a_conninfo_string_is_postgresql_never_a_file_named_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("psycopg")
    monkeypatch.chdir(tmp_path)
    dsn = f"host={tmp_path / 'no-server'} password={S} dbname=kb"
    assert parse_location(dsn).backend == "postgresql"
    assert parse_location("notes=1.db").backend == "sqlite"  # not a libpq parameter name
    with pytest.raises(StoreError) as err:
        open_store(dsn)
    assert S not in "".join(traceback.format_exception(err.value))
    assert list(tmp_path.iterdir()) == []  # no SQLite file named after the password
