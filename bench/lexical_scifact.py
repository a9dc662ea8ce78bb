"""Lexical route benchmark: SciFact (BEIR) quality/speed vs plain bm25s, CMRC 2018 (zh).

Run: ``.venv/bin/python -m bench.lexical_scifact [--json] [--no-tune]``

* quality on the SciFact test split (300 queries; title+text as the document):
  nDCG@10, Recall@100, MRR@10 (trec_eval via pytrec_eval, see ``bench/_beir.py``);
* the same for plain bm25s (its own tokenizer with PyStemmer English + its "en"
  stopwords, k1=1.5, b=0.75) as the reference;
* k1 / b / title weight tuned on the *train* split, and the test score of the
  train-chosen parameters;
* build time and single-process queries/s, ours vs bm25s, on the same tokens;
* the incremental path: 1,000 documents in the delta segment, same scores;
* nDCG@10 on the derived CMRC 2018 zh paragraph-retrieval set.

Skips (exit 0) when the shared data directory is absent.  Results go to
``bench/out/lexical_scifact.json`` (gitignored) and stdout (markdown table).
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench._beir import (
    BeirDoc,
    Qrels,
    Run,
    data_root,
    evaluate,
    load_corpus,
    load_qrels,
    load_queries,
)
from citewise.analysis.tokenize import tokenize
from citewise.index.lexical import DEFAULT_B, DEFAULT_K1, DEFAULT_TITLE_WEIGHT, LexicalIndex
from citewise.index.segment import IndexSegment

OUT = Path(__file__).resolve().parent / "out" / "lexical_scifact.json"
GRID_TW = (1.0, 2.0, 3.0, 4.0)
GRID_K1 = (0.9, 1.2, 1.5, 1.8)
GRID_B = (0.65, 0.75, 0.85, 1.0)


def _chunks(corpus: Sequence[BeirDoc]) -> list[tuple[str, str, str]]:
    return [(d.doc_id, d.text, d.title) for d in corpus]


def _run(index: LexicalIndex, qtok: dict[str, list[str]], qids: Sequence[str], k: int) -> Run:
    return {q: dict(index.search_tokens(qtok[q], k)) for q in qids}


def _rate(fn: Callable[[], object], n: int, repeat: int = 3) -> float:
    """Best-of-``repeat`` queries per second for ``fn`` answering ``n`` queries."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best


def _round(m: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in m.items()}


