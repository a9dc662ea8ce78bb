"""``citewise sync DIR``: make the knowledge base mirror a folder (``--watch`` follows it)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, KbOpt, open_home
from citewise.config import DEFAULT_KB

if TYPE_CHECKING:
    from citewise.sync.folder import StaleAnswer, StaleCitation, SyncFile, SyncReport


def print_sync_report(report: SyncReport, *, verbose: bool = False) -> None:
    """A status table (unchanged rows only with --verbose), the counts and stale answers."""
    from rich.table import Table

    rows = [f for f in report.files if verbose or f.status != "unchanged"]
    if rows:
        t = Table("status", "path", "reason")
        for f in rows:
            reason = f"{f.code}: {f.message}" if f.code else ""
            t.add_row(f.status, f.path, reason)
        ui.out.print(t)
    counts = ", ".join(f"{n} {s}" for s, n in report.counts.items() if n) or "no files"
    if report.dry_run:
        tail = "dry run, nothing written"
    elif report.revision is not None:
        tail = f"revision {report.revision}"
    else:
        tail = "no new revision"
    ui.out.print(f"kb {report.kb} <- {report.folder}: {counts}; {tail}", markup=False)
    for a in report.stale_answers:
        ui.out.print(stale_answer_line(a), markup=False)
    if report.stale_answers:
        ui.out.print("check one with: citewise cite check ANSWER_ID", markup=False)


def stale_answer_line(answer: StaleAnswer) -> str:
    """One line per stale answer: its id, each stale citation (:func:`stale_citation`),
    then the question it answered when the record has it."""
    cited = "; ".join(stale_citation(c) for c in answer.citations)
    cited = cited or ", ".join(answer.stale)  # a report built without per-citation changes
    line = f"stale answer {answer.answer_id} ({len(answer.stale)} citation(s)): {cited}"
    return f"{line}; question: {answer.question}" if answer.question else line


def stale_citation(c: StaleCitation) -> str:
    """``<path> lines 3-4 changed (cited span changed in version 2): "was" -> "now"
    [<id>]``: the document, the cited range and what changed (``deleted`` when the
    document is gone; ``removed`` when the version no longer holds the passage)."""
    lines = f" lines {c.line_start}-{c.line_end}" if c.line_start is not None else ""
    why = f" ({c.reason})" if c.reason else ""
    head = f"{c.path}{lines} {c.change}{why}"
    if c.change == "deleted" or not c.old_text:
        return f"{head} [{c.id}]"
    now = f'"{_short(c.new_text)}"' if c.new_text else "removed"
    return f'{head}: "{_short(c.old_text)}" -> {now} [{c.id}]'


def _short(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut at ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def sync(
    folder: Annotated[Path, typer.Argument(help="The folder to mirror.")],
    kb: KbOpt = DEFAULT_KB,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would change; write nothing.")
    ] = False,
    watch: Annotated[
        bool, typer.Option("--watch", help="Keep following the folder until interrupted.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also list unchanged.")] = False,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Make the current revision mirror FOLDER: new files added, changed files versioned,
    documents that came from FOLDER and are gone deleted (history stays; old citations
    still resolve). Documents added from elsewhere are never deleted. One revision per
    sync. Exits 1 if any file failed."""
    from citewise.cli.progress import progress

    if watch and dry_run:
        from citewise.errors import UsageError

        raise UsageError("--watch and --dry-run do not go together.", hint="Pick one.")
    with open_home(home) as h:
        base = h.kb(kb)
        if watch:
            _watch(base, folder, verbose=verbose, json=json)
            return
        with progress("sync", quiet=json) as tick:
            h.index(kb).progress = lambda stage, done, total: tick(done, total, stage)

            def on_file(result: SyncFile, done: int, total: int) -> None:
                tick(done, total, None)

            report = base.sync(folder, dry_run=dry_run, progress=on_file)
    if json:
        ui.print_json(report)
    else:
        print_sync_report(report, verbose=verbose)
    if not report.ok:
        raise typer.Exit(1)


def _watch(base: object, folder: Path, *, verbose: bool, json: bool) -> None:
    from citewise.kb import KnowledgeBase
    from citewise.sync.watch import watch_folder

    assert isinstance(base, KnowledgeBase)

    def show(report: SyncReport) -> None:
        if json:
            ui.print_json(report)  # one JSON document per settled batch
        else:
            print_sync_report(report, verbose=verbose)
        import sys

        sys.stdout.flush()

    if not json:
        ui.err.print(f"watching {folder} (Ctrl-C to stop)", markup=False)
    # Each batch through KnowledgeBase.sync, so the KB's policy (review, quarantine) holds.
    watch_folder(base.context, folder, show, run=lambda _ctx, root: base.sync(root))


def register(app: typer.Typer) -> None:
    """Add ``sync`` to ``app``."""
    app.command()(sync)
