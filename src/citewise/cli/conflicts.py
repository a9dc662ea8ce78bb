"""``citewise conflicts``: the conflict review queue (issue 38).

``list`` shows every conflict an answer met (once per pair of spans) with its state
(``open``, ``resolved``, ``expired``); ``resolve ID --governs SIDE`` records which side
governs (``a``, ``b`` or a side's path), optionally ``--until DATE`` (the last day, UTC)
and ``--note``; the resolver is ``--as PRINCIPAL`` (a publisher of the base; with none
named, the local user). A ``conflict_resolved`` ledger event records it.
docs/governance.md, "Conflict review".
"""

from __future__ import annotations

from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, KbOpt, open_home
from citewise.config import DEFAULT_KB
from citewise.governance.conflicts import parse_day

conflicts_app = typer.Typer(
    help="The conflict review queue: conflicts answers met, and which side governs.",
    no_args_is_help=True,
)


@conflicts_app.command("list")
def conflicts_list(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Every recorded conflict, oldest first, with both sides and its decision."""
    from citewise.governance.conflicts import today

    with open_home(home) as h:
        found = h.kb(kb).conflicts()
    day = today()
    if json:
        ui.print_json([r.to_json(day) for r in found])
        return
    if not found:
        ui.out.print(f"kb {kb}: no conflicts recorded", markup=False)
    for r in found:
        ui.out.print(f"{r.id}  {r.state(day)}  {r.attribute}: {r.subject}", markup=False)
        for i, s in enumerate(r.sides):
            ui.out.print(f"  {'ab'[i]}: {s['path']}  {s['value']!r}", markup=False)
        if r.resolution is not None:
            res = r.resolution
            until = f" until {res.until.isoformat()}" if res.until else ""
            note = f" ({res.note})" if res.note else ""
            ui.out.print(
                f"  {res.governs_path} governs{until}, by {res.resolver}{note}", markup=False
            )


@conflicts_app.command("resolve")
def conflicts_resolve(
    conflict_id: Annotated[str, typer.Argument(help="The conflict id (citewise conflicts list).")],
    governs: Annotated[
        str, typer.Option("--governs", help="The side that governs: a, b or the side's path.")
    ],
    until: Annotated[
        str | None, typer.Option("--until", help="The last day it holds (YYYY-MM-DD, UTC).")
    ] = None,
    note: Annotated[str, typer.Option("--note", help="Why (recorded in the ledger).")] = "",
    principal: Annotated[
        str | None, typer.Option("--as", help="The resolver: a principal in the publishers.")
    ] = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Record which side of a conflict governs; later answers cite that side only."""
    day = parse_day(until)
    with open_home(home) as h:
        rec = h.kb(kb).resolve_conflict(
            conflict_id, governs, until=day, note=note, principal=principal
        )
    from citewise.governance.conflicts import today

    if json:
        ui.print_json(rec.to_json(today()))
        return
    res = rec.resolution
    assert res is not None
    ends = f" until {res.until.isoformat()}" if res.until else ""
    ui.out.print(f"resolved {rec.id}: {res.governs_path} governs{ends}", markup=False)


def register(app: typer.Typer) -> None:
    app.add_typer(conflicts_app, name="conflicts")
