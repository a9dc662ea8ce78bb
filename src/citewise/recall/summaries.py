"""Summaries: text the system writes about a regulation (by hand or by an LLM), kept apart
from the regulation's own text.

A summary is stored in ``<home>/summaries/<kb>.json`` (next to the index, never in the
store's documents), so it is never a chunk, a hit, an evidence fragment or a citation: it
cannot be quoted or cited as the law. It may help retrieval: when a question's key terms
are in a summary, the chunks of the edition it describes that are already candidates
rank a little higher (``BOOST``); nothing else.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from citewise.analysis.tokenize import term_coverage
from citewise.errors import UsageError
from citewise.ingest.editions import Edition
from citewise.ingest.regulation import same_regulation

#: Factor on the fused score of a candidate whose edition's summary matches the question.
BOOST = 1.25
#: Share of the question's key terms a summary must hold to count.
MIN_COVERAGE = 0.5


@dataclass(frozen=True, slots=True)
class Summary:
    regulation: str
    edition: str | None  # None: about every edition
    text: str
    author: str  # "system", "llm:<route>/<model>", a person


def summaries_path(index_dir: Path) -> Path:
    """``<home>/summaries/<kb>.json`` for the index directory ``<home>/index/<kb>``."""
    return index_dir.parent.parent / "summaries" / f"{index_dir.name}.json"


def load(path: Path) -> list[Summary]:
    if not path.exists():
        return []
    return [Summary(**item) for item in json.loads(path.read_text(encoding="utf-8"))]


def add(path: Path, summary: Summary) -> None:
    """Store ``summary`` (replacing one for the same regulation and edition)."""
    if not summary.regulation.strip() or not summary.text.strip():
        raise UsageError(
            "A summary needs a regulation id and some text.",
            hint='Pass e.g. regulation="12 CFR 1002" and the summary text.',
        )
    kept = [
        s
        for s in load(path)
        if not (same_regulation(s.regulation, summary.regulation) and s.edition == summary.edition)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps([asdict(s) for s in [*kept, summary]], ensure_ascii=False, indent=1))
    os.replace(tmp, path)


def matching_paths(
    summaries: list[Summary], query: str, editions: dict[str, Edition]
) -> tuple[frozenset[str], list[dict[str, str | None]]]:
    """Edition paths whose summary holds the question's key terms, and which summaries."""
    paths: set[str] = set()
    used: list[dict[str, str | None]] = []
    for s in summaries:
        if term_coverage(query, [s.text]).ratio < MIN_COVERAGE:
            continue
        hit = {
            p
            for p, e in editions.items()
            if same_regulation(e.regulation, s.regulation) and s.edition in (None, e.label)
        }
        if hit:
            paths |= hit
            used.append({"regulation": s.regulation, "edition": s.edition, "author": s.author})
    return frozenset(paths), used
