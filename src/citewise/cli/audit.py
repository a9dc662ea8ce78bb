"""``citewise audit`` (checkpoint, proof, verify, log) and the answer-audit commands
``export``, ``replay`` and ``feedback``. ``register(app)`` adds them."""

from __future__ import annotations

import json as jsonlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, open_home

if TYPE_CHECKING:
    from citewise.kb import Home

audit_app = typer.Typer(
    help="The audit ledger: signed checkpoints, Merkle proofs, verification, access log.",
    no_args_is_help=True,
)
proof_app = typer.Typer(help="Merkle proofs over the ledger (JSON).", no_args_is_help=True)
audit_app.add_typer(proof_app, name="proof")

KeyOpt = Annotated[
    Path | None,
    typer.Option(
        "--key",
        help="Ed25519 signing key (default <home>/keys/audit_ed25519, or $CITEWISE_AUDIT_KEY).",
    ),
]
_dump = ui.dump_json


def _key(h: Home, key: Path | None) -> Path:
    from citewise.audit.keys import default_key_path

    return key or default_key_path(h.settings.home)


def _write_or_print(obj: Any, out: Path | None) -> None:
    text = _dump(obj)
    if out is None:
        sys.stdout.write(text + "\n")
    else:
        out.write_text(text + "\n", encoding="utf-8")
        ui.err.print(f"wrote {out}", markup=False)


# -- audit -----------------------------------------------------------------------------
@audit_app.command("checkpoint")
def audit_checkpoint(
    home: HomeOpt = None,
    key: KeyOpt = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the checkpoint JSON to this file.")
    ] = None,
) -> None:
    """Sign the ledger's current tree head (size, root, time); store and print it."""
    from citewise.audit import checkpoint as cp

    with open_home(home) as h:
        c = cp.make_checkpoint(h.store.ledger, _key(h, key))
    sys.stdout.write(_dump(c) + "\n")
    if out is not None:
        out.write_text(_dump(c) + "\n", encoding="utf-8")


@proof_app.command("inclusion")
def proof_inclusion(
    event_seq: Annotated[int, typer.Argument(help="Ledger entry number (from 0).")],
    size: Annotated[
        int | None, typer.Option("--size", help="Tree size (default: the whole ledger).")
    ] = None,
    home: HomeOpt = None,
) -> None:
    """The audit path of one ledger entry up to the tree head."""
    from citewise.audit import checkpoint as cp

    with open_home(home) as h:
        proof = cp.inclusion(h.store.ledger, event_seq, size)
    sys.stdout.write(_dump(proof | {"verifies": cp.check_inclusion(proof)}) + "\n")


@proof_app.command("consistency")
def proof_consistency(
    old_size: Annotated[int, typer.Argument(help="The earlier tree size.")],
    new_size: Annotated[
        int | None, typer.Option("--new-size", help="Later size (default: the whole ledger).")
    ] = None,
    home: HomeOpt = None,
) -> None:
    """The proof that the first OLD_SIZE entries are unchanged in the current tree."""
    from citewise.audit import checkpoint as cp

    with open_home(home) as h:
        proof = cp.consistency(h.store.ledger, old_size, new_size)
    sys.stdout.write(_dump(proof | {"verifies": cp.check_consistency(proof)}) + "\n")


@audit_app.command("verify")
def audit_verify(
    against: Annotated[
        list[Path] | None,
        typer.Option("--against", help="A checkpoint JSON kept elsewhere (repeatable)."),
    ] = None,
    home: HomeOpt = None,
    key: KeyOpt = None,
    json: JsonOpt = False,
) -> None:
    """Recompute the tree from every entry; check each checkpoint's signature and root.
    Exits 1 on any problem."""
    from citewise.audit import checkpoint as cp

    given = [cp.read_checkpoint_file(p) for p in against or []]
    with open_home(home) as h:
        report = cp.verify(h.store.ledger, _key(h, key), given)
    if json:
        sys.stdout.write(_dump(report.to_json()) + "\n")
    else:
        ui.out.print(
            f"{report.entries} entries, root {report.root_hash}, "
            f"{report.checkpoints} checkpoint(s), {report.answers} saved answer(s) checked",
            markup=False,
        )
        for p in report.problems:
            ui.out.print(f"PROBLEM: {p}", markup=False)
        ui.out.print("ok" if report.ok else "FAILED", markup=False)
    if not report.ok:
        raise typer.Exit(1)


