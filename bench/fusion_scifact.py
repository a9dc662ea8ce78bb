"""Hybrid fusion and query expansion on SciFact, chosen on the train split, offline.

Run: ``.venv/bin/python -m bench.fusion_scifact [--cache DIR] [--no-prf] [--json OUT]``

The product's two content routes are read once per query from the cached evaluation KB
(``citewise.eval.retrieval.prepare_kb``, the same KB ``citewise eval retrieval`` uses):
BM25 scores of the KB's lexical index for ``query_tokens(query)`` and the cosine of the
query vector to every stored chunk vector. Fusion is then emulated in numpy as
``recall.search`` does it with MMR off (both routes' candidates over their thresholds,
convex fusion when both have some, else rank fusion 2 : 1 over the first 100), so a grid of
809 train claims takes seconds. Families measured on **train** (nDCG@10):

* normalisation (min-max, z-score) x fusion depth (100 / 200 / 300 / 1000) x lexical weight;
* dense pseudo-relevance feedback (Rocchio: the query vector plus beta times the mean of
  the top-k vectors of the vector route or of the fused ranking);
* BM25 pseudo-relevance feedback (RM3-style: the m most likely new terms of the top-k
  documents, weighted by their share, added to the query's BM25 with weight gamma).

Each family's train-best setting is then scored once on **test** (300 claims). The
emulation is checked against the product's figures (shipped settings) at the start.
``OPENBLAS_NUM_THREADS=1``; skips (exit 0) without the data. Output: bench/out/fusion_scifact.json.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench._beir import data_root
from citewise.analysis.tokenize import query_tokens, tokenize
from citewise.eval.retrieval import doc_id_of, evaluate_run, load_beir, prepare_kb

OUT = Path(__file__).resolve().parent / "out" / "fusion_scifact.json"
Arr = npt.NDArray[np.float64]
Runs = list[dict[int, float]]
THRESHOLD = 0.30  # MiniLM's vector threshold (RecallSettings.encoder_thresholds)


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Routes:
    """Raw route scores of every claim of one split against every chunk (= abstract)."""

    def __init__(self, lex: Arr, vec: Arr, qvec: Arr, texts: list[str], qids: list[str]):
        self.lex, self.vec, self.qvec, self.texts, self.qids = lex, vec, qvec, texts, qids


Loaded = tuple[dict[str, Routes], dict[str, Any], list[str], Arr, list[Counter[str]], Any]


def load(cache: Path | None) -> Loaded:
    """Routes of both splits, qrels, chunk -> abstract id, chunk vectors, chunk term bags,
    and a BM25 column per term (the KB's own index; the home stays open for it)."""
    root = data_root() / "beir-scifact"
    if not root.is_dir():
        raise FileNotFoundError(f"no SciFact data at {root}")
    data = {s: load_beir(root, s) for s in ("train", "test")}
    home, kb, _ = prepare_kb(data["test"], cache=cache, encoder="minilm", dense=True)
    index = kb.context.index
    index.sync()
    ids = sorted(index.chunks)
    col = {c: i for i, c in enumerate(ids)}
    docs = [doc_id_of(index.chunks[c].path) for c in ids]
    assert index.vectors is not None, "the dense route is off: no vectors to fuse"
    vectors = index.vectors.get(ids).astype(np.float64)
    routes = {}
    for split, d in data.items():
        qids = sorted(d.qrels)
        lex = np.zeros((len(qids), len(ids)))
        qvec = np.zeros((len(qids), vectors.shape[1]))
        for i, q in enumerate(qids):
            for hit in index.lexical.search_tokens(query_tokens(d.queries[q]), k=len(ids)):
                lex[i, col[hit.chunk_id]] = hit.score
            got = index.embed_query(d.queries[q])
            assert got is not None
            qvec[i] = got
        routes[split] = Routes(lex, qvec @ vectors.T, qvec, [d.queries[q] for q in qids], qids)
        _log(f"{split}: {len(qids)} claims read")
    texts = index.chunk_texts(ids)  # an index state keeps its chunks without their text
    bags = [Counter(tokenize(f"{index.chunks[c].breadcrumb}\n{texts[c]}")) for c in ids]
    columns: dict[str, Arr] = {}

    def term_scores(term: str) -> Arr:
        if term not in columns:
            col_ = np.zeros(len(ids))
            for hit in index.lexical.search_tokens([term], k=len(ids)):
                col_[col[hit.chunk_id]] = hit.score
            columns[term] = col_
        return columns[term]

    term_scores.close = home.close  # type: ignore[attr-defined]
    return routes, {s: d.qrels for s, d in data.items()}, docs, vectors, bags, term_scores


def _top(row: Arr, n: int, floor: float) -> npt.NDArray[np.intp]:
    n = min(n, row.size)
    idx = np.argpartition(-row, n - 1)[:n]
    idx = idx[np.lexsort((idx, -row[idx]))]
    return idx[row[idx] > floor] if floor == 0.0 else idx[row[idx] >= floor]


def _norm(x: Arr, how: str) -> Arr:
    spread = float(x.max() - x.min()) if how == "minmax" else float(x.std())
    return np.ones_like(x) if spread <= 1e-12 else (x - x.min()) / spread


@dataclass(frozen=True)
class Fusion:
    norm: str  # "minmax" or "zscore"
    depth: int  # candidates per route
    wl: float  # lexical weight; vector = 1 - it


def fuse(lex: Arr, vec: Arr, f: Fusion, pool: int = 100) -> Runs:
    norm, depth, wl = f.norm, f.depth, f.wl
    runs: Runs = []
    for i in range(lex.shape[0]):
        li, vi = _top(lex[i], depth, 0.0), _top(vec[i], depth, THRESHOLD)
        fused: dict[int, float] = {}
        if li.size and vi.size:
            for w, idx, row in ((wl, li, lex[i]), (1 - wl, vi, vec[i])):
                for d, s in zip(idx.tolist(), _norm(row[idx], norm).tolist(), strict=True):
                    fused[d] = fused.get(d, 0.0) + w * s
        else:
            for w, idx in ((2.0, li[:pool]), (1.0, vi[:pool])):
                for r, d in enumerate(idx.tolist(), 1):
                    fused[d] = fused.get(d, 0.0) + w / (60 + r)
        runs.append(fused)
    return runs


def ndcg(routes: Routes, qrels: dict[str, Any], docs: list[str], runs: Runs) -> float:
    run = {
        q: {docs[d]: s for d, s in sorted(f.items(), key=lambda kv: (-kv[1], kv[0]))[:100]}
        for q, f in zip(routes.qids, runs, strict=True)
    }
    return round(evaluate_run(qrels, run)["ndcg@10"], 4)


def rocchio(r: Routes, vectors: Arr, runs: Runs | None, k: int, beta: float) -> Arr:
    """Query vectors moved towards the mean of the top ``k`` (vector route, or ``runs``)."""
    out = r.qvec.copy()
    for i in range(out.shape[0]):
        if runs is None:
            idx = np.argsort(-r.vec[i])[:k]
        else:
            idx = np.array(sorted(runs[i], key=lambda d: -runs[i][d])[:k], dtype=np.intp)
        if idx.size:
            q = out[i] + beta * vectors[idx].mean(axis=0)
            out[i] = q / np.linalg.norm(q)
    return out @ vectors.T


def rm3(
    r: Routes,
    bags: list[Counter[str]],
    term_scores: Callable[[str], Arr],
    runs: Runs | None,
    k: int,
    m: int,
    gamma: float,
) -> Arr:
    """BM25 plus gamma x |query terms| x the m most likely new feedback terms' BM25."""
    out = r.lex.copy()
    for i in range(out.shape[0]):
        if runs is None:
            idx = _top(r.lex[i], k, 0.0)
            w = np.exp(r.lex[i][idx] - (r.lex[i][idx].max() if idx.size else 0.0))
        else:
            idx = np.array(sorted(runs[i], key=lambda d: -runs[i][d])[:k], dtype=np.intp)
            w = np.array([runs[i][d] for d in idx.tolist()]) + 1e-3
            w = w - w.min() + 1e-3
        if not idx.size:
            continue
        p: Counter[str] = Counter()
        for d, wd in zip(idx.tolist(), (w / w.sum()).tolist(), strict=True):
            size = sum(bags[d].values()) or 1
            for t, c in bags[d].items():
                p[t] += wd * c / size
        own = set(query_tokens(r.texts[i]))
        terms = [t for t, _ in p.most_common(m + len(own)) if t not in own][:m]
        total = sum(p[t] for t in terms) or 1.0
        for t in terms:
            out[i] += gamma * max(len(own), 1) * p[t] / total * term_scores(t)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=None, help="eval cache (default: the CLI's)")
    ap.add_argument("--no-prf", action="store_true", help="fusion grid only (seconds)")
    ap.add_argument("--json", type=Path, default=OUT)
    args = ap.parse_args(argv)
    try:
        routes, qrels, docs, vectors, bags, term_scores = load(args.cache)
    except FileNotFoundError as e:
        print(f"skipped: {e}", file=sys.stderr)
        return 0
    tr, te = routes["train"], routes["test"]
    out: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": os.getloadavg()[0],
    }
    before = Fusion("minmax", 100, 0.6)
    out["before"] = {
        s: ndcg(routes[s], qrels[s], docs, fuse(routes[s].lex, routes[s].vec, before))
        for s in routes
    }
    _log(f"emulated before (product: train 0.7360, test 0.7309): {out['before']}")
    grid = []
    for norm in ("minmax", "zscore"):
        for depth in (100, 200, 300, 1000):
            for wl in (0.4, 0.5, 0.55, 0.6, 0.65, 0.7):
                got = ndcg(tr, qrels["train"], docs, fuse(tr.lex, tr.vec, Fusion(norm, depth, wl)))
                grid.append({"norm": norm, "depth": depth, "wl": wl, "train": got})
    best = max(grid, key=lambda g: g["train"])
    fusion = Fusion(str(best["norm"]), int(best["depth"]), float(best["wl"]))
    best["test"] = ndcg(te, qrels["test"], docs, fuse(te.lex, te.vec, fusion))
    out["fusion_grid"], out["fusion_best"] = grid, best
    _log(f"fusion train-best {best}")
    if not args.no_prf:
        out["rocchio"] = []
        for src in ("vector", "fused"):
            for k in (3, 5, 10):
                for beta in (0.5, 1.0, 2.0):
                    runs = None if src == "vector" else fuse(tr.lex, tr.vec, fusion)
                    v2 = rocchio(tr, vectors, runs, k, beta)
                    got = ndcg(tr, qrels["train"], docs, fuse(tr.lex, v2, fusion))
                    out["rocchio"].append({"source": src, "k": k, "beta": beta, "train": got})
                    _log(f"rocchio {out['rocchio'][-1]}")
        out["rm3"] = []
        fused_train = fuse(tr.lex, tr.vec, fusion)
        for src, ks, ms, gammas in (
            ("lexical", (3, 5, 10), (5, 10, 20), (0.1, 0.2, 0.4)),
            ("fused", (3, 5), (5, 10, 20), (0.1, 0.2, 0.4)),
        ):
            for k in ks:
                for m in ms:
                    for gamma in gammas:
                        runs = None if src == "lexical" else fused_train
                        lex2 = rm3(tr, bags, term_scores, runs, k, m, gamma)
                        lex_only = [
                            {d: float(lex2[i][d]) for d in _top(lex2[i], 100, 0.0)}
                            for i in range(lex2.shape[0])
                        ]
                        row = {
                            "source": src,
                            "k": k,
                            "m": m,
                            "gamma": gamma,
                            "train_lexical": ndcg(tr, qrels["train"], docs, lex_only),
                            "train_hybrid": ndcg(
                                tr, qrels["train"], docs, fuse(lex2, tr.vec, fusion)
                            ),
                        }
                        out["rm3"].append(row)
                        _log(f"rm3 {row}")
    term_scores.close()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1), "utf-8")
    print(json.dumps({k: v for k, v in out.items() if k != "fusion_grid"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
