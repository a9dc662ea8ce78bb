"""``citewise chat`` with piped stdin, and ``ask --condition/--lineage`` (issue 22)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citewise.kb import Home
from tests.conftest import run_cli

DOC = """# Agent

## Log location

On Windows, the agent writes its log to `C:\\Agent\\agent.log`.
On Linux, the agent writes its log to `/var/log/agent.log`.
"""


@pytest.mark.subprocess
def test_chat_reads_piped_turns_and_shows_the_rewrite(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "agent.md").write_text(DOC, "utf-8")
    home = tmp_path / "home"
    run_cli("add", str(docs), home=home, check=True)
    env = dict(os.environ, CITEWISE_HOME=str(home), PYTHONUTF8="1", CITEWISE_DENSE="off")
    proc = subprocess.run(
        [sys.executable, "-c", "from citewise.cli import main; main()", "chat"],
        input="Where does the agent write its log on Windows?\nAnd on Linux?\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.split("(asked: ")
    assert "C:\\Agent" in first and "/var/log/agent.log" not in first
    assert second.startswith("Where does the agent write its log on Linux?)")
    assert "/var/log/agent.log" in second and "C:\\Agent" not in second
    cid = proc.stdout.split()[1]
    with Home.open(home) as h:
        assert len(h.kb().conversation(cid).turns) == 2

    ask = run_cli(
        "ask", "Where does the agent write its log?", "--condition", "os=linux",
        "--lineage", "task=t-9", home=home,
    )  # fmt: skip
    assert ask.returncode == 0, ask.stderr
    assert "/var/log/agent.log" in ask.stdout and "C:\\Agent" not in ask.stdout
    with Home.open(home) as h:
        event = h.store.ledger.last_event("answer", "default")
        assert event is not None and event.lineage == {"task": "t-9"}
    bad = run_cli("ask", "Where?", "--lineage", "task", home=home)
    assert bad.returncode == 2 and "--lineage 'task' is not KEY=VALUE" in bad.stderr
