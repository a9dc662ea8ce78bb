"""The lexical abstention gate's trade-off curve (issue 17).

On the SciFact KB (dense off), for answerable queries (SciFact *train* claims; the test
split only for the final figure) and off-domain ones (CMRC 2018 Chinese questions, 14 CFR
section subjects from the GPO XML, SQuAD 2.0 dev questions: none is about biomedical
claims), the features the gate may use are read from the product's own lexical index:

* ``coverage``: share of the query's key terms in the best lexical chunk (today's gate);
* ``weighted``: the same share weighted by each term's idf (a rare term counts more);
* ``score``: the best chunk's BM25 score;
* ``standout``: how far the best score stands above the next nine (a share of it);
* ``meaning`` (``--meaning``): the shipped cross-encoder's log-odds for the query and the
  best chunk, read only where the shipped word rule refuses (the product's second
  reading, ``recall/gate.py``; ninth round).

The documentation question sets (``bench/questions/docs_*.yaml``, Markdown corpora under
``docs-corpora``) add answerable questions from another domain (each on a dense-off KB of
its own corpus; their unanswerable ones are counted as refused or not), since a gate
chosen on SciFact alone could refuse them.

For each rule and threshold the share of answerable queries kept (and of those whose
relevant document the index ranks in its top 10) is printed against the share of
off-domain queries refused. Thresholds are chosen on train only.

    .venv/bin/python -m bench.gate_curve [--home DIR] [--json out.json]
"""

from __future__ import annotations

import os

os.environ.setdefault("CITEWISE_DENSE", "off")

import argparse
import json
import math
import random
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench._beir import data_root, load_qrels, load_queries

Row = dict[str, Any]
N_OFF = 400  # off-domain questions per source (sampled with a fixed seed)


def off_domain(root: Path) -> dict[str, list[str]]:
    rng = random.Random(17)
    out: dict[str, list[str]] = {}
    cmrc = root / "cmrc2018-zh" / "retrieval-dev" / "queries.jsonl"
    if cmrc.exists():
        qs = [json.loads(line)["text"] for line in cmrc.read_text("utf-8").splitlines() if line]
        out["cmrc"] = rng.sample(qs, min(N_OFF, len(qs)))
    cfr = root / "regulatory-text" / "gpo-cfr-xml" / "CFR-2015-title14-vol5.xml"
    if cfr.exists():
        pat = r"<SECTION>\s*<SECTNO>[^<]*</SECTNO>\s*<SUBJECT>([^<]*)</SUBJECT>"
        subjects = sorted(set(re.findall(pat, cfr.read_text("utf-8"))))
        out["cfr"] = rng.sample(subjects, min(N_OFF, len(subjects)))
    squad = root / "squad2-dev" / "dev-v2.0.json"
    if squad.exists():
        data = json.loads(squad.read_text("utf-8"))["data"]
        qs = [q["question"] for a in data for p in a["paragraphs"] for q in p["qas"]]
        out["squad"] = rng.sample(qs, min(N_OFF, len(qs)))
    return out


def docs_rows(root: Path, tmp: Path) -> dict[str, list[Row]]:
    """Features of the documentation question sets (bench/questions/docs_*.yaml), each on
    a dense-off KB of its own corpus's Markdown files; ``rel_top10``: an expected file is
    among the index's first 10 chunks."""
    import shutil

    import yaml

    from citewise.kb import Home

    out: dict[str, list[Row]] = {"docs_answerable": [], "docs_unanswerable": []}
    for spec in sorted((Path(__file__).resolve().parent / "questions").glob("docs_*.yaml")):
        doc = yaml.safe_load(spec.read_text("utf-8"))
        src = root / "docs-corpora" / doc["root"]
        if not src.is_dir():
            continue
        files = tmp / "src" / doc["corpus"]
        if not any(src.rglob("*.md")):  # e.g. requests' docs are reStructuredText
            continue
        for f in sorted(src.rglob("*.md")):
            (files / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, files / f.relative_to(src))
        home = tmp / f"home-{doc['corpus']}"
        with Home.open(home) as h:
            h.kb().add([files])
        qs = doc["questions"]
        rows = features(home, [q["question"] for q in qs])
        for q, r in zip(qs, rows, strict=True):
            want = {e["file"] for e in q.get("expected") or []}
            r["rel_top10"] = any(p in want for p in r["paths"])
            r["id"] = q["id"]
            out["docs_answerable" if q.get("answerable") else "docs_unanswerable"].append(r)
    return out


