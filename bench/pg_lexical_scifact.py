"""SciFact lexical retrieval: BM25 done by PostgreSQL vs the in-process index (issue 37).

The SciFact corpus (5,183 abstracts; ``title`` as the heading field, as bench/lexical_scifact
does) is written into a throwaway PostgreSQL cluster, one chunk per abstract with the term
row ingest stores (:func:`citewise.store.postgres.lexical.term_row`), by COPY (the tables a
search reads: document, content, version, chunk and the term rows). The 300 test queries are run
through :class:`citewise.index.db_lexical.DbLexical` and through
:class:`citewise.index.lexical.LexicalIndex` built from the same chunks; reported: nDCG@10,
Recall@100 and MRR@10 of both, how many queries' top 100 differ (ids or scores beyond 1e-6),
and the per-query latency p50 of each. Skips (exit 0) without the data or PostgreSQL.
Run: ``python -m bench.pg_lexical_scifact``; output on stdout and
``bench/results/pg_lexical.jsonl``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._beir import BeirDoc, data_root, evaluate, load_corpus, load_qrels, load_queries
from bench.pg_lexical import OUT
from bench.pg_scale import _pct

KB = "default"


def load(url: str, corpus: list[BeirDoc]) -> None:
    import psycopg

    from citewise.store.factory import open_store
    from citewise.store.postgres.lexical import copy_term_rows

    open_store(url).close()  # the schema
    ts = "2026-12-07T00:00:00Z"
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        with cur.copy("COPY document(doc_id, kb, path, head_vid, created_at) FROM STDIN") as cp:
            for i, d in enumerate(corpus):
                cp.write_row((f"D{i}", KB, f"{d.doc_id}.md", i + 1, ts))
        sql = "COPY content(content_id, doc_id, content_sha256, text, node_count, chunk_count)"
        with cur.copy(sql + " FROM STDIN") as cp:
            for i, d in enumerate(corpus):
                cp.write_row((i + 1, f"D{i}", f"s{i}", d.text, 0, 1))
        sql = "COPY version(vid, doc_id, version_no, action, content_id, rev_added, created_at)"
        with cur.copy(sql + " FROM STDIN") as cp:
            for i, _ in enumerate(corpus):
                cp.write_row((i + 1, f"D{i}", 1, "added", i + 1, 1, ts))
        sql = (
            "COPY chunk(content_id, chunk_id, ordinal, node_ids, heading_path, breadcrumb, "
            "search_text, line_start, line_end, char_start, char_end, word_count)"
        )
        with cur.copy(sql + " FROM STDIN") as cp:
            for i, d in enumerate(corpus):
                cp.write_row((i + 1, d.doc_id, 0, "[]", "[]", d.title, d.text, 1, 1, 0, 1, 1))
        rows = [(i + 1, d.doc_id, d.text, d.title) for i, d in enumerate(corpus)]
        copy_term_rows(conn, rows)  # type: ignore[arg-type]  # a plain-tuple connection
        conn.commit()
        conn.execute("ANALYZE")
        conn.commit()


def _untied(hits: list[Any]) -> list[tuple[float, frozenset[str]]]:
    """The ranking as groups of equal score (within 1e-6), each group's ids as a set; the
    last group is dropped (a tie cut at the list's end keeps either index's choice)."""
    groups: list[tuple[float, set[str]]] = []
    for h in hits:
        if groups and abs(groups[-1][0] - h.score) <= 1e-6:
            groups[-1][1].add(h.chunk_id)
        else:
            groups.append((h.score, {h.chunk_id}))
    return [(round(s, 5), frozenset(ids)) for s, ids in groups[:-1]]


def compare(url: str, root: Path) -> dict[str, Any]:
    from citewise.analysis.tokenize import tokenize
    from citewise.index.db_lexical import DbLexical
    from citewise.index.lexical import LexicalIndex
    from citewise.store.factory import open_store

    corpus, queries, test = load_corpus(root), load_queries(root), load_qrels(root, "test")
    load(url, corpus)
    memory = LexicalIndex.build((d.doc_id, d.text, d.title) for d in corpus)
    store = open_store(url)
    db = DbLexical(store, KB)  # type: ignore[arg-type]
    runs: dict[str, dict[str, dict[str, float]]] = {"memory": {}, "postgres": {}}
    lat: dict[str, list[float]] = {"memory": [], "postgres": []}
    scores_differ = ids_differ = 0
    for qid in test:
        tokens = tokenize(queries[qid])
        t = time.perf_counter()
        want = memory.search_tokens(tokens, 100)
        lat["memory"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        got = db.search_tokens(tokens, 100)
        lat["postgres"].append((time.perf_counter() - t) * 1000)
        runs["memory"][qid], runs["postgres"][qid] = dict(want), dict(got)
        scores_differ += len(got) != len(want) or any(
            abs(a.score - b.score) > 1e-6 for a, b in zip(got, want, strict=True)
        )
        ids_differ += _untied(got) != _untied(want)
    store.close()
    out: dict[str, Any] = {"kind": "pg_lexical_scifact", "docs": len(corpus), "queries": len(test)}
    for name, run in runs.items():
        out[name] = {k: round(v, 4) for k, v in evaluate(test, run).items()}
        out[name]["p50_ms"] = round(_pct(lat[name], 0.5), 2)
    out["queries_whose_top100_scores_differ"] = scores_differ  # positionally, beyond 1e-6
    out["queries_whose_top100_ids_differ_beyond_ties"] = ids_differ
    return out


def main() -> int:
    root = data_root() / "beir-scifact"
    if not root.exists():
        print(f"skipped: no SciFact data at {root}")
        return 0
    from tests.pg import PG_BIN, _start, reachable_bin

    bin_dir = reachable_bin(PG_BIN)
    base = Path(tempfile.mkdtemp(prefix="citewise-pglexsf-", dir="/tmp"))
    os.chmod(base, 0o755)
    try:
        cluster, prefix, data = _start(base, bin_dir)
    except (RuntimeError, OSError) as exc:
        shutil.rmtree(base, ignore_errors=True)
        print(f"skipped: PostgreSQL unavailable ({exc})")
        return 0
    try:
        row = compare(cluster.create_database("scifact"), root)
        row["date"] = time.strftime("%Y-%m-%d %H:%M UTC")
        row["load_avg"] = round(os.getloadavg()[0], 1)
        with OUT.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
    finally:
        stop = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(stop, capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
