"""Evaluation of citewise against public benchmarks (BEIR-layout retrieval sets)."""

from citewise.eval.retrieval import (
    BeirSet,
    Prepared,
    RetrievalReport,
    evaluate_run,
    load_beir,
    prepare_kb,
    run_queries,
)

__all__ = [
    "BeirSet",
    "Prepared",
    "RetrievalReport",
    "evaluate_run",
    "load_beir",
    "prepare_kb",
    "run_queries",
]
