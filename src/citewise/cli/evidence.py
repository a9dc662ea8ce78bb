"""``citewise evidence``: the budgeted context pack for a question, grouped by role."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import (
    AsOfOpt,
    CurrentOnlyOpt,
    FilterOpt,
    HomeOpt,
    JsonOpt,
    KbOpt,
    RevisionOpt,
    open_home,
    search_filters,
)
from citewise.config import DEFAULT_KB
from citewise.errors import UsageError

if TYPE_CHECKING:
    from citewise.evidence.models import EvidencePack, Fragment

_PROFILES = ("base", "causal", "deep")
_GROUPS = (
    ("direct evidence", ("direct_support",)),
    ("document augmentation", ("parent_context", "adjacent_context", "background")),
    ("graph-neighbor evidence", ("graph_neighbor_support",)),
    ("conflicts", ("conflict",)),
)


def _fragment(f: Fragment) -> None:
    where = f"{f.path}:{f.line_start}-{f.line_end}"
    section = " > ".join(f.heading_path)
    flag = "  [truncated]" if f.truncated else ""
    ui.out.print(f"  [{f.role}] {where}  {section}  ({f.tokens} tok){flag}", markup=False)
    text = " ".join(f.text.split())
    ui.out.print(f"      {text[:400]}{'...' if len(text) > 400 else ''}", markup=False)
    ui.out.print(f"      cite: {f.citation_id}", markup=False)


def print_pack(pack: EvidencePack, *, decisions: bool = True) -> None:
    use = pack.budget_use
    ui.out.print(
        f"query: {pack.query}  intent {pack.intent}, profile {pack.profile}, "
        f"revision {pack.revision}, rse {'on' if pack.rse else 'off'}",
        markup=False,
    )
    ui.out.print(
        f"budget: {use.fragments}/{use.max_fragments} fragments, "
        f"{use.tokens}/{use.max_tokens} tokens, {use.chars}/{use.max_chars} chars "
        f"(per fragment {use.fragment_tokens} tok, per document {use.doc_tokens} tok)",
        markup=False,
    )
    ui.out.print(f"replay id: {pack.replay_id}", markup=False)
    for title, roles in _GROUPS:
        frags = [f for f in pack.fragments if f.role in roles]
        ui.out.print(f"\n{title} ({len(frags)})", markup=False)
        for f in frags:
            _fragment(f)
    ui.out.print(f"\nlimitations ({len(pack.limitations)})", markup=False)
    for lim in pack.limitations:
        ui.out.print(f"  {lim.kind}: {lim.path} {lim.reason}".rstrip(), markup=False)
    if decisions:
        ui.out.print(f"\ndecisions ({len(pack.decisions)})", markup=False)
        for d in pack.decisions:
            ui.out.print(
                f"  {d.action:<8} {d.role:<17} {d.path}  {d.citation_id}  {d.reason}",
                markup=False,
            )


def evidence(
    query: str,
    kb: KbOpt = DEFAULT_KB,
    profile: Annotated[
        str | None, typer.Option(help="base, causal or deep (default: from the intent).")
    ] = None,
    rse: Annotated[
        bool, typer.Option("--rse/--no-rse", help="Relevant segment extraction.")
    ] = True,
    filter_: FilterOpt = None,
    current_only: CurrentOnlyOpt = None,
    as_of: AsOfOpt = None,
    principal: Annotated[
        str | None, typer.Option("--as", help="Read as this principal (access lists).")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--no-decisions", help="Do not list the budget decisions.")
    ] = False,
    revision: RevisionOpt = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """The context pack for a question: direct spans, context, budget use and decisions."""
    from citewise.facade import console

    if profile is not None and profile not in _PROFILES:
        raise UsageError(f"Unknown profile {profile!r}.", hint="Use base, causal or deep.")
    if not query.strip():
        raise UsageError("The query is empty.", hint="Pass the question.")
    with open_home(home) as h:
        # Through the facade: the same ledger entry as the HTTP and MCP evidence routes.
        pack = console.evidence(
            h,
            kb,
            query,
            filters=search_filters(filter_, principal, current_only, as_of),
            profile=profile,  # type: ignore[arg-type]
            rse=rse,
            revision=revision,
        )
    if json:
        ui.print_json(pack.to_json())
    else:
        print_pack(pack, decisions=not quiet)
    if pack.outcome != "ok":
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    """Add the ``evidence`` command to ``app``."""
    app.command()(evidence)
