"""Ingest benchmark: files/s and nodes/s for parsing and for parse + store.

Corpora (read from ../shared/data, or $CITEWISE_DATA; skipped cleanly when absent):
- BEIR SciFact, 5,183 abstracts, each written as a Markdown file (title as H1);
- the structured regulatory texts (RegML XML, GPO CFR XML, PRC laws in Markdown), with the
  clause nodes found per file set against the counts in regulatory-text/SOURCE.md.

``--groups 1,8,32,128`` also times ``add`` of the SciFact files with that many files per
transaction (group commit; 1 = one transaction and one fsync per file, as before issue 17),
twice each, alternated, best run kept. The dense route follows ``CITEWISE_DENSE`` (set it
to ``off`` to time the store path).

Run: ``.venv/bin/python -m bench.ingest [--json] [--limit N] [--groups 1,32] [--scifact-only]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

from citewise.config import IngestConfig, Settings
from citewise.core.records import ParsedDocument
from citewise.ingest.parse import parse_document
from citewise.kb import Home
from citewise.store.factory import DB_NAME, open_store


def data_dir() -> Path:
    env = os.environ.get("CITEWISE_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"


# Reference counts from regulatory-text/SOURCE.md (verified by the data's curator).
# cfpb: <paragraph> elements; gpo: SECTION elements; cn: lines starting 第…条 (articles).
EXPECTED: dict[str, tuple[str, int]] = {
    "cfpb-regml/1002_2017-20417_20220101.xml": ("paragraphs", 535),
    "cfpb-regml/1013_2017-24411.xml": ("paragraphs", 136),
    "cfpb-regml/1016_2016-16132.xml": ("paragraphs", 628),
    "cfpb-regml/1030_2011-31727.xml": ("paragraphs", 392),
    "gpo-cfr-xml/CFR-2015-title14-vol5.xml": ("sections", 860),
    "cn-laws-md/personal-information-protection-law-2021-08-20.md": ("articles", 74),
    "cn-laws-md/data-security-law-2021-06-10.md": ("articles", 55),
    "cn-laws-md/cybersecurity-law-2016-11-07.md": ("articles", 79),
    "cn-laws-md/e-commerce-law-2018-08-31.md": ("articles", 89),
    "cn-laws-md/consumer-rights-protection-law-2013-10-25.md": ("articles", 63),
    "cn-laws-md/civil-procedure-law-2023-09-01.md": ("articles", 306),
}


def _parse(raw: bytes, name: str) -> ParsedDocument:
    return parse_document(raw, name=name, kb="bench", doc_path=name, config=IngestConfig())


ARTICLE = re.compile(r"^Art\.\d+$")


def clause_counts(doc: ParsedDocument, unit: str) -> tuple[int, int]:
    """(nodes with any clause path, nodes matching the reference unit).

    articles: distinct ``Art.N`` paths (items inside an article add ``(k)``, chapters are
    ``Ch.N``); sections: section nodes with a clause path; paragraphs: RegML ``paragraph``
    nodes (label without ``Interp``) that carry a clause path.
    """
    with_clause = [n for n in doc.nodes if n.clause_path]
    if unit == "articles":
        return len(with_clause), len(
            {n.clause_path for n in with_clause if ARTICLE.match(n.clause_path or "")}
        )
    if unit == "sections":
        return len(with_clause), sum(1 for n in with_clause if n.kind == "section")
    regulation = [
        n
        for n in with_clause
        if n.kind == "paragraph" and "label" in n.attrs and "Interp" not in str(n.attrs["label"])
    ]
    return len(with_clause), len(regulation)


def bench_regulatory(root: Path) -> list[dict[str, Any]]:
    rows = []
    for rel, (unit, expected) in EXPECTED.items():
        path = root / rel
        if not path.exists():
            continue
        raw = path.read_bytes()
        t0 = time.perf_counter()
        doc = _parse(raw, path.name)
        secs = time.perf_counter() - t0
        total, found = clause_counts(doc, unit)
        rows.append(
            {
                "file": rel,
                "unit": unit,
                "expected": expected,
                "found": found,
                "clause_nodes": total,
                "nodes": len(doc.nodes),
                "parse_ms": round(secs * 1000, 1),
            }
        )
    return rows


def scifact_files(root: Path, out: Path, limit: int | None) -> int:
    n = 0
    with gzip.open(root / "beir-scifact" / "corpus.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            text = f"# {rec['title'].strip()}\n\n{rec['text'].strip()}\n"
            (out / f"{rec['_id']}.md").write_text(text, encoding="utf-8")
            n += 1
            if limit and n >= limit:
                break
    return n


def _add(tmp: Path, corpus: Path, group: int | None) -> tuple[float, dict[str, int]]:
    """Seconds of one ``add`` of ``corpus`` into a fresh home (dense off), with ``group``
    files per transaction (None: the configured default)."""
    settings = Settings.resolve(tmp / f"home-{group}")
    if group is not None:
        settings = replace(settings, ingest=replace(settings.ingest, group_files=group))
    settings.home.mkdir(parents=True)
    with Home(settings, open_store(settings.home / DB_NAME)) as home:
        t0 = time.perf_counter()
        report = home.kb().add([corpus])
        secs = time.perf_counter() - t0
        stats = home.kb().stats()
    assert report.ok, [f for f in report.files if f.status == "failed"][:3]
    shutil.rmtree(settings.home)
    return secs, stats


def bench_scifact(root: Path, limit: int | None, groups: list[int]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "scifact"
        corpus.mkdir()
        n_files = scifact_files(root, corpus, limit)
        files = sorted(corpus.iterdir())
        t0 = time.perf_counter()
        nodes = sum(len(_parse(p.read_bytes(), p.name).nodes) for p in files)
        parse_s = time.perf_counter() - t0
        add_s, stats = _add(Path(tmp), corpus, None)
        # Group commit: files per transaction, alternated so load drifts hit every size.
        by_group: dict[int, list[float]] = {g: [] for g in groups}
        for _ in range(2 if groups else 0):
            for g in groups:
                by_group[g].append(_add(Path(tmp), corpus, g)[0])
    return {
        "files": n_files,
        "nodes": nodes,
        "chunks": stats.get("chunks"),
        "parse_s": round(parse_s, 2),
        "parse_files_s": round(n_files / parse_s, 1),
        "parse_nodes_s": round(nodes / parse_s, 1),
        "add_s": round(add_s, 2),
        "add_files_s": round(n_files / add_s, 1),
        "add_nodes_s": round(nodes / add_s, 1),
        "add_files_s_by_group": {
            g: round(n_files / min(secs), 1) for g, secs in by_group.items() if secs
        },
    }


def bench_regulatory_store(root: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, Home.open(Path(tmp) / "home") as home:
        t0 = time.perf_counter()
        report = home.kb().add([root / "regulatory-text"])
        secs = time.perf_counter() - t0
        stats = home.kb().stats()
        added = report.count("added")
    return {
        "files": added,
        "nodes": stats.get("nodes"),
        "add_s": round(secs, 2),
        "add_files_s": round(added / secs, 2),
        "add_nodes_s": round(stats["nodes"] / secs, 1),
        "failed": report.count("failed"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="SciFact documents (default all)")
    ap.add_argument(
        "--groups",
        default="",
        help="comma-separated files-per-transaction sizes to compare, e.g. 1,8,32,128",
    )
    ap.add_argument("--scifact-only", action="store_true", help="skip the regulatory texts")
    args = ap.parse_args()
    groups = [int(g) for g in args.groups.split(",") if g.strip()]
    root = data_dir()
    if not (root / "beir-scifact").exists():
        print(f"bench.ingest: skipped, no benchmark data at {root} (set CITEWISE_DATA)")
        return 0
    result: dict[str, Any] = {
        "date": date.today().isoformat(),
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        ),
        "load": round(os.getloadavg()[0], 2),
        "regulatory_clauses": []
        if args.scifact_only
        else bench_regulatory(root / "regulatory-text"),
        "regulatory_store": {} if args.scifact_only else bench_regulatory_store(root),
        "scifact": bench_scifact(root, args.limit, groups),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print(f"# ingest benchmark, {result['date']}, {result['machine']}\n")
    print("| file | unit | expected | found | clause nodes | nodes | parse ms |")
    print("|---|---|---|---|---|---|---|")
    for r in result["regulatory_clauses"]:
        print(
            f"| {r['file']} | {r['unit']} | {r['expected']} | {r['found']} | "
            f"{r['clause_nodes']} | {r['nodes']} | {r['parse_ms']} |"
        )
    print()
    for key in ("regulatory_store", "scifact"):
        print(f"{key}: " + ", ".join(f"{k}={v}" for k, v in result[key].items()))
    print(f"peak RSS: {result['peak_rss_mb']} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
