"""Rendering for the CLI: JSON for machines, rich tables for people."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from citewise.core.locator import place
from citewise.jsonable import to_jsonable as to_jsonable

if TYPE_CHECKING:
    from citewise.answer.models import Answer
    from citewise.core.records import AddReport, Node
    from citewise.core.search import SearchResult
    from citewise.core.stored import DocumentInfo, KBInfo, ResolvedCitation, VersionInfo

# Piped output is not squeezed into 80 columns: tables keep ids whole.
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(to_jsonable(obj), ensure_ascii=False, indent=2) + "\n")


def dump_json(obj: Any) -> str:
    """JSON with sorted keys (the audit commands' bundles, proofs and reports)."""
    return json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=True)


def kb_table(kbs: list[KBInfo]) -> Table:
    t = Table("name", "documents", "revision", "created", "description")
    for k in kbs:
        t.add_row(k.name, str(k.document_count), str(k.revision), k.created_at, k.description)
    return t


def docs_table(docs: list[DocumentInfo]) -> Table:
    t = Table("path", "title", "format", "version", "nodes", "chunks")
    for d in docs:
        t.add_row(
            d.path, d.title, d.format, str(d.version_id), str(d.node_count), str(d.chunk_count)
        )
    return t


def versions_table(versions: list[VersionInfo]) -> Table:
    t = Table("", "version", "action", "revision", "sha256", "bytes", "created")
    for v in versions:
        action = v.action if v.restored_from is None else f"{v.action} (from v{v.restored_from})"
        t.add_row(
            "*" if v.is_head else "",
            str(v.version_id),
            action,
            str(v.revision),
            v.content_sha256[:12],
            str(v.size_bytes),
            v.created_at,
        )
    return t


def nodes_table(nodes: list[Node]) -> Table:
    t = Table("id", "kind", "lines", "clause", "section", "text")
    for n in nodes:
        if n.kind == "document":
            continue
        preview = " ".join(n.search_text.split())[:60]
        t.add_row(
            n.id,
            n.kind,
            f"{n.line_start}-{n.line_end}",
            n.clause_path or "",
            " > ".join(n.heading_path[-2:]),
            preview,
        )
    return t


def print_citation(c: ResolvedCitation) -> None:
    where = (
        f"{c.path} v{c.version_id}, lines {c.line_start}-{c.line_end}, "
        f"chars {c.char_start}-{c.char_end}"
    )
    out.print(f"[bold]{c.id}[/bold]  ({c.node_kind})")
    out.print(f"  document: {where}", markup=False)
    located = place(c.extra.get("locator"))
    if located:
        out.print(f"  place:    {located} (lines are lines of the extracted text)", markup=False)
    if c.heading_path:
        out.print(f"  section:  {' > '.join(c.heading_path)}")
    if c.clause_path:
        out.print(f"  clause:   {c.clause_path}")
    revs = ", ".join(str(r) for r in c.revisions) or "none"
    out.print(f"  revisions: {revs}{'' if c.current else '  (not in the current revision)'}")
    out.print(f"  sha256:   {c.sha256}")
    out.print("  text:", markup=False)
    for line in c.text.splitlines() or [""]:
        out.print(f"    {line}", markup=False)


def skipped_summary(paths: list[str]) -> str:
    """``skipped 3 unsupported files (2 .png, 1 .zip); --verbose lists them``."""
    by_suffix: dict[str, int] = {}
    for p in paths:
        name = p.rsplit("/", 1)[-1]
        suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else "(no suffix)"
        by_suffix[suffix] = by_suffix.get(suffix, 0) + 1
    parts = ", ".join(f"{n} {s}" for s, n in sorted(by_suffix.items(), key=lambda t: (-t[1], t[0])))
    return f"skipped {len(paths)} unsupported file(s) ({parts}); --verbose lists them"


def print_add_report(report: AddReport, *, verbose: bool = False) -> None:
    skipped: list[str] = []
    for f in report.files:
        if f.status == "skipped" and f.code == "UNSUPPORTED_FORMAT" and not verbose:
            skipped.append(f.path)
        elif f.status in ("failed", "skipped"):
            style = "red" if f.status == "failed" else "yellow"
            err.print(f"[{style}]{f.status}[/{style}] {f.code}: {f.message}", markup=True)
        elif f.code:  # added with a warning, e.g. NEEDS_OCR for pages without text
            err.print(f"{f.status} with warning {f.code}: {f.message}", markup=False)
    if skipped:
        err.print(skipped_summary(skipped), markup=False)
    parts = [
        f"{report.count(s)} {s}"
        for s in ("added", "changed", "unchanged", "skipped", "failed")
        if report.count(s)
    ]
    summary = ", ".join(parts) or "no files"
    held = sum(1 for f in report.files if f.code in ("HELD_FOR_REVIEW", "QUARANTINED"))
    if held:  # skipped by the publication gate (policy.yaml): say so in the summary
        summary += f" ({held} held: citewise review list)"
    rev = f"revision {report.revision}" if report.revision is not None else "no new revision"
    nodes = sum(f.nodes for f in report.files)
    out.print(f"kb {report.kb}: {summary}; {nodes} nodes; {rev}")


