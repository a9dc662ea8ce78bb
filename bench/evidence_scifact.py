"""Evidence-stage benchmark on BEIR SciFact: does the context pack hold direct support
from a relevant document, and how large is it - RSE on vs off.

* evidence recall: share of test queries whose pack has a ``direct_support`` fragment
  from a document judged relevant in ``qrels/test.tsv``;
* mean pack size in estimated tokens (and fragments).

The KB is built once (dense route off, for speed) under
``~/.cache/citewise/evidence-scifact`` - every document written as ``<_id>.md``
(``# title`` then the text). Skips cleanly when the dataset is absent.

    .venv/bin/python -m bench.evidence_scifact [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote, unquote

from bench._beir import data_root, load_corpus, load_qrels, load_queries


def _cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citewise" / "evidence-scifact"


def build(root: Path, cache: Path) -> Path:
    from citewise.kb import Home

    home = cache / "home"
    done = cache / "built.json"
    if done.exists():
        return home
    docs = cache / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for d in load_corpus(root):
        body = f"# {d.title.strip() or d.doc_id}\n\n{d.text.strip()}\n"
        (docs / (quote(d.doc_id, safe="") + ".md")).write_text(body, "utf-8")
    t0 = time.perf_counter()
    with Home.open(home) as h:
        report = h.kb().add([docs])
    done.write_text(json.dumps({"files": len(report.files), "seconds": time.perf_counter() - t0}))
    return home


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=0, help="only the first N test queries")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    root = data_root() / "beir-scifact"
    if not (root / "queries.jsonl").exists():
        print(f"SciFact not found under {root}; skipping.")
        return 0
    os.environ["CITEWISE_DENSE"] = "off"
    from citewise.evidence import assemble
    from citewise.kb import Home

    home = build(root, _cache())
    queries = load_queries(root)
    qrels = load_qrels(root, "test")
    qids = [q for q in sorted(qrels) if q in queries]
    if args.limit:
        qids = qids[: args.limit]
    out: dict[str, dict[str, float]] = {}
    with Home.open(home) as h:
        kb = h.kb()
        for rse in (True, False):
            hit = 0
            tokens: list[int] = []
            frags: list[int] = []
            direct: list[int] = []
            t0 = time.perf_counter()
            for qid in qids:
                pack = assemble(kb.context, queries[qid], rse=rse)
                relevant = set(qrels[qid])
                found = {unquote(f.path[:-3]) for f in pack.direct}
                hit += bool(found & relevant)
                tokens.append(pack.budget_use.tokens)
                frags.append(pack.budget_use.fragments)
                direct.append(len(pack.direct))
            secs = time.perf_counter() - t0
            name = "rse_on" if rse else "rse_off"
            out[name] = {
                "queries": len(qids),
                "evidence_recall": round(hit / max(1, len(qids)), 4),
                "mean_tokens": round(statistics.mean(tokens), 1) if tokens else 0.0,
                "mean_fragments": round(statistics.mean(frags), 2) if frags else 0.0,
                "mean_direct": round(statistics.mean(direct), 2) if direct else 0.0,
                "ms_per_query": round(1000 * secs / max(1, len(qids)), 1),
            }
            print(name, out[name], flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
