"""``citewise notes``: topic notes compiled from the sources, every line a cited quotation
(register ``notes_app``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, KbOpt, open_home
from citewise.config import DEFAULT_KB

notes_app = typer.Typer(
    help="Topic notes compiled from the sources without an LLM: every line is an exact "
    "quotation with its citation; add and sync keep built notes current.",
    no_args_is_help=True,
)
AsOpt = Annotated[str | None, typer.Option("--as", help="Read as this principal (access lists).")]


def _service_call(home: Any, principal: str | None, method: str, *args: str) -> Any:
    from citewise.facade.caller import Caller
    from citewise.facade.service import Service

    with open_home(home) as h:
        caller = Caller(name="local", principal=principal, kbs=frozenset({"*"}))
        return getattr(Service(h), method)(caller, *args)


@notes_app.command("build")
def build(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Compile the notes now; from then on add, sync and delete keep them current
    (CITEWISE_NOTES=auto, the default; on: after every commit; off: only this command)."""
    with open_home(home) as h:
        report = h.kb(kb).build_notes()
    data = report.to_json()
    if json:
        ui.print_json(data)
        return
    ui.out.print(
        f"{data['notes']} notes; {data['rebuilt']} new revision(s), {data['removed']} "
        f"removed, {data['unchanged']} unchanged ({data['views']} view(s))",
        markup=False,
    )


@notes_app.command("list")
def list_notes(
    kb: KbOpt = DEFAULT_KB, principal: AsOpt = None, home: HomeOpt = None, json: JsonOpt = False
) -> None:
    """Every note you may see: topic id, revision, lines (changed), documents, title."""
    data = _service_call(home, principal, "notes", kb)
    if json:
        ui.print_json(data)
        return
    if not data["notes"]:
        ui.out.print("No notes yet. Build them with: citewise notes build", markup=False)
        return
    for n in data["notes"]:
        changed = f" ({n['changed']} changed)" if n["changed"] else ""
        ui.out.print(
            f"{n['topic']:<40} r{n['revision']:<3} {n['lines']:>3} lines{changed:<14} "
            f"{n['documents']:>3} docs  {n['title']}",
            markup=False,
        )


@notes_app.command("show")
def show(
    topic: Annotated[str, typer.Argument(help="A topic id (from notes list) or a title.")],
    kb: KbOpt = DEFAULT_KB,
    principal: AsOpt = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """One note: each section's quotations with their citations (* = changed since the
    previous revision), then the related notes."""
    data = _service_call(home, principal, "note", kb, topic)
    if json:
        ui.print_json(data)
        return
    ui.out.print(f"{data['title']}  ({data['topic']}, revision {data['revision']})", markup=False)
    current = ""
    for x in data["items"]:
        if x["section"] != current:
            current = x["section"]
            ui.out.print(f"\n{data['section_titles'][current]}", markup=False)
        mark = "*" if x["changed"] else " "
        text = " ".join(x["excerpt"].split())
        ui.out.print(f' {mark} "{text}"', markup=False)
        ui.out.print(
            f"     {x['path']} r{x['revision']} L{x['line_start']}-{x['line_end']} "
            f"[{x['char_start']}:{x['char_end']}] {x['id']} sha256:{x['sha256'][:12]}",
            markup=False,
        )
    if data["links"]:
        ui.out.print(
            "\nRelated: " + ", ".join(f"{x['title']} ({x['topic']})" for x in data["links"]),
            markup=False,
        )


def register(app: typer.Typer) -> None:
    app.add_typer(notes_app, name="notes")