def scifact(root: Path, tune: bool) -> dict[str, Any]:
    import bm25s
    import Stemmer

    corpus = load_corpus(root)
    queries = load_queries(root)
    test, train = load_qrels(root, "test"), load_qrels(root, "train")
    test_ids = list(test)
    out: dict[str, Any] = {"docs": len(corpus), "test_queries": len(test)}

    # -- build ---------------------------------------------------------------------
    doc_tokens = [tokenize(d.title + " " + d.text) for d in corpus]
    t = time.perf_counter()
    ours = LexicalIndex.build(_chunks(corpus))
    ours_build = time.perf_counter() - t
    bags = [ours.bag_of(d.text, d.title) for d in corpus]
    t = time.perf_counter()
    IndexSegment.from_bags([d.doc_id for d in corpus], bags)
    ours_index_s = time.perf_counter() - t
    t = time.perf_counter()
    plain = bm25s.BM25(k1=DEFAULT_K1, b=DEFAULT_B, method="lucene")
    plain.index(doc_tokens, show_progress=False)
    bm25s_index_s = time.perf_counter() - t
    stemmer = Stemmer.Stemmer("english")
    t = time.perf_counter()
    ref_tokens = bm25s.tokenize(
        [d.title + " " + d.text for d in corpus],
        stopwords="en",
        stemmer=stemmer,
        show_progress=False,
    )
    ref = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    ref.index(ref_tokens, show_progress=False)
    ref_build = time.perf_counter() - t
    out["build_s"] = {
        "ours_total": round(ours_build, 3),
        "ours_index_only": round(ours_index_s, 3),
        "bm25s_index_on_our_tokens": round(bm25s_index_s, 3),
        "bm25s_total_own_tokenizer": round(ref_build, 3),
    }

    # -- quality -------------------------------------------------------------------
    qtok = {q: tokenize(text) for q, text in queries.items()}
    out["ours_test"] = _round(evaluate(test, _run(ours, qtok, test_ids, 100)))
    textbook = LexicalIndex.build(_chunks(corpus), k1=1.5, b=0.75, title_weight=1.0)
    out["ours_textbook_test"] = _round(evaluate(test, _run(textbook, qtok, test_ids, 100)))
    ref_q = bm25s.tokenize(
        [queries[q] for q in test_ids], stopwords="en", stemmer=stemmer, show_progress=False
    )
    docs, scores = ref.retrieve(ref_q, k=100, show_progress=False, n_threads=1)
    ref_run = {
        q: {corpus[int(i)].doc_id: float(s) for i, s in zip(docs[j], scores[j], strict=True)}
        for j, q in enumerate(test_ids)
    }
    out["bm25s_test"] = _round(evaluate(test, ref_run))
    out["params"] = {"k1": DEFAULT_K1, "b": DEFAULT_B, "title_weight": DEFAULT_TITLE_WEIGHT}

    # -- speed (k=10, one process, 3 passes over the 1,109 queries, best pass) -----
    all_q = list(queries)
    toks = [qtok[q] for q in all_q]
    texts = [queries[q] for q in all_q]
    out["qps"] = {
        "ours_end_to_end": round(_rate(lambda: [ours.search(s, 10) for s in texts], len(texts))),
        "ours_pretokenized": round(
            _rate(lambda: [ours.search_tokens(q, 10) for q in toks], len(toks))
        ),
        "bm25s_pretokenized": round(
            _rate(
                lambda: plain.retrieve(toks, k=10, show_progress=False, n_threads=1), len(toks)
            )
        ),
    }  # fmt: skip

    # -- incremental: the last 1,000 documents arrive through the delta ------------
    chunks = _chunks(corpus)
    inc = LexicalIndex.build(chunks[:-1000], merge_threshold=10_000)
    t = time.perf_counter()
    inc.add(chunks[-1000:])
    inc.search_tokens(toks[0], 10)  # the delta segment is built on first search
    add_s = time.perf_counter() - t
    inc_qps = _rate(lambda: [inc.search_tokens(q, 10) for q in toks], len(toks))
    inc_metrics = evaluate(test, _run(inc, qtok, test_ids, 100))
    t = time.perf_counter()
    inc.merge()
    merge_s = time.perf_counter() - t
    out["incremental"] = {
        "delta_docs": 1000,
        "add_1000_s": round(add_s, 3),
        "qps_with_delta": round(inc_qps),
        "test_ndcg@10_with_delta": round(inc_metrics["ndcg@10"], 4),
        "merge_s": round(merge_s, 3),
    }

    # -- tuning on train -----------------------------------------------------------
    if tune:
        grid: list[dict[str, float]] = []
        for tw in GRID_TW:
            idx = LexicalIndex.build(chunks, title_weight=tw)
            for k1, b in itertools.product(GRID_K1, GRID_B):
                idx.k1, idx.b = k1, b  # no rebuild: BM25 is evaluated at query time
                m = evaluate(train, _run(idx, qtok, list(train), 100))
                grid.append({"title_weight": tw, "k1": k1, "b": b, "train_ndcg@10": m["ndcg@10"]})
        best = max(grid, key=lambda g: g["train_ndcg@10"])
        idx = LexicalIndex.build(
            chunks, k1=best["k1"], b=best["b"], title_weight=best["title_weight"]
        )
        chosen = evaluate(test, _run(idx, qtok, test_ids, 100))
        out["tuning"] = {
            "grid": {"title_weight": GRID_TW, "k1": GRID_K1, "b": GRID_B},
            "train_best": {**best, "train_ndcg@10": round(best["train_ndcg@10"], 4)},
            "test_of_train_best": _round(chosen),
            "top5_train": sorted(grid, key=lambda g: -g["train_ndcg@10"])[:5],
        }  # fmt: skip
    return out


def cmrc(root: Path) -> dict[str, Any]:
    corpus = load_corpus(root)
    queries = load_queries(root)
    qrels: Qrels = load_qrels(root, "dev")
    t = time.perf_counter()
    idx = LexicalIndex.build(_chunks(corpus))
    build_s = time.perf_counter() - t
    qtok = {q: tokenize(queries[q]) for q in qrels}
    metrics = evaluate(qrels, _run(idx, qtok, list(qrels), 100))
    toks = list(qtok.values())
    qps = _rate(lambda: [idx.search_tokens(q, 10) for q in toks], len(toks), repeat=1)
    return {
        "docs": len(corpus),
        "queries": len(qrels),
        "build_s": round(build_s, 3),
        "qps_pretokenized": round(qps),
        **_round(metrics),
    }


