"""The core commands: ``add``, ``stats``, ``revisions``, ``verify``, ``search``, ``ask``,
and the ``kb`` and ``docs`` groups. Every read command takes ``--json``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import (
    AsOfOpt,
    ConditionOpt,
    CurrentOnlyOpt,
    FilterOpt,
    HomeOpt,
    JsonOpt,
    KbOpt,
    LineageOpt,
    ModeOpt,
    RevisionOpt,
    check_mode,
    key_values,
    open_home,
    search_filters,
)
from citewise.config import DEFAULT_KB

if TYPE_CHECKING:
    from citewise.core.records import FileResult

kb_app = typer.Typer(help="Create, list, show and delete knowledge bases.", no_args_is_help=True)
docs_app = typer.Typer(
    help="List documents, their versions; revert or delete.", no_args_is_help=True
)


# The help lists the formats one short group a line (typer keeps line breaks after the
# first paragraph), so that no terminal width splits a group across lines.
def add(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    kb: KbOpt = DEFAULT_KB,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List every skipped file.")
    ] = False,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Ingest files and folders. Exits 1 if any file failed.

    Formats:
      text: Markdown, reST, plain text, HTML, XML
      tables and rich text: CSV/TSV, RTF
      office and print: PDF, DOCX, PPTX, XLSX, ODT, EPUB
      OpenDocument sheets and slides: ODS, ODP
      legacy Office (through LibreOffice): DOC, XLS, PPT

    Never deletes: documents of an added folder that are gone from it are only reported.
    'citewise sync FOLDER' removes them."""
    from citewise.cli.progress import progress

    with open_home(home) as h, progress("ingest", quiet=json) as tick:
        base = h.kb(kb)
        h.index(kb).progress = lambda stage, done, total: tick(done, total, stage)

        def on_file(result: FileResult, done: int, total: int) -> None:
            tick(done, total, None)

        report = base.add(paths, progress=on_file)
    if json:
        ui.print_json(report)
    else:
        ui.print_add_report(report, verbose=verbose)
        if report.missing:
            folders = " ".join(str(p) for p in paths if p.is_dir())
            shown = ", ".join(report.missing[:5]) + (" ..." if len(report.missing) > 5 else "")
            ui.err.print(
                f"{len(report.missing)} document(s) of this folder are no longer in it "
                f"({shown}); add never deletes: run 'citewise sync {folders}' to remove them.",
                markup=False,
            )
    if not report.ok:
        raise typer.Exit(1)


