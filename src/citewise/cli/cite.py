"""``citewise cite``: resolve a citation id to its exact text, and check a saved answer's
citations against the current revision."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, open_home

cite_app = typer.Typer(help="Resolve citations to their exact text.", no_args_is_help=True)


@cite_app.command("check")
def cite_check(
    answer_id: Annotated[str, typer.Argument(help="A saved answer's id (its trace id, t_...).")],
    reask: Annotated[
        bool,
        typer.Option(
            "--reask",
            help="Also ask the question again at the answer's saved revision and say whether "
            "the same answer and citations come back (as `replay` does).",
        ),
    ] = False,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Check a saved answer's citations: pinned text intact, and stale in the current
    revision (changed or removed). Never rewrites the answer. Exits 1 if any is stale (or,
    with --reask, if the re-asked answer differs)."""
    from citewise.audit.pinned import check_citations

    with open_home(home) as h:
        report = check_citations(h.store, answer_id)
        if reask:  # issue 38: re-run at the saved revision, stage by stage
            from citewise.audit.bundle import export_bundle, replay

            again = replay(h, export_bundle(h, answer_id))
            keys = ("status", "replayed_at", "same_answer", "same_replay_id", "note")
            report["reask"] = {k: again.get(k) for k in keys}
    if json:
        sys.stdout.write(ui.dump_json(report) + "\n")
    else:
        ui.out.print(
            f"answer {answer_id}: pinned revision {report['revision']}, current "
            f"{report['current_revision']}; {report['stale']} stale citation(s)",
            markup=False,
        )
        for c in report["citations"]:
            pin = "pinned ok" if c["pinned"] else f"PINNED TEXT BROKEN ({c['pinned_problem']})"
            ui.out.print(f"[{c['number']}] {c['status']:<9} {c['path']}  {pin}", markup=False)
            if c["status"] == "stale":
                ui.out.print(f"    reason: {c['reason']}", markup=False)
                ui.out.print(f"    old: {c['old_text']}", markup=False)
                ui.out.print(f"    new: {c['new_text']}", markup=False)
        if reask:
            r = report["reask"]
            ui.out.print(
                f"re-asked at revision {r['replayed_at']}: {r['status']}"
                + ("" if r["same_answer"] else " (the answer differs)"),
                markup=False,
            )
    reasked = report.get("reask")
    if report["stale"] or not report["all_pinned"]:
        raise typer.Exit(1)
    if reasked is not None and reasked["status"] not in ("reproduced", "partial"):
        raise typer.Exit(1)


@cite_app.command("stale")
def cite_stale(
    kb: Annotated[str, typer.Option("--kb", help="Knowledge base name.")] = "default",
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Saved answers whose citations now point to changed or deleted text (after a sync
    or any change). Exits 1 if there are any; 'cite check ANSWER_ID' shows the details."""
    with open_home(home) as h:
        stale = h.kb(kb).stale_answers()
    if json:
        ui.print_json(stale)
    else:
        for a in stale:
            ui.out.print(
                f"{a.answer_id}  {len(a.stale)} stale citation(s)  {a.question}", markup=False
            )
        ui.out.print(f"{len(stale)} stale answer(s)", markup=False)
    if stale:
        raise typer.Exit(1)


@cite_app.command("resolve")
def cite_resolve(citation_id: str, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Exact text, document, revision, lines and characters of a node, chunk or span id."""
    with open_home(home) as h:
        cited = h.resolve(citation_id)
    ui.print_json(cited) if json else ui.print_citation(cited)


def register(app: typer.Typer) -> None:
    """Add the ``cite`` group to ``app``."""
    app.add_typer(cite_app, name="cite")