def markdown(res: dict[str, Any]) -> str:
    lines = [f"load average at start / end: {res['load_start']} / {res['load_end']}", ""]
    sf = res.get("scifact")
    if sf:
        o, r, tb = sf["ours_test"], sf["bm25s_test"], sf["ours_textbook_test"]
        p = sf["params"]
        lines += [
            f"SciFact test ({sf['test_queries']} queries, {sf['docs']} docs)",
            "",
            "| system | nDCG@10 | R@100 | MRR@10 |",
            "|---|---|---|---|",
            f"| citewise lexical, defaults (k1={p['k1']}, b={p['b']}, title×{p['title_weight']}) "
            f"| {o['ndcg@10']:.4f} | {o['recall@100']:.4f} | {o['mrr@10']:.4f} |",
            f"| citewise lexical, textbook (k1=1.5, b=0.75, title×1.0) "
            f"| {tb['ndcg@10']:.4f} | {tb['recall@100']:.4f} | {tb['mrr@10']:.4f} |",
            f"| bm25s, own tokenizer, stem+stop (1.5/0.75) | {r['ndcg@10']:.4f} "
            f"| {r['recall@100']:.4f} | {r['mrr@10']:.4f} |",
        ]
        tu = sf.get("tuning")
        if tu:
            b, c = tu["train_best"], tu["test_of_train_best"]
            lines.append(
                f"| train-tuned (k1={b['k1']}, b={b['b']}, title×{b['title_weight']}; "
                f"train {b['train_ndcg@10']:.4f}) | {c['ndcg@10']:.4f} | {c['recall@100']:.4f} "
                f"| {c['mrr@10']:.4f} |"
            )
        q, bs, inc = sf["qps"], sf["build_s"], sf["incremental"]
        lines += [
            "",
            "| speed (1 process, k=10) | citewise | bm25s |",
            "|---|---|---|",
            f"| queries/s, pre-tokenized | {q['ours_pretokenized']} | {q['bm25s_pretokenized']} |",
            f"| queries/s, end to end (tokenize+search) | {q['ours_end_to_end']} | – |",
            f"| queries/s, 1,000 docs in delta | {inc['qps_with_delta']} | – |",
            f"| build s (incl. tokenize) | {bs['ours_total']} | "
            f"{bs['bm25s_total_own_tokenizer']} (own tokenizer) |",
            f"| index-only build s (our tokens) | {bs['ours_index_only']} "
            f"| {bs['bm25s_index_on_our_tokens']} |",
            f"| add 1,000 docs / merge s | {inc['add_1000_s']} / {inc['merge_s']} | full rebuild |",
            f"| nDCG@10 with 1,000 docs in delta | {inc['test_ndcg@10_with_delta']} | – |",
        ]
    zh = res.get("cmrc2018")
    if zh:
        lines += [
            "",
            f"CMRC 2018 zh retrieval-dev ({zh['queries']} queries, {zh['docs']} paragraphs): "
            f"nDCG@10 {zh['ndcg@10']:.4f}, R@100 {zh['recall@100']:.4f}, "
            f"MRR@10 {zh['mrr@10']:.4f}, {zh['qps_pretokenized']} q/s",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    ap.add_argument("--no-tune", action="store_true", help="skip the train-split grid")
    args = ap.parse_args(argv)
    logging.getLogger("bm25s").setLevel(logging.ERROR)
    data = data_root()
    sf_root, zh_root = data / "beir-scifact", data / "cmrc2018-zh" / "retrieval-dev"
    if not sf_root.exists() and not zh_root.exists():
        print(f"skipping lexical benchmark: no data at {data} (set CITEWISE_DATA)")
        return 0
    res: dict[str, Any] = {"load_start": [round(x, 2) for x in os.getloadavg()]}
    if sf_root.exists():
        res["scifact"] = scifact(sf_root, tune=not args.no_tune)
    if zh_root.exists():
        res["cmrc2018"] = cmrc(zh_root)
    res["load_end"] = [round(x, 2) for x in os.getloadavg()]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=2, ensure_ascii=False), "utf-8")
    print(json.dumps(res, indent=2, ensure_ascii=False) if args.json else markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
