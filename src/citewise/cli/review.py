"""``citewise review``: the publication review queue (issue 38) and ``kb policy``.

``list`` shows pending candidates and quarantined files; ``show ID`` each changed
document's line diff against the published version, its parse warnings and provenance;
``approve ID`` / ``release ID|PATH`` publish (one revision), ``reject ID`` discards. The
decider is ``--as PRINCIPAL``: it must be in the policy's ``publishers`` (with none
named, the local user decides). docs/governance.md.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, KbOpt, open_home
from citewise.config import DEFAULT_KB

review_app = typer.Typer(
    help="The review queue: candidates held for review and quarantined files.",
    no_args_is_help=True,
)
AsOpt = Annotated[
    str | None,
    typer.Option("--as", help="The reviewer: a principal in the policy's publishers."),
]


@review_app.command("list")
def review_list(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Pending candidates and quarantined files, oldest first."""
    from citewise.governance import review

    with open_home(home) as h:
        held = review.queue(h.kb(kb).context)
    if json:
        ui.print_json([x.to_json() for x in held])
        return
    if not held:
        ui.out.print(f"kb {kb}: nothing waits for review", markup=False)
    for x in held:
        changes = ", ".join(f"{f.action} {f.path}" for f in x.files[:5])
        more = f" (+{len(x.files) - 5} more)" if len(x.files) > 5 else ""
        why = "; ".join(r.message for r in x.reasons)
        ui.out.print(
            f"{x.id}  {x.kind}  {x.created_at}  by {x.submitted_by or 'local'} ({x.origin}): "
            f"{changes}{more}" + (f"  [held: {why}]" if why else ""),
            markup=False,
        )


def print_held(shown: dict[str, Any]) -> None:
    ui.out.print(
        f"{shown['id']} ({shown['kind']}), held {shown['created_at']} by "
        f"{shown['submitted_by'] or 'local'} from {shown['origin']}",
        markup=False,
    )
    for r in shown["reasons"]:
        ui.out.print(f"  held because {r['kind']}: {r['message']}", markup=False)
    for f in shown["files"]:
        p = f["provenance"]
        ui.out.print(f"\n== {f['change']} {f['path']}", markup=False)
        if f["action"] == "write":
            ui.out.print(
                f"   source {p['source']}  sha256 {p['sha256'][:16]}  {p['size']:,} bytes",
                markup=False,
            )
        for w in f["warnings"]:
            ui.out.print(f"   warning {w['kind']}: {w['message']}", markup=False)
        for line in f["diff"]:
            ui.out.print(line, markup=False, highlight=False)
        if f["diff_cut"]:
            ui.out.print(f"   ... {f['diff_cut']} more diff lines", markup=False)


@review_app.command("show")
def review_show(
    ref: Annotated[str, typer.Argument(help="A candidate or quarantine id (or its path).")],
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Each changed document's diff against the published version, warnings, provenance."""
    from citewise.governance import review

    with open_home(home) as h:
        shown = review.show(h.kb(kb).context, ref)
    ui.print_json(shown) if json else print_held(shown)


def _decide(action: str, ref: str, kb: str, home: Any, principal: str | None, reason: str) -> Any:
    from citewise.governance import review

    who = review.Reviewer(principal)  # the local user is an admin
    with open_home(home) as h:
        ctx = h.kb(kb).context
        if action == "approve":
            return review.approve(ctx, ref, who)
        if action == "release":
            return review.release(ctx, ref, who)
        return review.reject(ctx, ref, who, reason)


def _report(report: Any, json: bool, what: str) -> None:
    if json:
        ui.print_json(report)
        return
    rev = f"revision {report.revision}" if report.revision is not None else "no new revision"
    ui.out.print(
        f"{what}: {', '.join(f'{f.status} {f.path}' for f in report.files)}; {rev}", markup=False
    )


@review_app.command("approve")
def review_approve(
    ref: Annotated[str, typer.Argument(help="The candidate id.")],
    principal: AsOpt = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Publish a candidate as one revision (ledger event naming the reviewer)."""
    _report(_decide("approve", ref, kb, home, principal, ""), json, f"approved {ref}")


@review_app.command("release")
def review_release(
    ref: Annotated[str, typer.Argument(help="The quarantine id, or the held file's path.")],
    principal: AsOpt = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Release a quarantined file into the knowledge base (one revision, ledger event)."""
    _report(_decide("release", ref, kb, home, principal, ""), json, f"released {ref}")


@review_app.command("reject")
def review_reject(
    ref: Annotated[str, typer.Argument(help="A candidate or quarantine id.")],
    reason: Annotated[str, typer.Option(help="Why (recorded in the ledger).")] = "",
    principal: AsOpt = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Discard a candidate or quarantined file: nothing is published (ledger event)."""
    held = _decide("reject", ref, kb, home, principal, reason)
    if json:
        ui.print_json({"rejected": held.id, "files": [f.path for f in held.files]})
    else:
        ui.out.print(f"rejected {held.id}: {', '.join(f.path for f in held.files)}", markup=False)


def policy_lines(policy: dict[str, Any]) -> list[str]:
    """The policy as ``kb show`` prints it, one field a line."""
    q = policy["quarantine"]
    held = [k for k in ("ocr_degraded", "repaired_extraction", "parse_warnings") if q[k]]
    if q["max_bytes"] is not None:
        held.append(f"over {q['max_bytes']:,} bytes")
    return [
        f"policy publication: {policy['publication']}",
        f"policy publishers: {', '.join(policy['publishers']) or '(none: admins decide)'}",
        f"policy quarantine: {', '.join(held) or 'nothing'}",
        f"policy conflicts: {policy['conflicts']}",
        f"policy verification: {policy['verification']}",
        f"policy retention default_days: {policy['retention']['default_days'] or 'none'}",
        f"policy redaction: {policy.get('redaction', 'off')}",
    ]


def register(app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")
