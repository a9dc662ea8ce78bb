"""Progress for long work: rich bar on a terminal, plain lines otherwise, none in --json."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from rich.console import Console

from citewise.cli import output as ui
from citewise.cli import progress as prog


@pytest.fixture
def err(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    stream = io.StringIO()
    monkeypatch.setattr(ui, "err", Console(file=stream, width=200, highlight=False))
    return stream


def test_plain_lines_when_asked_for(err: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prog, "PLAIN_EVERY", 0.0)
    monkeypatch.setenv("CITEWISE_PROGRESS", "plain")
    with prog.progress("ingest", quiet=False, tty=False) as tick:
        for i in range(1, 4):
            tick(i, 3, None)
        tick(2, 10, "embed")
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("ingest: 1/3 (33%), ")
    assert lines[2].startswith("ingest: 3/3 (100%), ") and lines[2].endswith("/s")
    assert lines[3].startswith("embed: 2/10 (20%)")


def test_short_work_stays_silent(err: io.StringIO) -> None:
    with prog.progress("ingest", quiet=False, display="plain") as tick:
        for i in range(1, 4):
            tick(i, 3, None)
    assert err.getvalue() == ""


def test_json_mode_shows_nothing(err: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prog, "PLAIN_EVERY", 0.0)
    for display in ("bar", "plain"):
        with prog.progress("ingest", quiet=True, display=display) as tick:
            tick(1, 2, None)
            tick(2, 2, "embed")
    assert err.getvalue() == ""


def test_terminal_gets_a_rich_bar_with_counts(
    err: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = io.StringIO()
    console = Console(file=stream, width=120, force_terminal=True)
    monkeypatch.setattr(ui, "err", console)
    with prog.progress("ingest", quiet=False, tty=True) as tick:
        tick(5, 10, None)
        console.file.flush()
    shown = stream.getvalue()
    assert "ingest" in shown and "5/10" in shown


def test_a_stage_reported_once_at_its_end_shows_its_real_rate(
    err: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stage whose first tick is its last is timed from the previous report, so its
    line gives items per second, never 0.0/s."""
    monkeypatch.setattr(prog, "PLAIN_EVERY", 0.0)
    clock = iter([0.0, 1.0, 3.0, 3.0])
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
    with prog.progress("ingest", quiet=False, display="plain") as tick:
        tick(2, 2, None)  # at 1 s
        tick(456, 456, "embed")  # at 3 s: reported once, at its end
    lines = err.getvalue().splitlines()
    assert lines[0] == "ingest: 2/2 (100%), 2.0/s"
    assert lines[1] == "embed: 456/456 (100%), 228.0/s"


def test_rates_never_read_zero() -> None:
    assert prog.rate_text(1, 40.0) == "0.025/s"
    assert prog.rate_text(0, 5.0) == "" and prog.rate_text(3, 0.0) == ""
    assert prog.plain_line("parse", 0, 10, 2.0) == "parse: 0/10 (0%)"


# -- where progress shows (issue 35: quiet when not a terminal unless asked) ---------------
@pytest.mark.parametrize(
    ("value", "tty", "shown"),
    [
        ("", True, "bar"),
        ("", False, "off"),
        ("auto", False, "off"),
        (" Plain ", False, "plain"),
        ("plain", True, "plain"),
        ("off", True, "off"),
    ],
)
def test_display_follows_the_terminal_unless_asked(value: str, tty: bool, shown: str) -> None:
    assert prog.display_for(tty, {"CITEWISE_PROGRESS": value}) == shown


def test_an_unknown_progress_mode_names_the_variable_and_its_values() -> None:
    from citewise.errors import UsageError

    with pytest.raises(UsageError) as got:
        prog.display_for(True, {"CITEWISE_PROGRESS": "verbose"})
    assert "CITEWISE_PROGRESS='verbose'" in got.value.message
    assert "auto, plain, off" in (got.value.hint or "")


def test_piped_progress_is_silent_by_default(
    err: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prog, "PLAIN_EVERY", 0.0)
    monkeypatch.delenv("CITEWISE_PROGRESS", raising=False)
    with prog.progress("ingest", quiet=False, tty=False) as tick:
        for i in range(1, 4):
            tick(i, 3, None)
        tick(5, 5, "embed")
    assert err.getvalue() == ""


def test_each_phase_has_its_own_rate_from_its_own_start() -> None:
    """Per phase (the bar's and the lines' rates): the task's own phase from the task's
    start, a later phase from when the one before it last reported."""
    phases = prog.Phases("ingest", 0.0)
    assert phases.report(2, None, 1.0) == ("ingest", 1.0, "2.0/s")
    assert phases.report(4, None, 2.0) == ("ingest", 2.0, "2.0/s")  # 4 files in 2 s
    assert phases.report(100, "embed", 6.0) == ("embed", 4.0, "25.0/s")  # 4 s since
    assert phases.report(0, "units", 6.5) == ("units", 0.5, "")  # nothing done: no rate
    assert phases.report(1, "units", 46.5) == ("units", 40.5, "0.025/s")


def test_a_cli_ingest_prints_each_phase_with_a_real_rate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``citewise add`` with CITEWISE_PROGRESS=plain, piped: a line per phase, each with a
    rate above zero, and the report after them; without the variable, no progress at all."""
    from typer.testing import CliRunner

    from citewise.cli.root import app

    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(6):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nRotate key {i} every {i + 1} days.\n")
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.setattr(prog, "PLAIN_EVERY", 0.0)

    def run(home: Path, env: dict[str, str]) -> list[str]:
        stream = io.StringIO()
        monkeypatch.setattr(ui, "err", Console(file=stream, width=200, highlight=False))
        result = CliRunner().invoke(app, ["add", str(folder), "--home", str(home)], env=env)
        assert result.exit_code == 0, result.output
        return [ln for ln in stream.getvalue().splitlines() if re.match(r"^\w+: \d+/\d+", ln)]

    lines = run(tmp_path / "h1", {"CITEWISE_PROGRESS": "plain"})
    assert lines and lines[-1].startswith("ingest: 6/6 (100%), ")
    for line in lines:
        done = int(line.split(": ")[1].split("/")[0])
        rate = re.search(r", ([\d.e+-]+)/s$", line)
        assert rate is not None or done == 0, line
        if rate is not None:
            assert float(rate.group(1)) > 0, line
    assert run(tmp_path / "h2", {"CITEWISE_PROGRESS": ""}) == []
