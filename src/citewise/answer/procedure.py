"""Whole procedures for how-to answers.

Evidence often holds one or two steps of a numbered list (the ones that match the
question). A how-to answer that skipped the steps in between would be wrong, so every
numbered list the evidence touches is completed from the same document version: the run
of consecutive top-level list items around the matched item, each as its own exact span.
The full document is the outer boundary of what may be read (see the evidence stage).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citewise.evidence.models import Fragment
from citewise.evidence.whole import node_fragment
from citewise.ingest.models import Node

STEP = re.compile(r"^\s*(?:\d{1,3}[.)]|step\s+\d+)", re.I)
#: Section headings that announce the main procedure of a document.
PROCEDURE_HEAD = re.compile(r"\b(?:steps?|procedure|instructions|how to)\b|步骤|操作|流程", re.I)
NodesOf = Callable[[str, int], list[Node]]


def complete_procedures(fragments: list[Fragment], nodes_of: NodesOf) -> list[Fragment]:
    """``fragments`` plus the missing items of every numbered list they touch."""
    have = {(f.doc_id, f.char_start, f.char_end) for f in fragments}
    covered = [(f.doc_id, f.char_start, f.char_end) for f in fragments]
    extra: list[Fragment] = []
    seen_runs: set[tuple[str, int]] = set()
    first_doc = fragments[0].doc_id if fragments else ""
    for f in fragments:
        lead = f.doc_id == first_doc and f is fragments[0]
        if not STEP.match(f.text) and not lead:
            continue
        nodes = nodes_of(f.path, f.version_id)
        for run in _runs(nodes):
            touched = any(n.char_start <= f.char_start < n.char_end for n in run)
            announced = lead and bool(PROCEDURE_HEAD.search(" ".join(run[0].heading_path[-1:])))
            if not (touched or announced):
                continue
            if (f.doc_id, run[0].char_start) in seen_runs:
                continue
            seen_runs.add((f.doc_id, run[0].char_start))
            for n in run:
                key = (f.doc_id, n.char_start, n.char_end)
                inside = any(
                    d == f.doc_id and s <= n.char_start and n.char_end <= e for d, s, e in covered
                )
                if key in have or inside:
                    continue
                extra.append(_fragment(f, n))
            if touched:
                break
    return fragments + extra


def _runs(nodes: list[Node]) -> list[list[Node]]:
    """Runs of consecutive numbered top-level list items within one section."""
    runs: list[list[Node]] = []
    current: list[Node] = []
    for n in nodes:
        if n.kind == "section" or n.kind == "document":
            continue
        nested = current and n.char_start < current[-1].char_end
        if nested:
            continue
        if (
            n.kind == "list_item"
            and STEP.match(n.text)
            and (not current or current[-1].heading_path == n.heading_path)
        ):
            current.append(n)
            continue
        if current:
            runs.append(current)
        current = [n] if n.kind == "list_item" and STEP.match(n.text) else []
    if current:
        runs.append(current)
    return runs


def _fragment(like: Fragment, n: Node) -> Fragment:
    return node_fragment(
        n,
        role="adjacent_context",
        doc_id=like.doc_id,
        path=like.path,
        revision=like.revision,
        version_id=like.version_id,
        reason="procedure_step",
    )