@audit_app.command("log")
def audit_log(
    principal: Annotated[
        str | None, typer.Option("--principal", help="Only this principal.")
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="ISO time, e.g. 2026-01-31 or 2026-01-31T12:00.")
    ] = None,
    types: Annotated[
        list[str] | None,
        typer.Option("--type", help="Event types (default: access). Repeatable; 'all' for any."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit")] = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Access decisions (restricted reads allowed, denied, redacted), or other event types."""
    from citewise.web.withheld import load_marks, withhold_refs

    chosen = tuple(types or ["access"])
    with open_home(home) as h:
        entries = h.store.ledger.query_ledger(
            types=() if "all" in chosen else chosen, principal=principal, since=since, limit=limit
        )
        # A withheld web snapshot's text is not shown (the stored entry is unchanged).
        marks = load_marks(h.settings.home / "web" / "snapshots")
    shown = [withhold_refs(e.to_json(), marks) for e in entries]
    if json:
        sys.stdout.write(_dump(shown) + "\n")
        return
    for e, row in zip(entries, shown, strict=True):
        p = row["payload"]
        if e.type == "access":
            detail = (
                f"{p.get('action')} allowed={p.get('allowed')} denied={p.get('denied')} "
                f"redacted={p.get('redacted')}"
            )
        else:
            detail = jsonlib.dumps(p, ensure_ascii=False, sort_keys=True)[:200]
        ui.out.print(f"{e.seq:>6} {e.ts} {e.type:<9} {e.principal}  {detail}", markup=False)


# -- answers -----------------------------------------------------------------------------
def export(
    answer_id: Annotated[str, typer.Argument(help="A saved answer's id (t_...).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Bundle file.")] = None,
    home: HomeOpt = None,
) -> None:
    """Write a saved answer's JSON bundle: question, conditions, revision, evidence and its
    decisions, citations, sufficiency, routes and diagnostics, and its ledger proof."""
    from citewise.audit import bundle as bundles

    with open_home(home) as h:
        data = bundles.export_bundle(h, answer_id)
    _write_or_print(data, out)


def replay(
    bundle: Annotated[Path, typer.Argument(help="A bundle written by `citewise export`.")],
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Re-run a bundle's question and compare retrieval, evidence, sufficiency and answer
    (and, for an LLM route's answer, its frozen payload; the model's recorded sentences are
    re-cited and re-reviewed, no model is called). Exits 0 when reproduced, 1 when a stage
    differs, 2 when replay is not possible, 3 when only some stages could be checked."""
    from citewise.audit import bundle as bundles
    from citewise.errors import UsageError

    try:
        data = jsonlib.loads(bundle.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"Cannot read bundle {bundle}: {exc}.") from exc
    with open_home(home) as h:
        report = bundles.replay(h, data)
    if json:
        sys.stdout.write(_dump(report) + "\n")
    else:
        ui.out.print(f"replay: {report['status']}", markup=False)
        keys = ("message", "note", "replay_id", "expected_replay_id", "first_differing_stage",
                "second_source_note")  # fmt: skip
        for key in keys:
            if report.get(key) is not None:
                ui.out.print(f"  {key}: {report[key]}", markup=False)
        if report.get("unchecked_stages"):
            ui.out.print(f"  not checked: {', '.join(report['unchecked_stages'])}", markup=False)
    if report["status"] == "unsupported":
        raise typer.Exit(2)
    if report["status"] == "partial":
        raise typer.Exit(3)
    if report["status"] != "reproduced":
        raise typer.Exit(1)


def feedback(
    answer_id: Annotated[str, typer.Argument(help="A saved answer's id (t_...).")],
    verdict: Annotated[str, typer.Argument(help="good or bad.")],
    note: Annotated[str, typer.Option("--note", help="Free text.")] = "",
    principal: Annotated[str | None, typer.Option("--principal")] = None,
    home: HomeOpt = None,
) -> None:
    """Record feedback on a saved answer in the ledger."""
    from citewise.audit.record import record_feedback

    with open_home(home) as h:
        entry = record_feedback(h.store, answer_id, verdict, note, principal)
    sys.stdout.write(_dump(entry) + "\n")


def register(app: typer.Typer) -> None:
    """Add ``export``, ``replay``, ``feedback`` and the ``audit`` group to ``app``."""
    app.command("export")(export)
    app.command("replay")(replay)
    app.command("feedback")(feedback)
    app.add_typer(audit_app, name="audit")
