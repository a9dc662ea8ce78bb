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
from pathlib import Path
from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, KbOpt, open_home
from citewise.config import DEFAULT_KB
from citewise.errors import UsageError

retention_app = typer.Typer(help="Retention: expire versions the policy no longer keeps.")


PathArg = Annotated[str | None, typer.Argument(help="The document's path in the knowledge base.")]
UrlOpt = Annotated[
    str | None,
    typer.Option("--url", help="A web address instead of a document: its web snapshots."),
]


def takedown(
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded in the ledger).")],
    path: PathArg = None,
    url: UrlOpt = None,
    who: Annotated[
        str | None, typer.Option("--as", help="Who takes it down (recorded in the ledger).")
    ] = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Withhold a document's text from every read (or, with --url, every web snapshot of
    an address); its history and hashes remain."""
    from citewise.governance.withhold import take_down

    if _one_target(path, url) == "url":
        _web(url or "", reason, who, home, json, lift=False)
        return
    assert path is not None
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
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded in the ledger).")],
    path: PathArg = None,
    url: UrlOpt = None,
    who: Annotated[
        str | None, typer.Option("--as", help="Who lifts it (recorded in the ledger).")
    ] = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Lift a takedown: the document's versions (or, with --url, the address's web
    snapshots) are read as before (expiries stay)."""
    from citewise.governance.withhold import lift_takedown

    if _one_target(path, url) == "url":
        _web(url or "", reason, who, home, json, lift=True)
        return
    assert path is not None
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


def _one_target(path: str | None, url: str | None) -> str:
    if (path is None) == (url is None):
        raise UsageError(
            "Name one thing to take down: a document PATH or a web address (--url).",
            hint="e.g. citewise takedown docs/a.md --reason R, or --url https://... --reason R",
        )
    return "url" if url is not None else "path"


def _web(url: str, reason: str, who: str | None, home: Path | None, json: bool, *,
         lift: bool) -> None:  # fmt: skip
    """``--url``: the web address's snapshots (governance/web_withhold.py; home-wide)."""
    from citewise.governance.web_withhold import lift_url_takedown, take_down_url

    act = lift_url_takedown if lift else take_down_url
    with open_home(home) as h:
        done = act(h.store, h.settings.home, url, reason, by=who or "local")
    if json:
        ui.print_json(done.to_json())
        return
    if not done.changed:
        state = "no takedown to lift" if lift else "already taken down"
        ui.out.print(f"{done.address}: {state}; nothing changed", markup=False)
        return
    verb = "takedown lifted" if lift else "taken down"
    ui.out.print(
        f"{done.address}: {verb} ({len(done.snapshots)} web snapshots): {done.reason}",
        markup=False,
    )


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
    from citewise.governance.web_withhold import expire_snapshots
    from citewise.governance.withhold import expire, utc_today

    day = _day(today) or utc_today()
    with open_home(home) as h:
        h.store.get_kb(kb)
        done = expire(h.store, h.settings.home, kb, day)
        web = expire_snapshots(h.store, h.settings.home, kb, day)
    if json:
        ui.print_json([d.to_json() for d in done] + ([web.to_json()] if web else []))
        return
    if web is not None:
        ui.out.print(f"web: {len(web.snapshots)} snapshots expired: {web.reason}", markup=False)
    if not done and web is None:
        ui.out.print(f"kb {kb}: nothing expired as of {day.isoformat()}", markup=False)
    for d in done:
        shown = ", ".join(str(v) for v in d.versions)
        ui.out.print(f"{d.path}: expired (versions {shown}): {d.reason}", markup=False)


def register(app: typer.Typer) -> None:
    """Add ``takedown``, ``untakedown`` and the ``retention`` group to ``app``."""
    app.command("takedown")(takedown)
    app.command("untakedown")(untakedown)
    app.add_typer(retention_app, name="retention")