#: Set by ``--meaning``: read the refused queries' best chunk with the cross-encoder.
READ_MEANING = False


def features(home: Path, queries: Sequence[str]) -> list[Row]:
    from citewise.analysis.tokenize import key_terms, query_tokens, term_coverage, tokenize
    from citewise.kb import Home
    from citewise.recall.gate import meaning_read

    with Home.open(home) as h:
        index = h.index("default")
        index.sync()
        lex = index.lexical
        n = len(lex)
        rows = []
        for q in queries:
            hits = lex.search_tokens(query_tokens(q), k=10)
            hits = [x for x in hits if x.score > 0]
            if not hits:
                rows.append(
                    {
                        "coverage": 0.0,
                        "weighted": 0.0,
                        "score": 0.0,
                        "standout": 0.0,
                        "top10": [],
                        "paths": [],
                        "scores": [],
                    }
                )
                continue
            chunk = index.chunks[hits[0].chunk_id]
            text = index.chunk_text(hits[0].chunk_id)  # the state keeps chunks without text
            cover = term_coverage(q, [chunk.breadcrumb, text])
            present = set(tokenize(chunk.breadcrumb)) | set(tokenize(text))
            terms = key_terms(q)
            idf = {
                t: math.log(1 + (n - (df := lex.document_frequency(t)) + 0.5) / (df + 0.5))
                for t in terms
            }
            total = sum(idf.values()) or 1.0
            rows.append(
                {
                    "coverage": cover.ratio,
                    "weighted": sum(v for t, v in idf.items() if t in present) / total,
                    "score": float(hits[0].score),
                    "standout": standout([x.score for x in hits]),
                    "top10": [Path(index.chunks[x.chunk_id].path).stem for x in hits],
                    "paths": [index.chunks[x.chunk_id].path for x in hits],
                    "scores": [round(float(x.score), 4) for x in hits],
                    "terms": {t: [lex.document_frequency(t), t in present] for t in terms},
                }
            )
            if READ_MEANING and not _shipped(rows[-1]):
                rows[-1]["meaning"] = meaning_read(q, chunk.breadcrumb, text)
    return rows


def standout(scores: Sequence[float]) -> float:
    """How far the best BM25 score stands above the mean of the next (up to) nine, as a
    share of the best: 0 when the first ten are level. Unlike the raw score it does not
    grow with the corpus's idf."""
    if len(scores) < 2 or scores[0] <= 0:
        return 0.0
    rest = scores[1:10]
    return float((scores[0] - sum(rest) / len(rest)) / scores[0])


Rule = Callable[[Row, float], bool]  # True: the gate lets the query through


def _shipped(r: Row) -> bool:
    return bool(r["coverage"] >= 0.34 or r["score"] >= 6.0)


def _known_coverage(r: Row) -> float:
    """Coverage over the key terms the KB holds at all (a term in no abstract counts as
    neither evidence nor its absence)."""
    known = [present for df, present in r.get("terms", {}).values() if df > 0]
    return sum(known) / len(known) if known else 0.0


def _rare_hit(r: Row, most: float) -> bool:
    """The best chunk holds a key term found in at most ``most`` documents of the KB."""
    return any(present and df <= most for df, present in r.get("terms", {}).values())


