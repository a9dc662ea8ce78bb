"""Static checks for the answer-probe suite (no engine needed).

Run: python tests/probes/check_cases.py [tests/probes]

Checks that cases.yaml parses into a list of well-formed cases, ids are unique
kebab-case, kinds and outcomes are known, every cited/not-cited document exists,
and every must_include string of an answered case occurs (case-insensitively)
in at least one corpus file. Prints the case count per kind.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

KINDS = {
    "definition",
    "how_to",
    "compare",
    "causal",
    "conflict",
    "qualifier",
    "stale",
    "repeated",
    "out_of_corpus",
    "near_miss",
    "greeting",
    "chinese",
    "injection",
    "clause",
    "generic",
    "graph",
}
OUTCOMES = {"answered", "insufficient_evidence", "non_kb_reply"}
DEGRADATIONS = {"none", "partial_coverage", "conflict", "stale_evidence", "insufficient_evidence"}
EXPECT_KEYS = {
    "outcome",
    "degradation",
    "must_include",
    "must_not_include",
    "cited_docs",
    "not_cited_docs",
    "roles",
    "relation",
}
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def doc_text(corpus: Path, doc: str) -> str:
    path = corpus / doc
    return path.read_text(encoding="utf-8").lower() if path.is_file() else ""


def check(root: Path) -> list[str]:
    errors: list[str] = []
    corpus = root / "corpus"
    texts = [p.read_text(encoding="utf-8").lower() for p in corpus.rglob("*.md")]
    cases: Any = yaml.safe_load((root / "cases.yaml").read_text(encoding="utf-8"))
    if not isinstance(cases, list):
        return ["cases.yaml must be a YAML list"]
    seen: set[str] = set()
    kinds: Counter[str] = Counter()
    for i, case in enumerate(cases):
        where = f"case #{i}"
        if not isinstance(case, dict):
            errors.append(f"{where}: not a mapping")
            continue
        cid = case.get("id")
        where = f"case {cid!r}"
        if not isinstance(cid, str) or not ID_RE.match(cid):
            errors.append(f"{where}: id must be kebab-case")
        elif cid in seen:
            errors.append(f"{where}: duplicate id")
        else:
            seen.add(cid)
        kind = case.get("kind")
        if kind not in KINDS:
            errors.append(f"{where}: unknown kind {kind!r}")
        kinds[str(kind)] += 1
        if not isinstance(case.get("question"), str) or not case["question"].strip():
            errors.append(f"{where}: question missing")
        expect = case.get("expect")
        if not isinstance(expect, dict):
            errors.append(f"{where}: expect missing")
            continue
        unknown = set(expect) - EXPECT_KEYS
        if unknown:
            errors.append(f"{where}: unknown expect keys {sorted(unknown)}")
        if expect.get("outcome") not in OUTCOMES:
            errors.append(f"{where}: unknown outcome {expect.get('outcome')!r}")
        if "degradation" in expect and expect["degradation"] not in DEGRADATIONS:
            errors.append(f"{where}: unknown degradation {expect['degradation']!r}")
        for key in ("cited_docs", "not_cited_docs"):
            for doc in expect.get(key) or []:
                if not (corpus / doc).is_file():
                    errors.append(f"{where}: {key} file {doc!r} not in corpus")
        if expect.get("outcome") == "answered":
            cited = [doc_text(corpus, d) for d in expect.get("cited_docs") or []]
            for s in expect.get("must_include") or []:
                if not any(s.lower() in t for t in texts):
                    errors.append(f"{where}: must_include {s!r} not found in corpus")
                elif cited and not any(s.lower() in t for t in cited):
                    errors.append(f"{where}: must_include {s!r} not in any cited_docs file")
    print(f"{len(cases)} cases")
    for kind, n in sorted(kinds.items()):
        print(f"  {kind:14} {n}")
    return errors


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
    errors = check(root)
    for e in errors:
        print("ERROR:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
