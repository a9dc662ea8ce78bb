"""Progress for long work: one rich bar per phase (files ingested, passages, embed, units)
with counts and items per second on a terminal; when stderr is not a terminal nothing,
unless asked for with ``CITEWISE_PROGRESS=plain`` (a plain line per phase every few
seconds, for logs); nothing at all in ``--json`` mode or with ``CITEWISE_PROGRESS=off``.

Rates are items done over the wall time since the phase began (a phase begins when the
one before it last reported, so a phase reported only at its end still gets its real
rate), never "0.0/s" once an item is done."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Literal

from citewise.cli import output as ui
from citewise.errors import UsageError

#: Seconds between plain progress lines when stderr is not a terminal.
PLAIN_EVERY = 5.0

#: Reports (done, total, stage) to whatever display was chosen (stage: None = the label).
Tick = Callable[[int, int, str | None], None]


#: The variable that asks for progress where it is not shown by default.
MODE_ENV = "CITEWISE_PROGRESS"
#: auto: a bar on a terminal, nothing otherwise; plain: lines, also when piped; off.
MODES = ("auto", "plain", "off")
Display = Literal["bar", "plain", "off"]


def display_for(tty: bool, env: Mapping[str, str] | None = None) -> Display:
    """How progress shows, from ``$CITEWISE_PROGRESS`` and whether stderr is a terminal:
    ``auto`` (the default) a bar on a terminal and nothing when piped, ``plain`` periodic
    lines either way, ``off`` nothing. Another value is a :class:`UsageError` naming the
    variable and its values."""
    raw = (os.environ if env is None else env).get(MODE_ENV, "").strip().lower() or "auto"
    if raw not in MODES:
        raise UsageError(
            f"{MODE_ENV}={raw!r} is not a progress mode.",
            hint=f"Set {MODE_ENV} to one of {', '.join(MODES)} (auto: a bar on a terminal, "
            "nothing when piped; plain: a line every few seconds, also when piped).",
        )
    if raw == "off":
        return "off"
    if raw == "plain":
        return "plain"
    return "bar" if tty else "off"


def rate_text(done: int, elapsed: float) -> str:
    """Items per second, e.g. ``12.5/s`` (``0.25/s`` below one a second so it never reads
    0.0); "" when nothing is done yet or no time has been measured."""
    if done <= 0 or elapsed <= 0:
        return ""
    rate = done / elapsed
    return f"{rate:.1f}/s" if rate >= 1 else f"{rate:.2g}/s"


def plain_line(label: str, done: int, total: int, elapsed: float) -> str:
    """One plain progress line: ``ingest: 40/120 (33%), 12.5/s``."""
    pct = f" ({100 * done // total}%)" if total else ""
    rate = rate_text(done, elapsed)
    return f"{label}: {done}/{total}{pct}" + (f", {rate}" if rate else "")


class Phases:
    """When each phase of one task began, for its rate: the task's own phase (``label``)
    at the task's start, any other when the phase before it last reported (so a phase
    whose first report is its last, "embed: 456/456", is timed over its real work)."""

    def __init__(self, label: str, started: float) -> None:
        self.label = label
        self._began: dict[str, float] = {label: started}
        self._ticked = started

    def report(self, done: int, stage: str | None, now: float) -> tuple[str, float, str]:
        """The phase's name, its elapsed seconds at ``now`` and its rate text."""
        name = stage or self.label
        began = self._began.setdefault(name, self._ticked)
        self._ticked = now
        return name, now - began, rate_text(done, now - began)


def _silent(done: int, total: int, stage: str | None = None) -> None:
    return None


@contextmanager
def progress(
    label: str, *, quiet: bool, tty: bool | None = None, display: Display | None = None
) -> Iterator[Tick]:
    """A ``tick(done, total, stage)`` for one long task (``stage`` None = ``label``).
    ``quiet`` (``--json``) shows nothing; ``display`` overrides :func:`display_for` (which
    reads ``$CITEWISE_PROGRESS`` and whether stderr, or ``tty``, is a terminal)."""
    started = time.perf_counter()
    if display is None:
        display = display_for(sys.stderr.isatty() if tty is None else tty)
    if quiet or display == "off":
        yield _silent
        return
    if display == "plain":
        last = [started]
        shown = [False]
        phases = Phases(label, started)

        def plain(done: int, total: int, stage: str | None = None) -> None:
            now = time.perf_counter()
            name, elapsed, _ = phases.report(done, stage, now)
            final = bool(total) and done == total and shown[0]  # short work stays silent
            if now - last[0] >= PLAIN_EVERY or final:  # throttled: a line every few seconds
                shown[0] = True
                last[0] = now
                ui.err.print(plain_line(name, done, total, elapsed), markup=False)

        yield plain
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=ui.err,
        transient=True,
    ) as bar:
        tasks: dict[str, TaskID] = {}
        phases = Phases(label, started)

        def rich_tick(done: int, total: int, stage: str | None = None) -> None:
            name, _, rate = phases.report(done, stage, time.perf_counter())
            if name not in tasks:  # one bar per phase; rich throttles the redraws
                tasks[name] = bar.add_task(name, total=None, rate="-")
            bar.update(tasks[name], completed=done, total=total, rate=rate or "-")

        yield rich_tick
