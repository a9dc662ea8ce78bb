"""The ``citewise`` command line (typer). Every read command takes ``--json``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from citewise import cli_audit, cli_evidence, cli_serve
from citewise import cli_output as ui
from citewise.cli_eval import eval_app
from citewise.cli_graph import graph_app
from citewise.cli_llm import llm_app
from citewise.config import DEFAULT_KB
from citewise.errors import CitewiseError, UsageError
from citewise.ingest.models import FileResult
from citewise.kb import Home
from citewise.recall.models import SearchFilters
from citewise.recall.scope import parse_filters

app = typer.Typer(
    help="citewise: a knowledge base whose answers carry exact, checkable citations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
kb_app = typer.Typer(help="Create, list, show and delete knowledge bases.", no_args_is_help=True)
docs_app = typer.Typer(
    help="List documents, their versions; revert or delete.", no_args_is_help=True
)
cite_app = typer.Typer(help="Resolve citations to their exact text.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")
app.add_typer(docs_app, name="docs")
app.add_typer(cite_app, name="cite")
cli_evidence.register(app)
cli_serve.register(app)
cli_audit.register(app)
app.add_typer(graph_app, name="graph")
app.add_typer(eval_app, name="eval")
app.add_typer(llm_app, name="llm")

HomeOpt = Annotated[
    Path | None,
    typer.Option("--home", envvar="CITEWISE_HOME", help="Home directory (default ./.citewise)."),
]
KbOpt = Annotated[str, typer.Option("--kb", help="Knowledge base name.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def _home(home: Path | None) -> Home:
    return Home.open(home)


@app.command()
def add(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Ingest files and folders (Markdown, text, HTML, XML). Exits 1 if any file failed."""
    with _home(home) as h:
        base = h.kb(kb)
        started = time.perf_counter()
        nodes = 0
        show = not json and sys.stderr.isatty()
        with Progress(
            TextColumn("[bold]ingest"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[nodes]} nodes, {task.fields[rate]} files/s"),
            TimeElapsedColumn(),
            console=ui.err,
            transient=True,
            disable=not show,
        ) as bar:
            task = bar.add_task("ingest", total=None, nodes=0, rate="-")

            def progress(result: FileResult, done: int, total: int) -> None:
                nonlocal nodes
                nodes += result.nodes
                rate = done / max(time.perf_counter() - started, 1e-9)
                bar.update(task, completed=done, total=total, nodes=nodes, rate=f"{rate:.0f}")

            report = base.add(paths, progress=progress)
    if json:
        ui.print_json(report)
    else:
        ui.print_add_report(report)
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def stats(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Counts of documents, versions, nodes, chunks and revisions."""
    with _home(home) as h:
        data = h.kb(kb).stats()
    if json:
        ui.print_json(data)
    else:
        for key, value in data.items():
            ui.out.print(f"{key:>14}: {value}")


@app.command()
def revisions(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Corpus revisions of a knowledge base, oldest first."""
    with _home(home) as h:
        revs = h.kb(kb).revisions()
    if json:
        ui.print_json(revs)
    else:
        for r in revs:
            ui.out.print(
                f"r{r.revision}  {r.document_count} documents  {r.hash[:16]}  "
                f"{r.created_at}{'' if r.sealed else '  (unsealed)'}"
            )


@app.command()
def verify(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Check storage integrity, every node against its hash, and every revision hash."""
    with _home(home) as h:
        problems = h.verify()
    if json:
        ui.print_json({"ok": not problems, "problems": problems})
    else:
        for p in problems:
            ui.err.print(p, markup=False)
        ui.out.print("ok" if not problems else f"{len(problems)} problem(s) found")
    if problems:
        raise typer.Exit(6)


def _filters(items: list[str], principal: str | None) -> SearchFilters:
    return parse_filters(items, principal)


@app.command()
def search(
    query: str,
    kb: KbOpt = DEFAULT_KB,
    mode: Annotated[str, typer.Option(help="lexical, vector or hybrid.")] = "hybrid",
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=1000)] = 10,
    filter_: Annotated[
        list[str] | None,
        typer.Option("--filter", help="path=PREFIX, tag=TAG or KEY=VALUE (metadata); repeat."),
    ] = None,
    principal: Annotated[
        str | None, typer.Option("--as", help="Search as this principal (access lists).")
    ] = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Search with citations: each hit shows its document, lines and exact excerpt."""
    if mode not in ("lexical", "vector", "hybrid"):
        raise UsageError(f"Unknown mode {mode!r}.", hint="Use lexical, vector or hybrid.")
    with _home(home) as h:
        result = h.kb(kb).search(
            query,
            filters=_filters(filter_ or [], principal),
            top_k=top_k,
            mode=mode,  # type: ignore[arg-type]
        )
    if json:
        ui.print_json(result)
    else:
        ui.print_search(result)
    if result.outcome != "ok":
        raise typer.Exit(3)


@app.command("ask")
def ask_cmd(
    question: str,
    kb: KbOpt = DEFAULT_KB,
    principal: Annotated[
        str | None, typer.Option("--as", help="Ask as this principal (access lists).")
    ] = None,
    filter_: Annotated[
        list[str] | None,
        typer.Option("--filter", help="path=PREFIX, tag=TAG or KEY=VALUE (metadata); repeat."),
    ] = None,
    trace: Annotated[
        bool, typer.Option("--trace", help="Include the full trace in --json.")
    ] = False,
    llm: Annotated[
        str | None, typer.Option("--llm", help="Write the answer with this activated LLM route.")
    ] = None,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Answer a question: every sentence cites its exact source span, or says what is missing."""
    with _home(home) as h:
        answer = h.kb(kb).ask(question, filters=_filters(filter_ or [], principal), llm=llm)
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
    with _home(home) as h:
        info = h.create_kb(name, description)
    ui.print_json(info) if json else ui.out.print(f"created kb {info.name}")


@kb_app.command("list")
def kb_list(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """List knowledge bases."""
    with _home(home) as h:
        kbs = h.list_kbs()
    ui.print_json(kbs) if json else ui.out.print(ui.kb_table(kbs))


@kb_app.command("show")
def kb_show(name: str, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Show one knowledge base."""
    with _home(home) as h:
        info = h.kb(name).info()
    ui.print_json(info) if json else ui.out.print(ui.kb_table([info]))


@kb_app.command("delete")
def kb_delete(
    name: str,
    force: Annotated[
        bool, typer.Option("--force", help="Delete even if it holds documents.")
    ] = False,
    home: HomeOpt = None,
) -> None:
    """Delete a knowledge base (refused with BASE_IN_USE while it holds documents)."""
    with _home(home) as h:
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
    with _home(home) as h:
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
    with _home(home) as h:
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
    with _home(home) as h:
        versions = h.kb(kb).versions(doc)
    ui.print_json(versions) if json else ui.out.print(ui.versions_table(versions))


@docs_app.command("revert")
def docs_revert(
    doc: str, version: int, kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False
) -> None:
    """Restore VERSION of DOC by re-adding it (the revert is itself a new version)."""
    with _home(home) as h:
        outcome = h.kb(kb).revert(doc, version)
    ui.print_json(outcome) if json else ui.out.print(
        f"{doc}: {outcome.action}, now version {outcome.version_id} (revision {outcome.revision})"
    )


@docs_app.command("delete")
def docs_delete(
    doc: str, kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False
) -> None:
    """Remove DOC from the current revision; its history stays resolvable."""
    with _home(home) as h:
        outcome = h.kb(kb).delete(doc)
    ui.print_json(outcome) if json else ui.out.print(
        f"{doc}: deleted (revision {outcome.revision})"
    )


# -- cite -------------------------------------------------------------------
@cite_app.command("resolve")
def cite_resolve(citation_id: str, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Exact text, document, revision, lines and characters of a node, chunk or span id."""
    with _home(home) as h:
        cited = h.resolve(citation_id)
    ui.print_json(cited) if json else ui.print_citation(cited)


def main() -> None:
    """Entry point: citewise errors become one clear line on stderr and a stable exit code."""
    try:
        app()
    except CitewiseError as exc:
        ui.err.print(f"error [{exc.code}]: {exc}", markup=False)
        sys.exit(exc.exit_code)
