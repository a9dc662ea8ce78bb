"""Options shared by the command modules, and the two helpers every command uses.

Typer reads these annotations when it builds the commands, so they name only cheap
types; the library (``citewise.kb``, ``citewise.recall``) is imported when a command runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from citewise.core.search import SearchFilters
    from citewise.kb import Home

HomeOpt = Annotated[
    Path | None,
    typer.Option("--home", envvar="CITEWISE_HOME", help="Home directory (default ./.citewise)."),
]
StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        envvar="CITEWISE_STORE",
        help="Store: sqlite:PATH or postgresql://USER@HOST/DB (default: the home's citewise.db).",
    ),
]
KbOpt = Annotated[str, typer.Option("--kb", help="Knowledge base name.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
FilterOpt = Annotated[
    list[str] | None,
    typer.Option("--filter", help="path=PREFIX, tag=TAG or KEY=VALUE (metadata); repeat."),
]
ModeOpt = Annotated[str, typer.Option(help="lexical, vector or hybrid.")]
ConditionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--condition",
        help="A condition KEY=VALUE (platform=linux, env=production, version=2.x, "
        "as_of=2024-01-01, region=EU, or any key); the question's own win. Repeat.",
    ),
]
LineageOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--lineage",
        help="A lineage id KEY=ID (conversation, turn, task, parent), recorded in the "
        "ledger. Repeat.",
    ),
]


_EXAMPLE = {"--lineage": "task=t-1", "--condition": "os=linux"}


def key_values(items: list[str] | None, option: str) -> dict[str, str]:
    """``KEY=VALUE`` option values as a dict (raises UsageError naming a bad one)."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            from citewise.errors import UsageError

            raise UsageError(
                f"{option} {item!r} is not KEY=VALUE.",
                hint=f"Write {option} KEY=VALUE, e.g. {option} {_EXAMPLE.get(option, 'k=v')}.",
            )
        out[key.strip()] = value.strip()
    return out


CurrentOnlyOpt = Annotated[
    bool | None,
    typer.Option(
        "--current-only/--all-editions",
        help="Leave out superseded, not yet effective and withdrawn editions before ranking "
        "(default: for regulation editions, unless the question names an edition).",
    ),
]
AsOfOpt = Annotated[
    str | None,
    typer.Option("--as-of", help="Answer as the law stood on this date (YYYY-MM-DD)."),
]

RevisionOpt = Annotated[
    int | None,
    typer.Option(
        "--revision",
        help="Read the documents as they were at this revision (`citewise revisions` lists "
        "them; default: the current one).",
    ),
]


#: The store chosen by the root ``--store`` option for this process (see :func:`choose_store`).
_chosen_store: list[str] = []


def choose_store(location: str | None) -> None:
    """Record the root ``--store`` option (or ``$CITEWISE_STORE``) for :func:`open_home`."""
    _chosen_store[:] = [location] if location else []


def chosen_store() -> str | None:
    """The store given by ``--store`` (else ``$CITEWISE_STORE``); None: the home's own."""
    return _chosen_store[0] if _chosen_store else os.environ.get("CITEWISE_STORE") or None


def open_home(home: Path | None) -> Home:
    """The home at ``home`` (else ``$CITEWISE_HOME``, else ``./.citewise``), opened on the
    store given by ``--store`` (else ``$CITEWISE_STORE``, else the home's ``citewise.db``)."""
    from citewise.kb import Home

    return Home.open(home, store=chosen_store())


def search_filters(
    items: list[str] | None,
    principal: str | None,
    current_only: bool | None = None,
    as_of: str | None = None,
) -> SearchFilters:
    """``--filter`` values, ``--as``, ``--current-only/--all-editions`` and ``--as-of`` as
    search filters (raises UsageError on a bad one)."""
    from citewise.core.access import parse_filters

    return parse_filters(items or [], principal, current_only=current_only, as_of=as_of)


def check_mode(mode: str) -> None:
    """Refuse a search mode other than lexical, vector or hybrid."""
    if mode not in ("lexical", "vector", "hybrid"):
        from citewise.errors import UsageError

        raise UsageError(f"Unknown mode {mode!r}.", hint="Use lexical, vector or hybrid.")
