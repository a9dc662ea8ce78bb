"""Editions over real regulations: identity, current-only, --as-of and named-edition lookup.

Corpus (``../shared/data/regulatory-text``): CFPB RegML Regulation B (12 CFR 1002, FR doc
2017-20417, effective 2022-01-01) and M (12 CFR 1013, 2017-24411, effective 2018-01-01)
as they are, plus, for each, an *older edition* made here: the same file with its preamble
changed to FR doc ``2011-OLD`` effective 2012-01-01 (a synthetic superseded edition: same
clauses, so every clause query could cite either), and two PRC laws with front matter
(regulation = the law's title, edition = the date in the file name). Dense route off
(identifier + lexical), so the figures are about editions, not the encoder.

Per regulation, clause paths are sampled (seed 7) from the stored clause paths and asked
four ways:

* ``§ <clause>`` (default: current-only): hits and answer citations from the superseded
  edition (must be 0), and how many the same search holds with ``--all-editions``;
* ``§ <clause>`` with ``--as-of 2015-06-01``: share of top hits from the older edition;
* ``§ <clause> of the <year> edition``: top hit in that edition with that clause path;
* a clause the edition lacks (``<clause>(zz)``) and an edition that does not exist
  (``1999``): the outcome says so (``clause_not_in_edition`` / ``edition_not_found``).

Skips cleanly without the shared data. Run: ``python -m bench.regulations [--json] [--n N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "regulatory-text"
REGML = {
    "12 CFR 1002": "cfpb-regml/1002_2017-20417_20220101.xml",
    "12 CFR 1013": "cfpb-regml/1013_2017-24411.xml",
}
LAWS = ("cn-laws-md/cybersecurity-law-2016-11-07.md", "cn-laws-md/data-security-law-2021-06-10.md")


def older(xml: str) -> str:
    """The same RegML as a synthetic older edition (effective 2012-01-01)."""
    xml = re.sub(
        r"<documentNumber>[^<]*</documentNumber>",
        "<documentNumber>2011-OLD</documentNumber>",
        xml,
        count=1,
    )
    return re.sub(
        r"<effectiveDate>[^<]*</effectiveDate>",
        "<effectiveDate>2012-01-01</effectiveDate>",
        xml,
        count=1,
    )


def build(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    for rel in REGML.values():
        text = (DATA / rel).read_text(encoding="utf-8")
        (docs / Path(rel).name).write_text(text, encoding="utf-8")
        (docs / ("old-" + Path(rel).name)).write_text(older(text), encoding="utf-8")
    for rel in LAWS:
        text = (DATA / rel).read_text(encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip()
        day = re.search(r"(\d{4}-\d{2}-\d{2})", rel)
        assert day is not None
        front = (
            f'---\nregulation: {title}\nedition: "{day.group(1)}"\n'
            f"effective_date: {day.group(1)}\n---\n"
        )
        (docs / Path(rel).name).write_text(front + text, encoding="utf-8")
    return docs


def run(n: int) -> dict[str, Any]:
    os.environ["CITEWISE_DENSE"] = "off"
    from citewise.core.search import SearchFilters
    from citewise.kb import Home

    rng = random.Random(7)
    out: dict[str, Any] = {"regulations": {}}
    with tempfile.TemporaryDirectory() as tmp:
        docs = build(Path(tmp))
        with Home.open(Path(tmp) / "home") as home:
            kb = home.kb("default")
            t0 = time.perf_counter()
            kb.add([docs])
            out["ingest_s"] = round(time.perf_counter() - t0, 1)
            index = home.index("default")
            index.sync()
            from citewise.recall.editions import _editions

            eds = _editions(index, None)
            out["editions"] = {p: [e.regulation, e.label, str(e.effective)] for p, e in eds.items()}
            for reg, rel in REGML.items():
                name = Path(rel).name
                stored = sorted(
                    {
                        n.clause_path
                        for n in kb.store.nodes_of_version(
                            "default", name, kb.store.get_document("default", name).version_id
                        )
                        if n.clause_path
                        and re.fullmatch(r"\d+\.\d+(\([a-z0-9]+\))+", n.clause_path)
                    }
                )
                sample = rng.sample(stored, min(n, len(stored)))
                out["regulations"][reg] = measure(kb, SearchFilters, reg, name, sample)
    return out


def measure(kb: Any, filters: Any, reg: str, name: str, sample: list[str]) -> dict[str, Any]:
    old = "old-" + name
    stale_default = stale_all = stale_cited = asof_old = named_ok = missing_ok = absent_ok = 0
    ms_current: list[float] = []
    ms_all: list[float] = []
    asked = 0
    for i, clause in enumerate(sample):
        q = f"What does 12 CFR § {clause} say?"
        t0 = time.perf_counter()
        cur = kb.search(q, top_k=10)
        ms_current.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        every = kb.search(q, filters=filters(current_only=False), top_k=10)
        ms_all.append((time.perf_counter() - t0) * 1000)
        stale_default += sum(h.path == old for h in cur.hits)
        stale_all += sum(h.path == old for h in every.hits)
        if i < 10:  # answers cost more: the first ten clauses
            asked += 1
            stale_cited += sum(c.path == old for c in kb.ask(q).citations)
        past = kb.search(q, filters=filters(as_of="2015-06-01"), top_k=10)
        asof_old += bool(past.hits) and past.hits[0].path == old
        named = kb.search(f"§ {clause} of the 2011 edition", top_k=10)
        top = named.hits[0] if named.hits else None
        named_ok += bool(
            top and top.path == old and top.regulation and top.regulation["clause"] == clause
        )
        gone = kb.search(f"§ {clause}(zz) of the 2011 edition", top_k=10)
        missing_ok += bool(gone.abstention and gone.abstention.criterion == "clause_not_in_edition")
        nope = kb.search(f"§ {clause} of the 1999 edition", top_k=10)
        absent_ok += bool(nope.abstention and nope.abstention.criterion == "edition_not_found")
    k = len(sample)
    return {
        "clauses": k,
        "superseded_hits_current_only": stale_default,
        "superseded_hits_all_editions": stale_all,
        "superseded_citations_current_only": f"{stale_cited} in {asked} answers",
        "as_of_2015_top_is_old_edition": f"{asof_old}/{k}",
        "named_edition_clause_found": f"{named_ok}/{k}",
        "missing_clause_reported": f"{missing_ok}/{k}",
        "missing_edition_reported": f"{absent_ok}/{k}",
        "search_ms_median_current_only": round(statistics.median(ms_current), 1),
        "search_ms_median_all_editions": round(statistics.median(ms_all), 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--n", type=int, default=40, help="clauses sampled per regulation")
    args = ap.parse_args()
    if not all((DATA / rel).exists() for rel in (*REGML.values(), *LAWS)):
        print(f"skipped: {DATA} not found (shared regulatory text absent)")
        return
    load = os.getloadavg()
    result = run(args.n)
    result["date"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    result["load_avg_1m_start"] = round(load[0], 1)
    result["load_avg_1m_end"] = round(os.getloadavg()[0], 1)
    result["cpus"] = os.cpu_count()
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    for key, value in result.items():
        if key != "regulations":
            print(f"{key}: {value}")
    for reg, figures in result["regulations"].items():
        print(reg)
        for key, value in figures.items():
            print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
