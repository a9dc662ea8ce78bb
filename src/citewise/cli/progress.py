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

#: Reports (done, total) to whatever display was chosen.
Tick = Callable[[int, int], None]


def plain_line(label: str, done: int, total: int, elapsed: float) -> str:
    """One plain progress line: ``label: 40/120 files (33%), 12.5 files/s``."""
    rate = done / elapsed if elapsed > 0 else 0.0
    pct = f" ({100 * done // total}%)" if total else ""
    return f"{label}: {done}/{total} files{pct}, {rate:.1f} files/s"


@contextmanager
def progress(label: str, *, quiet: bool, tty: bool | None = None) -> Iterator[Tick]:
    """A ``tick(done, total)`` for one long task. ``quiet`` (``--json``) shows nothing."""
    started = time.perf_counter()
    if quiet:
        yield lambda done, total: None
        return
    if not (sys.stderr.isatty() if tty is None else tty):
        last = [started]
        shown = [False]

        def plain(done: int, total: int) -> None:
            now = time.perf_counter()
            final = bool(total) and done == total and shown[0]  # short work stays silent
            if now - last[0] >= PLAIN_EVERY or final:
                shown[0] = True
                last[0] = now
                ui.err.print(plain_line(label, done, total, now - started), markup=False)

        yield plain
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} files/s"),
        TimeElapsedColumn(),
        console=ui.err,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None, rate="-")

        def rich_tick(done: int, total: int) -> None:
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=done, total=total, rate=f"{rate:.1f}")

        yield rich_tick