def print_search(result: SearchResult) -> None:
    routes = ", ".join(
        f"{d.route} {d.status}"
        + (f" ({d.candidates})" if d.status == "ok" else f" ({d.reason})" if d.reason else "")
        + (f" [{d.dropped} dropped under {d.threshold}]" if d.dropped else "")
        for d in result.diagnostics
    )
    out.print(f"revision {result.revision}; routes: {routes}", markup=False)
    if result.editions is not None:
        out.print(editions_line(result.editions), markup=False)
    if result.abstention is not None:
        out.print(
            f"insufficient evidence [{result.abstention.criterion}]: {result.abstention.reason}",
            markup=False,
        )
        return
    for hit in result.hits:
        section = " > ".join(hit.heading_path)
        where = place(hit.locator) or f"{hit.line_start}-{hit.line_end}"
        out.print(f"\n[{hit.rank}] {hit.path}:{where}  {section}", markup=False)
        excerpt = " ".join(hit.excerpt.split())
        out.print(f"    {excerpt[:300]}{'...' if len(excerpt) > 300 else ''}", markup=False)
        out.print(f"    cite: {hit.citation_id}  sha256 {hit.sha256[:12]}", markup=False)
        if hit.regulation is not None:
            out.print(f"    {regulation_line(hit.regulation)}", markup=False)


def answer_status(outcome: str, degradation: str) -> str:
    """``answered`` or ``answered, degraded: partial_coverage``; a refusal's reason is
    said once (its degradation repeating the outcome is not shown again)."""
    if degradation in ("none", "", outcome):
        return outcome
    return f"{outcome}, degraded: {degradation}"


def editions_line(e: dict[str, Any]) -> str:
    """``editions: current_only as of 2026-12-01 (today); left out 2 (...); lookup: ...``."""
    left = e.get("excluded") or []
    line = f"editions: {e['mode']} as of {e['as_of']} ({e['as_of_source']}); left out {len(left)}"
    if left:
        line += " (" + ", ".join(f"{x['path']}: {x['reason']}" for x in left[:5]) + ")"
    if e.get("lookup"):
        line += f"; lookup {e['lookup']['outcome']}: {e['lookup']['reason']}"
    return line


def regulation_line(r: dict[str, Any]) -> str:
    """``12 CFR 1002, edition 2017-20417, clause 1002.4(b), effective 2022-01-01 (current)``."""
    parts = [str(r["regulation"]), f"edition {r.get('edition') or 'unknown'}"]
    if r.get("clause"):
        parts.append(f"clause {r['clause']}")
    if r.get("effective_date"):
        parts.append(f"effective {r['effective_date']}")
    return ", ".join(parts) + (f" ({r['status']})" if r.get("status") else "")


def print_answer(answer: Answer) -> None:
    status = answer_status(answer.outcome, answer.degradation)
    out.print(f"[{status}]", markup=False)
    out.print(answer.answer, markup=False)
    shown = answer.display or {}
    if shown:  # the status line and notes in the reader's language (answer/wording.py)
        out.print(str(shown["status_line"]), markup=False)
        for line in shown.get("lines") or ():
            out.print(str(line), markup=False)
    if answer.citations:
        out.print("")
    for c in answer.citations:
        where = place(c.locator) or f"{c.line_start}-{c.line_end}"
        out.print(
            f"[{c.number}] {c.path}:{where} (rev {c.revision}, "
            f"chars {c.char_start}-{c.char_end}) {c.id}",
            markup=False,
        )
        excerpt = " ".join(c.excerpt.split())
        out.print(f'    "{excerpt[:240]}{"..." if len(excerpt) > 240 else ""}"', markup=False)
        if c.regulation is not None:
            out.print(f"    {regulation_line(c.regulation)}", markup=False)
        if c.verification is not None:
            v = c.verification
            out.print(f"    second source: {v['state']} ({v['reason']})", markup=False)
    if answer.sufficiency.reasons and answer.outcome == "answered":
        out.print(f"\nnotes: {'; '.join(answer.sufficiency.reason_texts)}", markup=False)
    out.print(f"replay {answer.replay_id}  answer id {answer.trace_id}", markup=False)
