"""A throwaway PostgreSQL 15 cluster for the PostgreSQL store tests (session-scoped).

Uses Debian's server binaries (``/usr/lib/postgresql/15/bin``, package ``postgresql-15``;
``CITEWISE_PG_BIN`` overrides the folder): ``initdb`` a cluster under a temp folder, start it
on a free port with its unix socket in that folder and ``fsync=off``, and stop and remove it
at the end of the session. PostgreSQL refuses to run as root, so as root the cluster is
owned and run by the ``postgres`` OS user (created by the Debian package). Where no server
can be started every PostgreSQL test is skipped with the reason (``pytest -rs`` shows it).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("CITEWISE_PG_BIN", "/usr/lib/postgresql/15/bin"))
RUN_AS = "postgres"


@dataclass(frozen=True)
class PgCluster:
    socket_dir: str
    port: int
    user: str

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{self.user}@/{dbname}?host={self.socket_dir}&port={self.port}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _runner() -> tuple[list[str], str]:
    """The command prefix that runs a server binary as a non-root user, and that user."""
    if os.geteuid() != 0:
        return [], pwd.getpwuid(os.geteuid()).pw_name
    try:
        pwd.getpwnam(RUN_AS)
    except KeyError as exc:
        raise RuntimeError(
            f"running as root and there is no {RUN_AS!r} OS user to run PostgreSQL "
            "(install postgresql-15, or create the user)"
        ) from exc
    return ["runuser", "-u", RUN_AS, "--"], RUN_AS


def _start(base: Path, *, durable: bool = False) -> tuple[PgCluster, list[str], Path]:
    """initdb and start a cluster under ``base``. Tests run without fsync (a throwaway
    cluster); ``durable`` keeps PostgreSQL's default fsync and synchronous commit, for
    benchmarks whose figures must hold for a real server."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise RuntimeError("psycopg is not installed (pip install 'citewise[postgres]')") from exc
    if not (PG_BIN / "initdb").exists():
        raise RuntimeError(
            f"no PostgreSQL server binaries in {PG_BIN} (apt-get install postgresql-15)"
        )
    prefix, user = _runner()
    if prefix:
        shutil.chown(base, user=RUN_AS)
    data, sock, log = base / "data", base, base / "server.log"
    run = subprocess.run(
        [
            *prefix,
            str(PG_BIN / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            user,
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if run.returncode != 0:
        raise RuntimeError(f"initdb failed: {run.stderr.strip()[-500:]}")
    port = _free_port()
    opts = f"-p {port} -k {sock} -c listen_addresses='' -c max_connections=100"
    if not durable:
        opts += " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
    run = subprocess.run(
        [
            *prefix,
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(log),
            "-o",
            opts,
            "-w",
            "start",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if run.returncode != 0:
        tail = log.read_text(errors="replace")[-500:] if log.exists() else run.stderr
        raise RuntimeError(f"pg_ctl start failed: {tail.strip()}")
    return PgCluster(str(sock), port, user), prefix, data


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A running throwaway cluster, or a skip naming why there is none."""
    base = Path(tempfile.mkdtemp(prefix="citewise-pg-"))
    os.chmod(base, 0o755)
    try:
        cluster, prefix, data = _start(base)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"PostgreSQL unavailable: {exc}")
    try:
        yield cluster
    finally:
        subprocess.run(
            [*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(base, ignore_errors=True)


_db_numbers = itertools.count()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """The URL of a fresh, empty database in the session's cluster."""
    return pg_cluster.create_database(f"t{os.getpid()}_{next(_db_numbers)}")
