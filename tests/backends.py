"""Run a test on each store backend: SQLite (the home's own ``citewise.db``) and PostgreSQL
(a database of its own per home in the session's throwaway cluster, :mod:`tests.pg`).

A test takes the ``backend`` fixture (or ``module_backend``, for module-scoped homes) and is
collected once per backend (``[sqlite]``, ``[postgresql]``). Where PostgreSQL cannot be
started its cases are skipped with the reason (``-ra`` prints it), never silently.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from citewise.kb import Home
    from tests.pg import PgCluster

BACKENDS = ("sqlite", "postgresql")

_numbers = itertools.count()


@dataclass
class Backend:
    """Where the homes of one test run keep their store."""

    name: str
    cluster: PgCluster | None = None
    _urls: dict[str, str] = field(default_factory=dict)

    def store(self, home: Path) -> str | None:
        """The store location of the home at ``home``: None (its own ``citewise.db``) on
        SQLite; on PostgreSQL a database of its own, created the first time it is asked for."""
        if self.cluster is None:
            return None
        key = str(Path(home).resolve())
        if key not in self._urls:
            self._urls[key] = self.cluster.create_database(f"h{os.getpid()}_{next(_numbers)}")
        return self._urls[key]

    def open(self, home: Path) -> Home:
        from citewise.kb import Home

        return Home.open(home, store=self.store(home))

    def env(self, home: Path) -> dict[str, str]:
        """Environment for a ``citewise`` process on this home (``CITEWISE_STORE``)."""
        url = self.store(home)
        return {"CITEWISE_STORE": url} if url else {}


def make_backend(request: pytest.FixtureRequest) -> Backend:
    name = str(request.param)
    if name == "sqlite":
        return Backend(name)
    return Backend(name, request.getfixturevalue("pg_cluster"))  # skips with the reason
