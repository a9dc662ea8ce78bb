"""The root ``citewise`` app: every command module adds its commands with ``register``.

One registration style: a module keeps its commands as module-level functions (group
commands decorated on the module's own ``typer.Typer``) and exposes
``register(app: typer.Typer) -> None``, which adds them to the root app. The order below
is the order of the help listing.
"""

from __future__ import annotations

from typing import Annotated

import typer

from citewise.cli import (
    audit,
    backup,
    chat,
    cite,
    conflicts,
    core,
    eval,
    evidence,
    graph,
    llm,
    migrate,
    notes,
    review,
    rights,
    serve,
    sync,
)
from citewise.cli.options import StoreOpt, choose_store

app = typer.Typer(
    help="citewise: a knowledge base whose answers carry exact, checkable citations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    """``--version``: print the installed version and stop before any command runs."""
    if value:
        from citewise import installed_version

        typer.echo(f"citewise {installed_version()}")
        raise typer.Exit()


VersionOpt = Annotated[
    bool,
    typer.Option(
        "--version",
        help="Print the installed citewise version and exit.",
        callback=_print_version,
        is_eager=True,
    ),
]


@app.callback()
def _root(store: StoreOpt = None, version: VersionOpt = False) -> None:
    """citewise: a knowledge base whose answers carry exact, checkable citations."""
    choose_store(store)


#: Command modules in help order (commands first, then groups, each in this order).
MODULES = (
    core,
    chat,
    sync,
    cite,
    evidence,
    serve,
    audit,
    graph,
    notes,
    eval,
    llm,
    migrate,
    backup,
    review,
    rights,
    conflicts,
)
for _module in MODULES:
    _module.register(app)
