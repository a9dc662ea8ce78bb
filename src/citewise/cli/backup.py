"""``citewise backup PATH`` and ``citewise restore PATH`` (issue 38; ``register(app)``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, chosen_store, open_home


def backup(
    path: Annotated[Path, typer.Argument(help="The archive to write (.tar, or .tar.gz).")],
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Write one archive of the home's store (every knowledge base with its history, the
    ledger, the stored vectors) and its governance files (policies, review queues,
    conflict records) with a manifest of the hashes a restore checks."""
    from citewise.sync.backup import backup as run

    with open_home(home) as h:
        report = run(h.store, path, h.settings.home)
    if json:
        ui.print_json({"path": report.path, "manifest": report.manifest})
        return
    m = report.manifest
    revs = sum(len(r) for r in m["knowledge_bases"].values())
    ui.out.print(
        f"wrote {report.path}: {len(m['knowledge_bases'])} knowledge base(s), {revs} "
        f"revision(s), ledger {m['ledger']['size']} entries, root {m['ledger']['root']}",
        markup=False,
    )


def restore(
    path: Annotated[Path, typer.Argument(help="An archive written by `citewise backup`.")],
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Restore an archive into an empty home (or, with --store, an empty PostgreSQL
    database) after checking every file hash, revision hash and the ledger's Merkle root."""
    from citewise.config import Settings
    from citewise.sync.backup import restore as run

    report = run(path, Settings.resolve(home).home, chosen_store())
    if json:
        ui.print_json(report)
        return
    ui.out.print(
        f"restored into {report.home} ({report.store}): "
        + ", ".join(f"{kb} ({n} revisions)" for kb, n in report.knowledge_bases.items()),
        markup=False,
    )
    ui.out.print(
        f"verified: {', '.join(report.checked)}; ledger root {report.ledger_root}", markup=False
    )


def register(app: typer.Typer) -> None:
    app.command("backup")(backup)
    app.command("restore")(restore)
