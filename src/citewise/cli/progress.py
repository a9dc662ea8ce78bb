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


def plain_line(label: str, done: int, total: int, elapsed: float) -> str:
    """One plain progress line: ``ingest: 40/120 (33%), 12.5/s``."""
    rate = done / elapsed if elapsed > 0 else 0.0
    pct = f" ({100 * done // total}%)" if total else ""
    return f"{label}: {done}/{total}{pct}, {rate:.1f}/s"


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

        def plain(done: int, total: int, stage: str | None = None) -> None:
            now = time.perf_counter()
            began = stages.setdefault(stage or label, now if stage else started)
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
        TextColumn("{task.fields[rate]}/s"),
        TimeElapsedColumn(),
        console=ui.err,
        transient=True,
    ) as bar:
        tasks: dict[str, tuple[TaskID, float]] = {}

        def rich_tick(done: int, total: int, stage: str | None = None) -> None:
            name = stage or label
            if name not in tasks:
                began = time.perf_counter() if stage else started
                tasks[name] = (bar.add_task(name, total=None, rate="-"), began)
            task, began = tasks[name]
            rate = done / max(time.perf_counter() - began, 1e-9)
            bar.update(task, completed=done, total=total, rate=f"{rate:.1f}")

        yield rich_tick
