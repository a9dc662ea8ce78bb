"""Portable SQL for code both backends share (the ledger, citation resolution).

Shared queries are written with ``?`` parameters and standard SQL both engines accept;
:func:`run` turns the parameters into ``%s`` for psycopg. Rows are read by column name
(``sqlite3.Row`` and psycopg's dict rows both allow it), so the row converters of
:mod:`citewise.store._convert` serve both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any


def sql_for(c: Any, sql: str) -> str:
    """``sql`` with its ``?`` parameters in the style of ``c``'s driver."""
    return sql if isinstance(c, sqlite3.Connection) else sql.replace("?", "%s")


def run(c: Any, sql: str, args: Sequence[Any] = ()) -> Any:
    """Execute portable SQL on either backend's connection; returns the cursor."""
    return c.execute(sql_for(c, sql), args)


def marks(n: int) -> str:
    """``?, ?, …`` for an ``IN (…)`` list of ``n`` values."""
    return ", ".join("?" * n)
