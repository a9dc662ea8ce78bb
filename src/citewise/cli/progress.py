"""Progress for long work: a rich bar with counts and rate on a terminal, a plain line
every few seconds when stderr is not a terminal, and nothing at all in ``--json`` mode."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from citewise.cli import output as ui

#: Seconds between plain progress lines when stderr is not a terminal.
PLAIN_EVERY = 5.0

#: Reports (done, total, stage) to whatever display was chosen (stage: None = the label).
Tick = Callable[[int, int, str | None], None]


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


@contextmanager
def progress(label: str, *, quiet: bool, tty: bool | None = None) -> Iterator[Tick]:
    """A ``tick(done, total)`` for one long task. ``quiet`` (``--json``) shows nothing."""
    started = time.perf_counter()
    if quiet:

        def silent(done: int, total: int, stage: str | None = None) -> None:
            return None

        yield silent
        return
    if not (sys.stderr.isatty() if tty is None else tty):
        last = [started]
        shown = [False]
        stages: dict[str, float] = {}
        ticked = [started]

        def plain(done: int, total: int, stage: str | None = None) -> None:
            now = time.perf_counter()
            # a stage's work began when the one before it last reported (its first tick
            # may already be its last: "embed: 456/456" reported once at the end)
            began = stages.setdefault(stage or label, ticked[0] if stage else started)
            ticked[0] = now
            final = bool(total) and done == total and shown[0]  # short work stays silent
            if now - last[0] >= PLAIN_EVERY or final:
                shown[0] = True
                last[0] = now
                line = plain_line(stage or label, done, total, now - began)
                ui.err.print(line, markup=False)

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
        tasks: dict[str, tuple[TaskID, float]] = {}
        ticked = [started]

        def rich_tick(done: int, total: int, stage: str | None = None) -> None:
            name, now = stage or label, time.perf_counter()
            if name not in tasks:  # began when the stage before it last reported
                tasks[name] = (bar.add_task(name, total=None, rate="-"), ticked[0])
            ticked[0] = now
            task, began = tasks[name]
            rate = rate_text(done, now - began) or "-"
            bar.update(task, completed=done, total=total, rate=rate)

        yield rich_tick
