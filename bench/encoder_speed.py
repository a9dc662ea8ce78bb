"""MiniLM encoder cost: fp32 arithmetic (the packaged ONNX) vs int8 (per-channel, integer
MatMul), by batch size and threads, on SciFact abstracts.

    .venv/bin/python -m bench.encoder_speed [--docs 60] [--batches 1,8,32] [--threads 1,2]
        [--queries 100] [--json out.json]

Each configuration runs in its own child process, so its peak memory is its own:
``peak`` is the child's maximum RSS, ``encoder`` that minus the RSS before the model was
loaded (tokenizer, numpy and the texts already in memory). Speed is windows (and passages)
per **CPU-second of the process** (all its threads), not per wall second, because the
machine is shared; wall figures are printed for reference only. Quality: cosine of every
passage and query vector to exact fp32 (the numpy forward over the fp32 safetensors).
Skips cleanly when the data is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._beir import data_root, load_corpus, load_queries


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _texts(n_docs: int, n_queries: int) -> tuple[list[str], list[str]]:
    root = data_root() / "beir-scifact"
    docs = [f"{d.title}\n{d.text}" for d in load_corpus(root)[:n_docs]]
    queries = list(load_queries(root).values())[:n_queries]
    return docs, queries


def child(backend: str, batch: int, threads: int, n_docs: int, n_queries: int) -> dict[str, Any]:
    """One configuration, measured in this process."""
    import numpy as np

    from citewise.index.minilm import MiniLMEmbedder, MiniLMSettings, load_minilm

    docs, queries = _texts(n_docs, n_queries)
    before = _rss_mb()
    settings = MiniLMSettings(backend=backend, batch_size=batch, threads=threads)  # type: ignore[arg-type]
    m = load_minilm(settings)
    if not isinstance(m, MiniLMEmbedder):
        return {"error": str(m)}
    windows = sum(len(m.windows(t)) for t in docs)
    m.encode(queries[:2], kind="query")  # warm-up (session start, first allocations)
    cpu, wall = time.process_time(), time.perf_counter()
    vecs = m.encode(docs)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    qcpu = time.process_time()
    qvecs = np.vstack([m.encode([q], kind="query") for q in queries])  # one at a time
    qcpu = time.process_time() - qcpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = Path(os.environ["ENCODER_SPEED_OUT"])
    np.savez(out, docs=vecs, queries=qvecs)
    return {
        "backend": backend,
        "precision": m.precision,
        "batch": batch,
        "threads": threads,
        "passages": len(docs),
        "windows": windows,
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "passages_per_cpu_s": round(len(docs) / cpu, 2),
        "windows_per_cpu_s": round(windows / cpu, 2),
        "query_cpu_ms": round(1000 * qcpu / max(1, len(queries)), 1),
        "peak_mb": round(peak),
        "encoder_mb": round(peak - before),
    }


def _run_child(args: list[str], out: Path) -> dict[str, Any]:
    env = {**os.environ, "ENCODER_SPEED_OUT": str(out), "OPENBLAS_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "bench.encoder_speed", "--child", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=60)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--batches", default="1,8,32")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--backends", default="onnx,int8")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--child", nargs=5, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        backend, batch, threads, n_docs, n_q = a.child
        print(json.dumps(child(backend, int(batch), int(threads), int(n_docs), int(n_q))))
        return 0
    if not (data_root() / "beir-scifact").exists():
        print(f"skip: no SciFact under {data_root()}")
        return 0
    import numpy as np

    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"encoder-speed-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    n = [str(a.docs), str(a.queries)]
    ref = _run_child(["numpy", "8", "1", *n], tmp / "ref.npz")
    if "error" in ref:
        print("reference failed:", ref["error"])
        return 1
    z = np.load(tmp / "ref.npz")
    ref_docs, ref_queries = z["docs"], z["queries"]
    rows = [ref]
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}; {os.cpu_count()} cores")
    print(f"exact fp32 (numpy): {ref['windows_per_cpu_s']} windows/CPU-s")
    for backend in a.backends.split(","):
        for batch in a.batches.split(","):
            for threads in a.threads.split(","):
                row = _run_child([backend, batch, threads, *n], tmp / "run.npz")
                if "error" not in row:
                    got = np.load(tmp / "run.npz")
                    dc = (got["docs"] * ref_docs).sum(axis=1)
                    qc = (got["queries"] * ref_queries).sum(axis=1)
                    row |= {
                        "cos_docs_mean": round(float(dc.mean()), 4),
                        "cos_docs_min": round(float(dc.min()), 4),
                        "cos_queries_mean": round(float(qc.mean()), 4),
                        "cos_queries_p5": round(float(np.percentile(qc, 5)), 4),
                    }
                rows.append(row)
                print(json.dumps(row), flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    if a.json:
        a.json.write_text(json.dumps({"load_start": load, "rows": rows}, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
