"""The vector route's cosine thresholds for passage scores (MaxP, index/passages.py), on
SciFact *train* and off-domain questions, through the product's own search.

A chunk scored by its best 96-token passage has higher cosines than by its pooled vector,
so the pooled route's thresholds (0.30 for any vector hit, 0.45 for a vector hit with no
lexical candidate) are re-chosen here. For each threshold the hybrid search of the SciFact
KB (the ``citewise eval retrieval`` cache, int8 MiniLM) gives

* train nDCG@10 (809 claims) and how many claims it refused;
* the share of off-domain questions (bench/gate_curve.py's CFR section subjects and SQuAD
  2.0 dev questions; CMRC's Chinese ones skip the English encoder) it refuses;

and the vector-only threshold is matched on train by quantile: the passage cosine that as
many train claims' best chunks reach as reach 0.45 with the pooled vector.

    python -m bench.maxp_thresholds [--cache DIR] [--grid 0.30,0.35,...] [--weight 0.6]

``--weight``: ``RecallSettings.passage_weight`` (the share of the best passage's cosine in
a chunk's score, the rest its pooled vector's); 1 is the best passage alone.

Skips (exit 0) without the data.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench._beir import data_root


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(cache: Path | None, grid: list[float], weight: float = 1.0) -> dict[str, Any]:
    from bench.gate_curve import off_domain
    from citewise.eval.retrieval import evaluate_run, load_beir, prepare_kb, run_queries
    from citewise.recall.search import RecallSettings, _vector

    data = load_beir(data_root() / "beir-scifact", "train")
    off = {k: v for k, v in off_domain(data_root()).items() if k != "cmrc"}
    home, kb, _ = prepare_kb(data, cache=cache, encoder="minilm", dense=True)
    out: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": os.getloadavg(),
        "passage_weight": weight,
        "rows": [],
    }
    try:
        index = home.index("beir")
        index.sync()
        assert index.passages is not None, "the KB has no passage vectors"
        qids = sorted(data.qrels)
        best: dict[str, list[float]] = {"pooled": [], "passages": []}
        every = set(index.chunks)
        route = dataclasses.replace(
            RecallSettings(mmr=False), passage_weight=weight, vector_threshold=-1.0
        )
        for q in qids:
            qvec = index.embed_query(data.queries[q])
            assert qvec is not None
            best["pooled"].append(index.search_vectors(qvec, 1, passages=False)[0].score)
            # the vector route's own best score (mixed with the pooled one at ``weight``)
            best["passages"].append(max(_vector(index, data.queries[q], every, route)[0].values()))
        share = float(np.mean(np.asarray(best["pooled"]) >= 0.45))
        only = float(np.quantile(best["passages"], 1 - share))
        out["vector_only"] = {"pooled_share_at_0.45": share, "passage_threshold": only}
        _log(f"vector-only: {share:.3f} of train reach 0.45 pooled; passages {only:.4f}")
        settings = [("pooled", False, 0.30)] + [("passages", True, t) for t in grid]
        for name, passages, t in settings:
            s = dataclasses.replace(
                RecallSettings(mmr=False),
                passages=passages,
                vector_threshold=t,
                passage_weight=weight if passages else 1.0,
            )
            got = run_queries(kb, data.queries, qids, mode="hybrid", settings=s)
            row: dict[str, Any] = {
                "route": name,
                "threshold": t,
                "train_ndcg@10": evaluate_run(data.qrels, got.run)["ndcg@10"],
                "train_refused": got.abstained,
            }
            for src, qs in off.items():
                refused = sum(
                    kb.search(q, top_k=10, mode="hybrid", settings=s).outcome != "ok" for q in qs
                )
                row[f"{src}_refused"] = refused / len(qs)
            out["rows"].append(row)
            _log(json.dumps(row))
    finally:
        home.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=None, help="eval cache (default: the CLI's)")
    ap.add_argument("--grid", default="0.30,0.35,0.40,0.45", help="passage thresholds")
    ap.add_argument("--weight", type=float, default=1.0, help="RecallSettings.passage_weight")
    args = ap.parse_args(argv)
    if not (data_root() / "beir-scifact" / "queries.jsonl").exists():
        print("skipped: no SciFact data", file=sys.stderr)
        return 0
    grid = [float(x) for x in args.grid.split(",")]
    print(json.dumps(run(args.cache, grid, args.weight), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