RULES: dict[str, tuple[Rule, list[float]]] = {
    "coverage": (lambda r, t: r["coverage"] >= t, [0.0, 0.1, 0.2, 0.25, 0.3, 0.34, 0.4, 0.5]),
    "weighted": (lambda r, t: r["weighted"] >= t, [0.1, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6]),
    "score": (lambda r, t: r["score"] >= t, [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0]),
    "coverage >= 0.34 or score >=": (
        lambda r, t: r["coverage"] >= 0.34 or r["score"] >= t,
        [4.0, 5.0, 5.5, 6.0, 7.0, 8.0],
    ),
    "shipped or standout >=": (
        lambda r, t: _shipped(r) or r["standout"] >= t,
        [0.25, 0.3, 0.35, 0.4, 0.5, 0.6],
    ),
    "shipped or coverage >= 0.25 and standout >=": (
        lambda r, t: _shipped(r) or (r["coverage"] >= 0.25 and r["standout"] >= t),
        [0.2, 0.3, 0.4, 0.5],
    ),
    # fifth round (speed5): a term the KB has never seen, and a match on a rare term
    "coverage over known terms >= 0.34 or score >=": (
        lambda r, t: _known_coverage(r) >= 0.34 or r["score"] >= t,
        [5.0, 5.5, 5.75, 6.0],
    ),
    "coverage >= 0.34 or score >= 5.75 or coverage >= 0.25 and a hit in <= N docs": (
        lambda r, t: (
            r["coverage"] >= 0.34
            or r["score"] >= 5.75
            or (r["coverage"] >= 0.25 and _rare_hit(r, t))
        ),
        [1, 2, 3, 5],
    ),
    # ninth round (--meaning): the shipped rule, then the cross-encoder's reading
    "shipped or meaning >=": (
        lambda r, t: _shipped(r) or (r.get("meaning") is not None and r["meaning"] >= t),
        [-5.0, -4.0, -3.4, -3.0, -2.8, -2.5, -2.2, -2.0, -1.0, 0.0],
    ),
}


def _share(rows: list[Row], keep: Callable[[Row], bool]) -> float | None:
    return round(sum(1 for r in rows if keep(r)) / len(rows), 4) if rows else None


def curve(ans: list[Row], off: dict[str, list[Row]], docs: dict[str, list[Row]]) -> list[Row]:
    """Per rule and threshold: shares of answerable queries kept (all, and those whose
    relevant document the index ranks in its top 10) and of off-domain ones refused."""
    out = []
    good = [r for r in ans if r["rel_top10"]]
    docs_ans = docs.get("docs_answerable", [])
    docs_good = [r for r in docs_ans if r["rel_top10"]]
    for name, (rule, grid) in RULES.items():
        for t in grid:

            def keep(r: Row, rule: Rule = rule, t: float = t) -> bool:
                return rule(r, t)

            row: Row = {
                "rule": name,
                "threshold": t,
                "answerable_kept": _share(ans, keep),
                "ranked_well_kept": _share(good, keep),
                "docs_kept": _share(docs_ans, keep),
                "docs_ranked_well_kept": _share(docs_good, keep),
            }
            for src, rows in off.items():
                row[f"{src}_refused"] = round(1 - (_share(rows, keep) or 0.0), 4)
            if docs.get("docs_unanswerable"):
                row["docs_unanswerable_refused"] = round(
                    1 - (_share(docs["docs_unanswerable"], keep) or 0.0), 4
                )
            out.append(row)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--home", type=Path, help="a home holding the SciFact KB (dense off)")
    ap.add_argument("--split", default="train")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--meaning", action="store_true", help="read refused queries with the cross-encoder"
    )
    args = ap.parse_args()
    global READ_MEANING
    READ_MEANING = args.meaning
    root = data_root()
    sci = root / "beir-scifact"
    if not (sci / "queries.jsonl").exists():
        print(f"SciFact not found under {root}; skipping.")
        return 0
    if args.home is None:
        from bench.answers_scifact import _cache
        from bench.evidence_scifact import build

        args.home = build(sci, _cache("off"))
    queries = load_queries(sci)
    qrels = load_qrels(sci, args.split)
    qids = [q for q in qrels if q in queries]
    ans = features(args.home, [queries[q] for q in qids])
    for q, r in zip(qids, ans, strict=True):
        r["rel_top10"] = any(d in qrels[q] for d in r["top10"])
    off = {src: features(args.home, qs) for src, qs in off_domain(root).items()}
    with tempfile.TemporaryDirectory() as tmp:
        docs = docs_rows(root, Path(tmp))
    res = {"split": args.split, "answerable": len(ans), "curve": curve(ans, off, docs)}
    if args.json:
        res["rows"] = {"answerable": ans, **off, **docs}
        args.json.write_text(json.dumps(res), "utf-8")
    cols = list(res["curve"][0])
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for row in res["curve"]:
        print("| " + " | ".join(str(row[c]) for c in cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
