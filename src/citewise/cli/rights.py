"""``citewise takedown`` and ``citewise retention apply`` (issue 38).

``takedown PATH --reason R`` withholds every stored version of a document from every read
(search, evidence, answers, graph, ``cite resolve``, export) without a new ingest;
``untakedown PATH --reason R`` lifts it; ``retention apply`` runs the retention sweep now
(it also runs when a base is opened, once a day): versions past their ``retain_until``,
or older than the policy's ``retention.default_days``, expire. Each writes a ledger event
(path, versions, reason, who, when; never text). docs/governance.md, "Rights, retention
and takedown".
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, KbOpt, open_home
from citewise.config import DEFAULT_KB
from citewise.errors import UsageError

retention_app = typer.Typer(help="Retention: expire versions the policy no longer keeps.")


def takedown(
    path: Annotated[str, typer.Argument(help="The document's path in the knowledge base.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded in the ledger).")],
    who: Annotated[
        str | None, typer.Option("--as", help="Who takes it down (recorded in the ledger).")
    ] = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Withhold a document's text from every read; its history and hashes remain."""
    from citewise.governance.withhold import take_down

    with open_home(home) as h:
        h.kb(kb)
        done = take_down(h.store, kb, path, reason, by=who or "local")
    if json:
        ui.print_json(done.to_json())
    elif done.versions:
        shown = ", ".join(str(v) for v in done.versions)
        ui.out.print(f"{path}: taken down (versions {shown}): {done.reason}", markup=False)
    else:
        ui.out.print(f"{path}: already withheld; nothing changed", markup=False)


def untakedown(
    path: Annotated[str, typer.Argument(help="The document's path in the knowledge base.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded in the ledger).")],
    who: Annotated[
        str | None, typer.Option("--as", help="Who lifts it (recorded in the ledger).")
    ] = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Lift a takedown: the document's versions are read as before (expiries stay)."""
    from citewise.governance.withhold import lift_takedown

    with open_home(home) as h:
        h.kb(kb)
        done = lift_takedown(h.store, kb, path, reason, by=who or "local")
    if json:
        ui.print_json(done.to_json())
    elif done.versions:
        shown = ", ".join(str(v) for v in done.versions)
        ui.out.print(f"{path}: takedown lifted (versions {shown}): {done.reason}", markup=False)
    else:
        ui.out.print(f"{path}: no takedown to lift; nothing changed", markup=False)


def _day(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(
            f"--today {value!r} is not a date.", hint="Write it as YYYY-MM-DD."
        ) from None


@retention_app.command("apply")
def retention_apply(
    today: Annotated[
        str | None, typer.Option("--today", help="Apply as of this day (YYYY-MM-DD; UTC today).")
    ] = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Expire the versions the retention rules no longer keep (ledger event per document)."""
    from citewise.governance.withhold import expire, utc_today

    day = _day(today) or utc_today()
    with open_home(home) as h:
        h.store.get_kb(kb)
        done = expire(h.store, h.settings.home, kb, day)
    if json:
        ui.print_json([d.to_json() for d in done])
        return
    if not done:
        ui.out.print(f"kb {kb}: nothing expired as of {day.isoformat()}", markup=False)
    for d in done:
        shown = ", ".join(str(v) for v in d.versions)
        ui.out.print(f"{d.path}: expired (versions {shown}): {d.reason}", markup=False)


def register(app: typer.Typer) -> None:
    """Add ``takedown``, ``untakedown`` and the ``retention`` group to ``app``."""
    app.command("takedown")(takedown)
    app.command("untakedown")(untakedown)
    app.add_typer(retention_app, name="retention")
