"""Progress for long work: rich bar on a terminal, plain lines otherwise, none in --json."""

from __future__ import annotations

import io
import time

import pytest
from rich.console import Console

from citewise.cli import output as ui
from citewise.cli import progress as prog


@pytest.fixture
def err(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    stream = io.StringIO()
    monkeypatch.setattr(ui, "err", Console(file=stream, width=200, highlight=False))
    return stream


def test_plain_lines_when_not_a_terminal(err: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prog, "PLAIN_EVERY", 0.0)
    with prog.progress("ingest", quiet=False, tty=False) as tick:
        for i in range(1, 4):
            tick(i, 3, None)
        tick(2, 10, "embed")
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("ingest: 1/3 (33%), ")
    assert lines[2].startswith("ingest: 3/3 (100%), ") and lines[2].endswith("/s")
    assert lines[3].startswith("embed: 2/10 (20%)")


def test_short_work_stays_silent(err: io.StringIO) -> None:
    with prog.progress("ingest", quiet=False, tty=False) as tick:
        for i in range(1, 4):
            tick(i, 3, None)
    assert err.getvalue() == ""


def test_json_mode_shows_nothing(err: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prog, "PLAIN_EVERY", 0.0)
    for tty in (True, False):
        with prog.progress("ingest", quiet=True, tty=tty) as tick:
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
    with prog.progress("ingest", quiet=False, tty=False) as tick:
        tick(2, 2, None)  # at 1 s
        tick(456, 456, "embed")  # at 3 s: reported once, at its end
    lines = err.getvalue().splitlines()
    assert lines[0] == "ingest: 2/2 (100%), 2.0/s"
    assert lines[1] == "embed: 456/456 (100%), 228.0/s"


def test_rates_never_read_zero() -> None:
    assert prog.rate_text(1, 40.0) == "0.025/s"
    assert prog.rate_text(0, 5.0) == "" and prog.rate_text(3, 0.0) == ""
    assert prog.plain_line("parse", 0, 10, 2.0) == "parse: 0/10 (0%)"
