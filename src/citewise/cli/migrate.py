"""``citewise migrate``: copy a home's SQLite store into PostgreSQL (``register(app)``)."""

from __future__ import annotations

from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import JsonOpt


def migrate(
    source: Annotated[str, typer.Option("--from", help="sqlite:PATH of the store to copy.")],
    target: Annotated[
        str, typer.Option("--to", help="postgresql://USER@HOST/DB, an empty database.")
    ],
    json: JsonOpt = False,
) -> None:
    """Copy a store with its full history and ledger into PostgreSQL, then verify the copy
    (revision hashes, bytes, the ledger's Merkle root)."""
    from citewise.sync.migrate import migrate_store

    report = migrate_store(source, target)
    if json:
        ui.print_json(
            {"rows": report.rows, "ledger_root": report.ledger_root, "revisions": report.revisions}
        )
        return
    copied = ", ".join(f"{n} {t}" for t, n in report.rows.items())
    ui.out.print(f"copied {copied}", markup=False)
    ui.out.print(
        f"verified: {report.revisions} revision hashes, ledger root {report.ledger_root}",
        markup=False,
    )


def register(app: typer.Typer) -> None:
    app.command("migrate")(migrate)
