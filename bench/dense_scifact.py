"""Dense retrieval on BEIR SciFact with the bundled all-MiniLM-L6-v2.

    .venv/bin/python -m bench.dense_scifact [--backend onnx|numpy] [--blas-threads N]
        [--cmrc] [--libs N]

Reports passages/s, nDCG@10 / Recall@100 (test split, 300 queries) for truncated vs windowed
long abstracts, exact vs binary+int8 search (and recall@10 of the latter against exact), and
one-query-at-a-time latency (encode + search) p50/p95. Window vectors are cached in
bench/.cache/ keyed by the embedder fingerprint; truncation reuses each text's first window,
which is exactly the truncated input. ``--cmrc`` adds cmrc2018-zh retrieval-dev with the
multilingual USE encoder (and MiniLM for contrast); ``--libs N`` compares the numpy index with
faiss / usearch (when importable) on N vectors. Skips cleanly when the data is absent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path


def _parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="onnx", choices=["onnx", "numpy"])
    ap.add_argument("--blas-threads", default="1", help="OPENBLAS_NUM_THREADS ('' leaves it)")
    ap.add_argument("--limit", type=int, default=0, help="encode only the first N docs")
    ap.add_argument(
        "--libs",
        type=int,
        default=0,
        help="N>0: compare numpy vs faiss/usearch (if importable) on N vectors made from SciFact",
    )
    ap.add_argument(
        "--cmrc",
        action="store_true",
        help="also cmrc2018-zh retrieval-dev: USE-multilingual vs MiniLM",
    )
    return ap.parse_args()


ARGS = _parse()
if ARGS.blas_threads:  # must precede the numpy import to take effect
    os.environ["OPENBLAS_NUM_THREADS"] = ARGS.blas_threads

import numpy as np  # noqa: E402

from bench._beir import data_root, evaluate, load_corpus, load_qrels, load_queries  # noqa: E402
from citewise.index.embedder import Embedder  # noqa: E402
from citewise.index.minilm import MiniLMEmbedder, MiniLMSettings, load_minilm  # noqa: E402
from citewise.index.multilingual import load_use  # noqa: E402
from citewise.index.vectors import VectorIndex  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"
OUT = Path(__file__).resolve().parent / "out"


def _segments(
    m: MiniLMEmbedder, texts: list[str], tag: str
) -> tuple[np.ndarray, np.ndarray, float]:
    """Unit vectors of every window of every text (+ owner index), cached by fingerprint."""
    key = hashlib.sha256(f"{m.fingerprint}|{tag}|{len(texts)}".encode()).hexdigest()[:20]
    path = CACHE / f"scifact-{key}.npz"
    if path.exists():
        z = np.load(path)
        return z["vecs"], z["owner"], float(z["pps"])
    segs, owner = [], []
    for i, t in enumerate(texts):
        for w in m.windows(t):
            segs.append(w)
            owner.append(i)
    print(f"encoding {len(texts)} passages = {len(segs)} windows ...", file=sys.stderr)
    t0 = time.perf_counter()
    parts = []
    step = 512
    for s in range(0, len(segs), step):
        parts.append(m.encode_segments(segs[s : s + step]))
        done = min(s + step, len(segs))
        rate = done / (time.perf_counter() - t0)
        print(f"  {done}/{len(segs)} windows, {rate:.1f}/s", file=sys.stderr)
    vecs = np.vstack(parts)
    pps = len(texts) / (time.perf_counter() - t0)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, vecs=vecs, owner=np.asarray(owner), pps=np.asarray(pps))
    return vecs, np.asarray(owner), pps


def _pool(vecs: np.ndarray, owner: np.ndarray, n: int, first_only: bool) -> np.ndarray:
    out = np.zeros((n, vecs.shape[1]), dtype=np.float32)
    if first_only:
        first = np.unique(owner, return_index=True)[1]
        out[owner[first]] = vecs[first]
    else:
        np.add.at(out, owner, vecs)
    normed: np.ndarray = out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return normed


def _cached_encode(e: Embedder, texts: list[str], tag: str) -> tuple[np.ndarray, float]:
    key = hashlib.sha256(f"{e.fingerprint}|{tag}|{len(texts)}".encode()).hexdigest()[:20]
    path = CACHE / f"{tag}-{key}.npz"
    if path.exists():
        z = np.load(path)
        return z["vecs"], float(z["pps"])
    print(f"encoding {len(texts)} {tag} texts with {e.name} ...", file=sys.stderr)
    t0 = time.perf_counter()
    vecs = e.encode(texts, kind="passage")
    pps = len(texts) / (time.perf_counter() - t0)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, vecs=vecs, pps=np.asarray(pps))
    return vecs, pps


def _cmrc(minilm: MiniLMEmbedder) -> dict[str, object]:
    root = data_root() / "cmrc2018-zh" / "retrieval-dev"
    if not (root / "queries.jsonl").exists():
        return {"skipped": f"{root} not found"}
    corpus = load_corpus(root)
    texts = [f"{d.title} {d.text}".strip() for d in corpus]
    ids = [d.doc_id for d in corpus]
    queries = load_queries(root)
    qrels = load_qrels(root, "dev")
    qids = sorted(qrels)
    out: dict[str, object] = {"passages": len(texts), "queries": len(qids)}
    use = load_use()
    for e in (use, minilm):
        if not isinstance(e, Embedder):
            out[str(getattr(e, "route", "?"))] = f"unavailable: {e.reason}"
            continue
        dvecs, pps = _cached_encode(e, texts, "cmrc")
        t0 = time.perf_counter()
        qvecs = e.encode([queries[q] for q in qids], kind="query")
        qps = len(qids) / (time.perf_counter() - t0)
        idx = VectorIndex(e.dim, exact_threshold=10**9)
        idx.add(ids, dvecs)
        run = {
            q: {h.id: h.score for h in idx.search(qv, 100)}
            for q, qv in zip(qids, qvecs, strict=True)
        }
        scores = {k: round(v, 4) for k, v in evaluate(qrels, run).items()}
        out[e.name] = {**scores, "passages_per_s": round(pps, 1), "queries_per_s": round(qps, 1)}
    return out


def _timed(
    fn: Callable[[np.ndarray], list[int]], qvecs: np.ndarray
) -> tuple[list[set[int]], dict[str, float]]:
    got, lat = [], []
    for q in qvecs:
        t = time.perf_counter()
        got.append(set(fn(q)))
        lat.append((time.perf_counter() - t) * 1000)
    return got, {
        "p50_ms": round(float(np.percentile(lat, 50)), 3),
        "p95_ms": round(float(np.percentile(lat, 95)), 3),
    }


def _libs(docs: np.ndarray, qvecs: np.ndarray) -> dict[str, object]:
    """Scale check: N noisy copies of the SciFact vectors, the 300 real queries, top 10."""
    rng = np.random.default_rng(0)
    n = ARGS.libs
    base = docs[rng.integers(0, len(docs), n)]
    data = base + 0.05 * rng.standard_normal(base.shape).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    truth = [set(np.argsort(-(data @ q))[:10].tolist()) for q in qvecs]
    out: dict[str, object] = {"n": n}

    def record(name: str, build_s: float, fn: Callable[[np.ndarray], list[int]]) -> None:
        got, lat = _timed(fn, qvecs)
        rec = float(np.mean([len(a & b) / 10 for a, b in zip(got, truth, strict=True)]))
        out[name] = {"recall@10": round(rec, 4), "build_s": round(build_s, 2), **lat}

    keys = [str(i) for i in range(n)]
    for name, thr in (("numpy exact f32", 10**9), ("numpy binary+int8", 0)):
        t0 = time.perf_counter()
        vi = VectorIndex(docs.shape[1], exact_threshold=thr)
        vi.add(keys, data)

        def top10(q: np.ndarray, vi: VectorIndex = vi) -> list[int]:
            return [int(h.id) for h in vi.search(q, 10)]

        record(name, time.perf_counter() - t0, top10)
    try:
        import faiss

        t0 = time.perf_counter()
        flat = faiss.IndexFlatIP(data.shape[1])
        flat.add(data)
        record(
            "faiss flat",
            time.perf_counter() - t0,
            lambda q: flat.search(q[None, :], 10)[1][0].tolist(),
        )
        t0 = time.perf_counter()
        hnsw = faiss.IndexHNSWFlat(data.shape[1], 32, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efSearch = 64
        hnsw.add(data)
        record(
            "faiss hnsw32",
            time.perf_counter() - t0,
            lambda q: hnsw.search(q[None, :], 10)[1][0].tolist(),
        )
    except ImportError:
        out["faiss"] = "not installed"
    try:
        from usearch.index import Index

        t0 = time.perf_counter()
        ui = Index(ndim=data.shape[1], metric="ip", dtype="i8")
        ui.add(np.arange(n), data)
        record(
            "usearch hnsw i8", time.perf_counter() - t0, lambda q: ui.search(q, 10).keys.tolist()
        )
    except ImportError:
        out["usearch"] = "not installed"
    return out


def main() -> int:
    root = data_root() / "beir-scifact"
    if not (root / "queries.jsonl").exists():
        print(f"SKIP: {root} not found (set CITEWISE_DATA)")
        return 0
    m = load_minilm(MiniLMSettings(backend=ARGS.backend, long_text="window"))
    if not isinstance(m, MiniLMEmbedder):
        print(f"SKIP: dense route unavailable: {m.reason} ({m.hint})")
        return 0
    corpus = load_corpus(root)
    if ARGS.limit:
        corpus = corpus[: ARGS.limit]
    texts = [f"{d.title} {d.text}".strip() for d in corpus]
    ids = [d.doc_id for d in corpus]
    queries = load_queries(root)
    qrels = load_qrels(root, "test")
    qids = sorted(qrels)

    vecs, owner, pps = _segments(m, texts, "title+text")
    n_long = int(np.sum(np.bincount(owner) > 1))
    report: dict[str, object] = {
        "embedder": m.name,
        "fingerprint": m.fingerprint,
        "backend": ARGS.backend,
        "blas_threads": ARGS.blas_threads or "default",
        "passages": len(texts),
        "windows": len(vecs),
        "passages_over_window": n_long,
        "passages_per_s_window_mode": round(pps, 2),
    }
    t0 = time.perf_counter()
    qvecs = m.encode([queries[q] for q in qids], kind="query")
    report["queries_per_s_batched"] = round(len(qids) / (time.perf_counter() - t0), 1)

    results: dict[str, dict[str, float]] = {}
    for mode in ("truncate", "window"):
        dvecs = _pool(vecs, owner, len(texts), first_only=mode == "truncate")
        exact = VectorIndex(384, exact_threshold=10**9)
        approx = VectorIndex(384, exact_threshold=0)
        exact.add(ids, dvecs)
        approx.add(ids, dvecs)
        overlap = []
        for name, idx in (("exact", exact), ("binary+int8", approx)):
            run = {}
            for q, qv in zip(qids, qvecs, strict=True):
                run[q] = {h.id: h.score for h in idx.search(qv, 100)}
            scores = evaluate(qrels, run)
            results[f"{mode}/{name}"] = {k: round(v, 4) for k, v in scores.items()}
        for qv in qvecs:
            want = {h.id for h in exact.search(qv, 10)}
            overlap.append(len(want & {h.id for h in approx.search(qv, 10)}) / 10)
        results[f"{mode}/binary+int8"]["recall@10_vs_exact"] = round(float(np.mean(overlap)), 4)
    # informational: score a passage by its best window (MaxP) instead of the pooled vector
    sims = vecs @ qvecs.T  # (windows, queries)
    best = np.full((len(texts), len(qids)), -np.inf, dtype=np.float32)
    np.maximum.at(best, owner, sims)
    run = {}
    for j, q in enumerate(qids):
        top = np.argsort(-best[:, j])[:100]
        run[q] = {ids[i]: float(best[i, j]) for i in top}
    results["window-maxp/exact"] = {k: round(v, 4) for k, v in evaluate(qrels, run).items()}
    report["quality"] = results

    # one query at a time: encode + search, window vectors, both index paths
    for name, thr in (("exact", 10**9), ("binary+int8", 0)):
        idx = VectorIndex(384, exact_threshold=thr)
        idx.add(ids, _pool(vecs, owner, len(texts), first_only=False))
        lat = []
        for q in qids:
            t = time.perf_counter()
            idx.search(m.encode([queries[q]], kind="query")[0], 10)
            lat.append((time.perf_counter() - t) * 1000)
        report[f"latency_ms_{name}"] = {
            "p50": round(float(np.percentile(lat, 50)), 2),
            "p95": round(float(np.percentile(lat, 95)), 2),
            "qps": round(1000 / float(np.mean(lat)), 1),
        }
    if ARGS.libs:
        report["libraries"] = _libs(_pool(vecs, owner, len(texts), first_only=False), qvecs)
    if ARGS.cmrc:
        report["cmrc2018_zh_dev"] = _cmrc(m)
    print(json.dumps(report, indent=2))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"dense_scifact_{ARGS.backend}.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
