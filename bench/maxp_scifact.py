"""MaxP on SciFact: a chunk scored by its best window's vector instead of one pooled vector.

    python -m bench.maxp_scifact encode [--cache DIR]   # per-window vectors, cached
    python -m bench.maxp_scifact score [--cache DIR]    # train grid, then test once

The bundled MiniLM encodes a text longer than its 256-token window as overlapping windows
and stores the renormalised mean of their unit vectors (``MiniLMEmbedder.encode``). Here
every window of every chunk of the ``citewise eval retrieval`` KB (``--cache``: its eval
cache; the KB's encoder, int8 by default) is encoded on its own and kept in
``~/.cache/citewise/maxp/``; a chunk of one window keeps its stored vector, which is that
window's. The vector route is then re-scored per claim as

* ``mean``: the stored chunk vector (the product today);
* ``max``: the best window's cosine (MaxP);
* ``mix a``: ``a x max + (1 - a) x mean``;

and fused with the product's lexical route as ``bench/fusion_scifact.py`` emulates it (it
reproduces the product's figures). Settings are chosen on the SciFact **train** claims
(809) only; test (300) is scored once per chosen setting. CPU time per window is reported.
Skips (exit 0) without the data.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from bench._beir import data_root

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "citewise" / "maxp"


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _kb(cache: Path | None) -> Any:
    from citewise.eval.retrieval import load_beir, prepare_kb

    data = load_beir(data_root() / "beir-scifact", "test")
    return prepare_kb(data, cache=cache, encoder="minilm", dense=True)


def _dir(width: int) -> Path:
    return CACHE if not width else CACHE / f"w{width}"


def encode(cache: Path | None, width: int = 0) -> dict[str, Any]:
    """Every window of every multi-window chunk, encoded alone, cached by chunk id; with
    ``width`` (tokens per window, specials included; a quarter shared), every window of
    every chunk at that width instead of the encoder's own."""
    from citewise.index.manager import dense_text
    from citewise.index.minilm import MiniLMEmbedder

    home, kb, _ = _kb(cache)
    try:
        index = kb.context.index
        index.sync()
        emb = index.embedder
        assert isinstance(emb, MiniLMEmbedder), emb
        if width:
            emb.settings = replace(emb.settings, max_seq_len=width, window_overlap=width // 4)
        ids = sorted(index.chunks)
        texts = index.chunk_texts(ids)
        owner: list[int] = []
        segs: list[list[int]] = []
        for n, cid in enumerate(ids):
            c = index.chunks[cid]
            wins = emb.windows(dense_text(replace(c, search_text=texts[cid])))
            if len(wins) > 1 or width:
                segs.extend(wins)
                owner.extend([n] * len(wins))
        _log(f"{len(segs)} windows of {len(set(owner))} multi-window chunks ({emb.name})")
        cpu = time.process_time()
        parts = []
        for i in range(0, len(segs), 500):
            parts.append(emb.encode_segments(segs[i : i + 500]))
            _log(f"{i + len(parts[-1])}/{len(segs)}")
        cpu = time.process_time() - cpu
        out = _dir(width)
        out.mkdir(parents=True, exist_ok=True)
        np.save(out / "windows.npy", np.vstack(parts))
        np.save(out / "owner.npy", np.asarray(owner, dtype=np.int64))
        meta = {
            "fingerprint": emb.fingerprint,
            "chunks": ids,
            "windows": len(segs),
            "cpu_s": round(cpu, 1),
            "windows_per_cpu_s": round(len(segs) / cpu, 2),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load": os.getloadavg(),
        }
        (out / "meta.json").write_text(json.dumps(meta), "utf-8")
        return {k: v for k, v in meta.items() if k != "chunks"}
    finally:
        home.close()


def window_scores(
    qvec: np.ndarray, mean_vec: np.ndarray, width: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(mean, max) cosine of every claim (rows of ``qvec``) to every chunk."""
    meta = json.loads((_dir(width) / "meta.json").read_text("utf-8"))
    wins = np.load(_dir(width) / "windows.npy").astype(np.float64)
    owner = np.load(_dir(width) / "owner.npy")
    mean = qvec @ mean_vec.T
    best = mean.copy()
    multi = np.unique(owner)
    best[:, multi] = -np.inf
    per_win = qvec @ wins.T
    for col in range(per_win.shape[1]):
        c = owner[col]
        np.maximum(best[:, c], per_win[:, col], out=best[:, c])
    assert len(meta["chunks"]) == mean_vec.shape[0]
    return mean, best


def score(cache: Path | None, prf: bool = False, width: int = 0) -> dict[str, Any]:
    from bench.fusion_scifact import Fusion, fuse, load, ndcg, rm3

    routes, qrels, docs, vectors, bags, term_scores = load(cache)
    out: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": os.getloadavg(),
    }
    scored = {s: window_scores(r.qvec, vectors, width) for s, r in routes.items()}
    tr, te = routes["train"], routes["test"]
    shipped = Fusion("minmax", 100, 0.6)

    def vec_of(split: str, a: float) -> np.ndarray:
        mean, best = scored[split]
        return a * best + (1 - a) * mean

    def vector_only(split: str, a: float) -> float:
        v = vec_of(split, a)
        runs = [{int(d): float(v[i, d]) for d in np.argsort(-v[i])[:100]} for i in range(len(v))]
        return ndcg(routes[split], qrels[split], docs, runs)

    out["before"] = {
        s: ndcg(routes[s], qrels[s], docs, fuse(routes[s].lex, routes[s].vec, shipped))
        for s in routes
    }
    _log(f"before (shipped min-max 0.6, depth 100): {out['before']}")
    grid = []
    for a in (0.0, 0.25, 0.5, 0.75, 1.0):
        row: dict[str, Any] = {"a": a, "vector_train": vector_only("train", a)}
        for norm in ("minmax", "zscore"):
            for depth in (100, 300):
                for wl in (0.4, 0.5, 0.55, 0.6, 0.65, 0.7):
                    f = Fusion(norm, depth, wl)
                    row[f"{norm}/{depth}/{wl}"] = ndcg(
                        tr, qrels["train"], docs, fuse(tr.lex, vec_of("train", a), f)
                    )
        grid.append(row)
        _log(f"a={a}: vector {row['vector_train']}, shipped fusion {row['minmax/100/0.6']}")
    out["grid"] = grid
    best_shipped = max(grid, key=lambda r: r["minmax/100/0.6"])
    a = float(best_shipped["a"])
    out["best_with_shipped_fusion"] = {
        "a": a,
        "train": best_shipped["minmax/100/0.6"],
        "test": ndcg(te, qrels["test"], docs, fuse(te.lex, vec_of("test", a), shipped)),
        "vector_test": vector_only("test", a),
    }
    flat = [(v, r["a"], k) for r in grid for k, v in r.items() if "/" in k]
    v, a2, key = max(flat)
    how, deep, weight = key.split("/")
    f = Fusion(how, int(deep), float(weight))
    out["best_overall"] = {
        "a": a2,
        "fusion": key,
        "train": v,
        "test": ndcg(te, qrels["test"], docs, fuse(te.lex, vec_of("test", float(a2)), f)),
    }
    _log(f"best: {out['best_with_shipped_fusion']} / {out['best_overall']}")
    if prf:  # BM25 feedback from the fused top k (fusion_scifact's best family) on top
        rows = []
        fa = float(a2)
        for k in (3, 5):
            for gamma in (0.1, 0.2, 0.4):
                lex2 = rm3(tr, bags, term_scores, fuse(tr.lex, vec_of("train", fa), f), k, 5, gamma)
                got = ndcg(tr, qrels["train"], docs, fuse(lex2, vec_of("train", fa), f))
                rows.append({"k": k, "m": 5, "gamma": gamma, "train": got})
                _log(f"prf {rows[-1]}")
        top = max(rows, key=lambda r: r["train"])
        runs = fuse(te.lex, vec_of("test", fa), f)
        lex2 = rm3(te, bags, term_scores, runs, int(top["k"]), 5, float(top["gamma"]))
        top["test"] = ndcg(te, qrels["test"], docs, fuse(lex2, vec_of("test", fa), f))
        out["prf"], out["prf_best"] = rows, top
        _log(f"prf best {top}")
    term_scores.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=("encode", "score"))
    ap.add_argument("--prf", action="store_true", help="BM25 feedback on the best setting")
    ap.add_argument("--width", type=int, default=0, help="tokens per window (default: own)")
    ap.add_argument("--cache", type=Path, default=None, help="eval cache (default: the CLI's)")
    args = ap.parse_args(argv)
    if not (data_root() / "beir-scifact" / "queries.jsonl").exists():
        print("skipped: no SciFact data", file=sys.stderr)
        return 0
    if args.cmd == "encode":
        res = encode(args.cache, args.width)
    else:
        res = score(args.cache, args.prf, args.width)
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
