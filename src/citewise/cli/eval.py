"""``citewise eval``: measure the product on public benchmarks."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import JsonOpt, ModeOpt, check_mode

eval_app = typer.Typer(
    help="Measure retrieval quality and speed on benchmarks.", no_args_is_help=True
)


@eval_app.command("retrieval")
def retrieval(
    beir: Annotated[
        Path,
        typer.Option(
            "--beir", help="BEIR-layout folder: corpus.jsonl[.gz], queries.jsonl, qrels/."
        ),
    ],
    split: Annotated[str, typer.Option(help="qrels split to score (qrels/<split>.tsv).")] = "test",
    mode: ModeOpt = "hybrid",
    top_k: Annotated[
        int, typer.Option("--top-k", min=100, max=1000, help="Documents kept per query.")
    ] = 100,
    encoder: Annotated[
        str, typer.Option(help="Dense encoder: minilm, use or auto (by content).")
    ] = "minilm",
    cache: Annotated[
        Path | None,
        typer.Option(
            help="Where the evaluation KB is kept (default $XDG_CACHE_HOME/citewise/eval)."
        ),
    ] = None,
    mmr: Annotated[
        bool, typer.Option("--mmr/--no-mmr", help="Diversify (MMR); off measures ranking.")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """nDCG@10, Recall@100, MRR@10, queries/s and latency of one search mode on a BEIR set.

    The corpus is ingested once into a cached KB (documents as Markdown files).
    Later runs reuse its store and vectors.
    """
    from citewise.eval.retrieval import evaluate_beir
    from citewise.recall.search import RecallSettings

    check_mode(mode)
    settings = dataclasses.replace(RecallSettings(), mmr=mmr)
    from citewise.cli.progress import progress

    with progress("eval", quiet=json) as tick:
        report = evaluate_beir(
            beir,
            progress=lambda stage, done, total: tick(done, total, stage),
            split=split,
            mode=mode,  # type: ignore[arg-type]
            top_k=top_k,
            encoder=encoder,
            cache=cache,
            settings=settings,
        )
    out = report.to_dict()
    if json:
        ui.print_json(out)
        return
    enc = "" if mode == "lexical" else f", encoder {report.encoder}"
    ui.out.print(f"{beir} [{split}] {report.n_queries} queries, mode {mode}{enc}, MMR {mmr}")
    ui.out.print(
        f"  nDCG@10 {out['ndcg@10']:.4f}   Recall@100 {out['recall@100']:.4f}   "
        f"MRR@10 {out['mrr@10']:.4f}"
    )
    ui.out.print(
        f"  {out['qps']:.1f} queries/s one at a time; latency p50 "
        f"{out['latency_ms']['p50']:.1f} ms, p95 {out['latency_ms']['p95']:.1f} ms; "
        f"abstained on {report.abstained}"
    )


@eval_app.command("probes")
def probes(
    suite: Annotated[Path, typer.Argument(help="Folder with corpus/ and cases.yaml.")],
    json: JsonOpt = False,
) -> None:
    """Run an answer-probe suite in a fresh temporary home: pass/fail per case.

    Exits 1 when any case fails.
    Every answer's citations are also checked against the source text at their offsets.
    """
    from citewise.eval.probes import run_suite

    report = run_suite(suite)
    if json:
        ui.print_json(
            {
                "suite": report.suite,
                "passed": report.passed,
                "failed": report.failed,
                "results": list(report.results),
            }
        )
    else:
        for r in report.results:
            mark = "PASS" if r.passed else "FAIL"
            ui.out.print(f"{mark} {r.id} [{r.kind}] {r.outcome}/{r.degradation}", markup=False)
            for p in r.problems:
                ui.out.print(f"     - {p}", markup=False)
        ui.out.print(f"{report.passed} passed, {report.failed} failed", markup=False)
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the ``eval`` group to ``app``."""
    app.add_typer(eval_app, name="eval")
