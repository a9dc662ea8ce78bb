"""A small loader for BEIR-layout datasets and the shared retrieval metrics.

Layout: ``corpus.jsonl[.gz]`` (``_id``, ``title``, ``text``), ``queries.jsonl``
(``_id``, ``text``), ``qrels/<split>.tsv`` (header line, then
``query-id<TAB>corpus-id<TAB>score``; score > 0 means relevant).

Metrics come from ``pytrec_eval`` (package ``pytrec-eval-terrier``), i.e. trec_eval
itself: ``ndcg_cut.10`` is trec_eval's nDCG@10, ``recall.100`` its Recall@100 and
``recip_rank`` over a run cut at 10 gives MRR@10.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

Run = dict[str, dict[str, float]]  # query id -> doc id -> score
Qrels = dict[str, dict[str, int]]  # query id -> doc id -> relevance


def data_root() -> Path:
    """``$CITEWISE_DATA`` or ``<repo>/../shared/data``."""
    env = os.environ.get("CITEWISE_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass(frozen=True)
class BeirDoc:
    doc_id: str
    title: str
    text: str


def _open(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    with _open(path) as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def load_corpus(root: Path) -> list[BeirDoc]:
    path = root / "corpus.jsonl.gz"
    if not path.exists():
        path = root / "corpus.jsonl"
    return [
        BeirDoc(str(d["_id"]), str(d.get("title") or ""), str(d.get("text") or ""))
        for d in _jsonl(path)
    ]


def load_queries(root: Path) -> dict[str, str]:
    return {str(q["_id"]): str(q["text"]) for q in _jsonl(root / "queries.jsonl")}


def load_qrels(root: Path, split: str) -> Qrels:
    """Relevance judgments of ``split``; only score > 0 is kept (relevant)."""
    qrels: Qrels = {}
    with (root / "qrels" / f"{split}.tsv").open(encoding="utf-8") as fh:
        next(fh)  # header
        for line in fh:
            parts = line.split("\t")
            if len(parts) < 3:
                continue
            qid, did, score = parts[0], parts[1], int(parts[2])
            if score > 0:
                qrels.setdefault(qid, {})[did] = score
    return qrels


def evaluate(qrels: Qrels, run: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Mean nDCG@10, Recall@100 and MRR@10 (trec_eval semantics, via pytrec_eval).

    Queries in ``qrels`` that are missing from ``run`` count as 0, as in trec_eval
    with ``-c``.  Ties are broken the trec_eval way (by doc id), so give distinct
    scores if the order matters.
    """
    import pytrec_eval

    full = {q: dict(run.get(q, {})) for q in qrels}
    top10 = {q: dict(sorted(d.items(), key=lambda kv: -kv[1])[:10]) for q, d in full.items()}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"})
    per_q = ev.evaluate(full)
    mrr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    n = len(qrels)
    return {
        "ndcg@10": sum(per_q.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels) / n,
        "recall@100": sum(per_q.get(q, {}).get("recall_100", 0.0) for q in qrels) / n,
        "mrr@10": sum(mrr.get(q, {}).get("recip_rank", 0.0) for q in qrels) / n,
    }
