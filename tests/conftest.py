"""Shared fixtures: real SQLite homes in tmp_path, and a runner for the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from citewise.kb import Home


REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "corpus"


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    from citewise.kb import Home

    h = Home.open(tmp_path / "home")
    yield h
    h.close()


def run_cli(*args: str, home: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the installed ``citewise`` entry point in a fresh process."""
    env = dict(os.environ, CITEWISE_HOME=str(home), PYTHONUTF8="1")
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
