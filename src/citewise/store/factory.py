"""Open a store from a location: the one place that chooses a backend class.

``open_store("path/to/citewise.db")`` or ``open_store("sqlite:path/to/citewise.db")`` opens
the embedded SQLite store (created when missing); ``postgresql://...`` opens the PostgreSQL
backend (:mod:`citewise.store.postgres`, needs the ``postgres`` extra; the database must exist,
its schema is created or upgraded on open). Everything outside ``store/`` and ``audit/`` asks for a
store here (or takes one) and sees only the :class:`~citewise.store.protocol.Store` protocol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from citewise.errors import StoreError
from citewise.store.dsn import is_conninfo, redact_dsn
from citewise.store.protocol import Store
from citewise.store.sqlite import SQLiteStore

#: The store file inside a home directory.
DB_NAME = "citewise.db"

_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")
_POSTGRES = ("postgresql", "postgres")


@dataclass(frozen=True, slots=True)
class StoreLocation:
    backend: Literal["sqlite", "postgresql"]
    target: str  # a file path for SQLite, the URL for PostgreSQL


def parse_location(location: str | Path) -> StoreLocation:
    """Which backend a location names. A ``Path``, or a string without a scheme, is an SQLite
    file; a one-letter "scheme" is a Windows drive, so also a path. A libpq ``key=value``
    string (``host=db dbname=kb``) is PostgreSQL."""
    if isinstance(location, Path):
        return StoreLocation("sqlite", str(location))
    text = location.strip()
    if not text:
        raise StoreError(
            "The store location is empty.",
            hint="Give a file path, sqlite:PATH, or leave it out for the home's citewise.db.",
        )
    m = _SCHEME_RE.match(text)
    if m is None and is_conninfo(text):  # host=... dbname=...: never a file (nor its name)
        return StoreLocation("postgresql", text)
    if m is None:
        return StoreLocation("sqlite", text)
    scheme = m.group(1).lower()
    if scheme == "sqlite":
        path = text[m.end() :]
        if path.startswith("//"):  # sqlite:///abs/path -> /abs/path
            path = path[2:]
        if not path:
            raise StoreError(
                f"{location!r} names no database file.",
                hint="Write sqlite:PATH, e.g. sqlite:./.citewise/citewise.db.",
            )
        return StoreLocation("sqlite", path)
    if scheme in _POSTGRES:
        return StoreLocation("postgresql", text)
    raise StoreError(
        f"Unknown store scheme {scheme!r} in {redact_dsn(text)!r}.",
        hint="Use a file path, sqlite:PATH or postgresql://USER@HOST/DB.",
    )


def open_store(location: str | Path) -> Store:
    """The store at ``location`` (see :func:`parse_location`)."""
    loc = parse_location(location)
    if loc.backend == "postgresql":
        from citewise.store.postgres.store import PostgresStore

        return PostgresStore(loc.target)
    return SQLiteStore(Path(loc.target).expanduser())
