"""Shared fixtures: real SQLite homes in tmp_path, and a runner for the real CLI.

``make test-fast`` deselects the tests marked ``slow``, ``subprocess``, ``browser`` and
``model``. In such a run the guards below make an unmarked test that starts a process
or loads an embedding model fail with the marker to add, so the fast loop stays fast and
the markers stay true.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.backends import BACKENDS, Backend, make_backend
from tests.pg import pg_cluster  # noqa: F401  (fixture, used by the PostgreSQL backend)

if TYPE_CHECKING:
    from citewise.kb import Home, KnowledgeBase


REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "corpus"
#: What ``make test-fast`` leaves out (markers are registered in pyproject.toml).
FAST_EXCLUDES = ("slow", "subprocess", "browser", "model")


class FastLoopViolation(RuntimeError):
    """An unmarked test did something the fast loop leaves out."""


def _fast_run(config: pytest.Config) -> bool:
    expr = str(config.getoption("markexpr", "") or "")
    return all(f"not {m}" in expr for m in ("subprocess", "model"))


class _GuardedPopen(subprocess.Popen):  # type: ignore[type-arg]
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise FastLoopViolation(
            "This test starts a process: mark it @pytest.mark.subprocess "
            "(make test-fast leaves such tests out)."
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """In a fast run, a test (its fixtures included) may not start a process. The guard
    holds only while a test runs, so the test runner's own processes (pytest-xdist's
    workers, which read the platform through a subprocess) are not refused."""
    if not _fast_run(item.config):
        return (yield)
    plain = subprocess.Popen
    subprocess.Popen = _GuardedPopen  # type: ignore[misc]
    try:
        return (yield)
    finally:
        subprocess.Popen = plain  # type: ignore[misc]


def _guard_models() -> None:
    from citewise.index import minilm, multilingual

    def refuse(*args: object, **kwargs: object) -> None:
        raise FastLoopViolation(
            "This test loads an embedding model: mark it @pytest.mark.model, or turn the "
            "dense route off (CITEWISE_DENSE=off) if the test is not about it."
        )

    minilm.load_minilm = refuse  # type: ignore[assignment]
    multilingual.load_use = refuse  # type: ignore[assignment]


def pytest_configure(config: pytest.Config) -> None:
    if _fast_run(config):
        _guard_models()


@pytest.fixture
def dense_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dense route off (``CITEWISE_DENSE=off``) for this test and the processes it
    starts: for tests about something else, so they never load the embedding model. A
    module takes it for all its tests with ``pytestmark = pytest.mark.usefixtures("dense_off")``."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    from citewise.kb import Home

    h = Home.open(tmp_path / "home")
    yield h
    h.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each store backend in turn (see tests/backends.py)."""
    return make_backend(request)


@pytest.fixture(scope="module", params=BACKENDS)
def module_backend(request: pytest.FixtureRequest) -> Backend:
    """Each store backend in turn, for module-scoped homes."""
    return make_backend(request)


def run_cli(
    *args: str, home: Path, check: bool = False, store: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``citewise`` entry point in a fresh process (on ``store`` when
    given, else the home's own database)."""
    env = dict(os.environ, CITEWISE_HOME=str(home), PYTHONUTF8="1")
    if store:
        env["CITEWISE_STORE"] = store
    proc = subprocess.run(
        [sys.executable, "-c", "from citewise.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"citewise {' '.join(args)} failed: {proc.stderr}")
    return proc


def one_file_kb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, name: str = "guide.md"
) -> KnowledgeBase:
    """A dense-off knowledge base of one Markdown file ``name`` holding ``text``, in a home
    under ``tmp_path`` (the fixture many answer tests need)."""
    from citewise.kb import Home

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / name).write_text(text, encoding="utf-8")
    base = Home.open(tmp_path / "home").kb()
    assert base.add([corpus]).ok
    return base
