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
from dataclasses import replace

from citewise.core.records import Node
from citewise.evidence.models import Fragment
from citewise.evidence.tokens import estimate_tokens
from citewise.evidence.whole import node_fragment

STEP = re.compile(r"^\s*(?:\d{1,3}[.)]|step\s+\d+)", re.I)
#: Section headings that announce the main procedure of a document.
PROCEDURE_HEAD = re.compile(r"\b(?:steps?|procedure|instructions|how to)\b|步骤|操作|流程", re.I)
NodesOf = Callable[[str, int], list[Node]]


def complete_procedures(fragments: list[Fragment], nodes_of: NodesOf) -> list[Fragment]:
    """``fragments`` plus the missing items of every numbered list they touch."""
    nodes_of = _cached(nodes_of)
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


def merge_procedures(fragments: list[Fragment], nodes_of: NodesOf) -> list[Fragment]:
    """``fragments`` with each numbered list they touch as one fragment.

    For an evidence set with an item limit (the LLM route): :func:`complete_procedures`
    first, then every run of steps becomes a single fragment with the exact source text
    from the first step's start to the last step's end, at the place of its first step.
    It is ``direct_support`` when any step it replaces was. Fragments inside a run are
    dropped; everything else is kept in order."""
    nodes_of = _cached(nodes_of)
    done = complete_procedures(fragments, nodes_of)
    out: list[Fragment] = []
    placed: set[tuple[str, int]] = set()
    runs_by: dict[tuple[str, int], list[list[Node]]] = {}
    for f in done:
        key = (f.path, f.version_id)
        if key not in runs_by:
            runs_by[key] = _runs(nodes_of(*key))
        run = next((r for r in runs_by[key] if _inside(f, r)), None)
        if run is None or f.truncated:
            out.append(f)
            continue
        if (f.doc_id, run[0].char_start) in placed:
            continue
        placed.add((f.doc_id, run[0].char_start))
        members = [g for g in done if g.doc_id == f.doc_id and _inside(g, run)]
        direct = any(g.role == "direct_support" for g in members)
        merged = _span(f, run, nodes_of(*key))
        out.append(replace(merged, role="direct_support") if direct else merged)
    return out


def _cached(nodes_of: NodesOf) -> NodesOf:
    """``nodes_of`` reading each document version from the store once per call."""
    seen: dict[tuple[str, int], list[Node]] = {}

    def read(path: str, version_id: int) -> list[Node]:
        if (path, version_id) not in seen:
            seen[(path, version_id)] = nodes_of(path, version_id)
        return seen[(path, version_id)]

    return read


def _inside(f: Fragment, run: list[Node]) -> bool:
    return run[0].char_start <= f.char_start and f.char_end <= run[-1].char_end


def _span(like: Fragment, run: list[Node], nodes: list[Node]) -> Fragment:
    """One fragment over the whole run, its text sliced from the enclosing section."""
    start, end = run[0].char_start, run[-1].char_end
    outer = min(
        (n for n in nodes if n.kind != "document" and n.char_start <= start and end <= n.char_end),
        key=lambda n: n.char_end - n.char_start,
    )
    text = outer.text[start - outer.char_start : end - outer.char_start]
    return Fragment(
        role="adjacent_context",
        doc_id=like.doc_id,
        path=like.path,
        revision=like.revision,
        version_id=like.version_id,
        node_ids=tuple(n.id for n in run),
        line_start=run[0].line_start,
        line_end=run[-1].line_end,
        char_start=start,
        char_end=end,
        heading_path=run[0].heading_path,
        text=text,
        tokens=estimate_tokens(text),
        truncated=False,
        citation_id=f"{outer.id}:{start}-{end}",
        reason="procedure",
        kind="list",
    )
