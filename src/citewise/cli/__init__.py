"""The ``citewise`` command line (typer), one module per command group.

``main`` is the console entry point. Importing this package is cheap: the commands are
built by :mod:`citewise.cli.root`, and each command imports the library when it runs, so
``citewise --help`` does not load the index, the graph or the models.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["app", "main"]


def main() -> None:
    """Entry point: citewise errors become one clear line on stderr and a stable exit code."""
    from citewise.cli.output import err
    from citewise.cli.root import app
    from citewise.errors import CitewiseError

    try:
        app()
    except CitewiseError as exc:
        err.print(f"error [{exc.code}]: {exc}", markup=False)
        sys.exit(exc.exit_code)


def __getattr__(name: str) -> Any:
    if name == "app":
        from citewise.cli.root import app as root

        typer_app: typer.Typer = root
        return typer_app
    raise AttributeError(f"module 'citewise.cli' has no attribute {name!r}")