def stats(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Counts of documents, versions, nodes, chunks and revisions."""
    with open_home(home) as h:
        data = h.kb(kb).stats()
    if json:
        ui.print_json(data)
    else:
        for key, value in data.items():
            ui.out.print(f"{key:>14}: {value}")


def revisions(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Corpus revisions of a knowledge base, oldest first."""
    with open_home(home) as h:
        revs = h.kb(kb).revisions()
    if json:
        ui.print_json(revs)
    else:
        for r in revs:
            ui.out.print(
                f"r{r.revision}  {r.document_count} documents  {r.hash[:16]}  "
                f"{r.created_at}{'' if r.sealed else '  (unsealed)'}"
            )


def verify(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Check storage integrity, every node against its hash, and every revision hash."""
    with open_home(home) as h:
        problems = h.verify()
    if json:
        ui.print_json({"ok": not problems, "problems": problems})
    else:
        for p in problems:
            ui.err.print(p, markup=False)
        ui.out.print("ok" if not problems else f"{len(problems)} problem(s) found")
    if problems:
        raise typer.Exit(6)


def search(
    query: str,
    kb: KbOpt = DEFAULT_KB,
    mode: ModeOpt = "hybrid",
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=1000)] = 10,
    filter_: FilterOpt = None,
    current_only: CurrentOnlyOpt = None,
    as_of: AsOfOpt = None,
    principal: Annotated[
        str | None, typer.Option("--as", help="Search as this principal (access lists).")
    ] = None,
    revision: RevisionOpt = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Search with citations: each hit shows its document, lines and exact excerpt."""
    check_mode(mode)
    with open_home(home) as h:
        result = h.kb(kb).search(
            query,
            filters=search_filters(filter_, principal, current_only, as_of),
            top_k=top_k,
            mode=mode,  # type: ignore[arg-type]
            revision=revision,
        )
        if principal is not None:  # version numbers as that principal sees them
            from citewise.facade import renumber

            result = renumber.search_result(result, renumber.numbering_for(h.kb(kb), principal))
    if json:
        ui.print_json(result)
    else:
        ui.print_search(result)
    if result.outcome != "ok":
        raise typer.Exit(3)


def ask_cmd(
    question: str,
    kb: KbOpt = DEFAULT_KB,
    principal: Annotated[
        str | None, typer.Option("--as", help="Ask as this principal (access lists).")
    ] = None,
    filter_: FilterOpt = None,
    current_only: CurrentOnlyOpt = None,
    as_of: AsOfOpt = None,
    trace: Annotated[
        bool, typer.Option("--trace", help="Include the full trace in --json.")
    ] = False,
    llm: Annotated[
        str | None, typer.Option("--llm", help="Write the answer with this activated LLM route.")
    ] = None,
    verify_web: Annotated[
        bool,
        typer.Option(
            "--verify-web",
            help="Check each regulation citation against a second source on the web "
            "(CITEWISE_WEB_SEARCH_URL, CITEWISE_WEB_ALLOWED_HOSTS; docs/regulations.md).",
        ),
    ] = False,
    condition: ConditionOpt = None,
    lineage: LineageOpt = None,
    revision: RevisionOpt = None,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="Language of citewise's own words (status, refusals, notes): en or zh "
            "(default: the question's language). Quotations are never translated.",
        ),
    ] = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Answer a question: every sentence cites its exact source span, or says what is missing."""
    conditions = key_values(condition, "--condition")
    ids = key_values(lineage, "--lineage")
    with open_home(home) as h:
        web = None
        if verify_web:
            from citewise.web.settings import WebSettings, open_verifier

            web = open_verifier(WebSettings.from_env(os.environ), h.settings.home)
        filters = search_filters(filter_, principal, current_only, as_of)
        answer = h.kb(kb).ask(
            question,
            filters=filters,
            llm=llm,
            web=web,
            conditions=conditions or None,
            lineage=ids or None,
            revision=revision,
            lang=lang,
        )
        if principal is not None:  # version numbers as that principal sees them
            from citewise.facade import renumber

            answer = renumber.answer(answer, renumber.numbering_for(h.kb(kb), principal))
    if json and llm is not None:
        out = answer.to_json(with_trace=trace)
        ui.print_json(out | {"answer_source": answer.trace.get("answer_source")})
    elif json:
        ui.print_json(answer.to_json(with_trace=trace))
    else:
        ui.print_answer(answer)
        if llm is not None:
            source = answer.trace.get("answer_source") or "none"
            ui.out.print(f"answer source: {source}", markup=False)
    if answer.outcome in ("insufficient_evidence", "generation_unavailable"):
        raise typer.Exit(3)


# -- kb ---------------------------------------------------------------------
@kb_app.command("create")
def kb_create(
    name: str,
    description: Annotated[str, typer.Option(help="What the KB holds.")] = "",
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Create a knowledge base."""
    with open_home(home) as h:
        info = h.create_kb(name, description)
    ui.print_json(info) if json else ui.out.print(f"created kb {info.name}")


@kb_app.command("list")
def kb_list(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """List knowledge bases."""
    with open_home(home) as h:
        kbs = h.list_kbs()
    ui.print_json(kbs) if json else ui.out.print(ui.kb_table(kbs))


@kb_app.command("show")
def kb_show(name: str, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Show one knowledge base and its policy (policy.yaml; docs/governance.md)."""
    from citewise.governance.policy import load_policy
    from citewise.jsonable import to_jsonable

    with open_home(home) as h:
        info = h.kb(name).info()
        policy = load_policy(h.settings.home, name).to_json()
    if json:
        ui.print_json(to_jsonable(info) | {"policy": policy})
        return
    ui.out.print(ui.kb_table([info]))
    from citewise.cli.review import policy_lines

    for line in policy_lines(policy):
        ui.out.print(line, markup=False, highlight=False)


@kb_app.command("delete")
def kb_delete(
    name: str,
    force: Annotated[
        bool, typer.Option("--force", help="Delete even if it holds documents.")
    ] = False,
    home: HomeOpt = None,
) -> None:
    """Delete a knowledge base (refused with BASE_IN_USE while it holds documents)."""
    with open_home(home) as h:
        h.delete_kb(name, force=force)
    ui.out.print(f"deleted kb {name}")


# -- docs -------------------------------------------------------------------
@docs_app.command("list")
def docs_list(
    kb: KbOpt = DEFAULT_KB,
    prefix: Annotated[str, typer.Option(help="Only paths starting with this.")] = "",
    limit: Annotated[int | None, typer.Option(min=1)] = None,
    offset: Annotated[int, typer.Option(min=0)] = 0,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Documents in the current revision."""
    with open_home(home) as h:
        docs = h.kb(kb).documents(prefix=prefix, limit=limit, offset=offset)
    ui.print_json(docs) if json else ui.out.print(ui.docs_table(docs))


@docs_app.command("show")
def docs_show(
    doc: str,
    kb: KbOpt = DEFAULT_KB,
    nodes: Annotated[bool, typer.Option("--nodes", help="Also list the node tree.")] = False,
    version: Annotated[int | None, typer.Option(help="A version other than the head.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many nodes.")] = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """One document's current head and metadata; --nodes adds its structure."""
    with open_home(home) as h:
        base = h.kb(kb)
        info = base.document(doc)
        tree = base.nodes(doc, version)[:limit] if nodes else []
    if json:
        ui.print_json({**ui.to_jsonable(info), "nodes": tree} if nodes else info)
        return
    ui.out.print(ui.docs_table([info]))
    for key, value in info.metadata.items():
        ui.out.print(f"  {key}: {value}", markup=False)
    if nodes:
        ui.out.print(ui.nodes_table(tree))


@docs_app.command("versions")
def docs_versions(
    doc: str, kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False
) -> None:
    """Versions of a document, newest first; * marks the current head."""
    with open_home(home) as h:
        versions = h.kb(kb).versions(doc)
    ui.print_json(versions) if json else ui.out.print(ui.versions_table(versions))


@docs_app.command("revert")
def docs_revert(
    doc: str, version: int, kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False
) -> None:
    """Restore VERSION of DOC by re-adding it (the revert is itself a new version)."""
    with open_home(home) as h:
        outcome = h.kb(kb).revert(doc, version)
    ui.print_json(outcome) if json else ui.out.print(
        f"{doc}: {outcome.action}, now version {outcome.version_id} (revision {outcome.revision})"
    )


@docs_app.command("delete")
def docs_delete(
    doc: str, kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False
) -> None:
    """Remove DOC from the current revision; its history stays resolvable."""
    with open_home(home) as h:
        outcome = h.kb(kb).delete(doc)
    ui.print_json(outcome) if json else ui.out.print(
        f"{doc}: deleted (revision {outcome.revision})"
    )


def register(app: typer.Typer) -> None:
    """Add the core commands and the ``kb`` and ``docs`` groups to ``app``."""
    for command in (add, stats, revisions, verify, search):
        app.command()(command)
    app.command("ask")(ask_cmd)
    app.add_typer(kb_app, name="kb")
    app.add_typer(docs_app, name="docs")
