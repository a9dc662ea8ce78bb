"""Small-to-big document augmentation around direct-support spans.

The full document version is the outer boundary of what may be read; only selected
fragments enter the pack:

* ``direct_support`` - each span, its own fragment (context never replaces it);
* ``parent_context`` - the enclosing section's heading line and lead paragraph, and a
  table's header for a matching row;
* ``adjacent_context`` - up to ``adjacent_window`` chunk members before and after each
  direct span inside its section (never across a section boundary), narrowed when the
  section is dense (a side stops after two fragment caps of tokens) and when several
  spans share the section (the window is divided between them). (An RSE segment decides
  where direct spans are looked for; it does not widen the window.) Overlapping windows
  are merged: every member appears once, and consecutive members form one fragment up to
  the per-fragment cap. Code, table and Mermaid blocks are always fragments of their own
  (whole or not at all);
* ``background`` - the document's top section heading and lead, when no direct span is
  in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.core.records import Node
from citewise.core.search import Hit
from citewise.evidence.docview import DocView
from citewise.evidence.models import Budget, Fragment, Role
from citewise.evidence.spans import SupportSpan
from citewise.evidence.tokens import estimate_tokens

BLOCKS = frozenset({"code", "mermaid", "table"})
LEAD_KINDS = frozenset({"paragraph", "list_item", "blockquote"})


def direct_fragments(view: DocView, spans: Sequence[tuple[SupportSpan, float]]) -> list[Fragment]:
    return [
        view.fragment(
            "direct_support",
            sp.start,
            sp.end,
            cite=sp.node,
            node_ids=(sp.node.id,),
            reason=sp.reason,
            rank=rank,
            kind=sp.node.kind if sp.node.kind in ("code", "mermaid") else "",
        )
        for sp, rank in spans
    ]


def _heading_end(section: Node) -> int:
    nl = section.text.find("\n")
    return section.char_start + (nl if nl >= 0 else len(section.text))


def context_fragments(
    view: DocView,
    spans: Sequence[tuple[SupportSpan, float]],
    budget: Budget,
    window: int,
) -> list[Fragment]:
    """Parent, adjacent and background fragments of one document."""
    direct_units = {sp.unit.id for sp, _ in spans}
    out: list[Fragment] = []
    parents: dict[str, float] = {}  # section id -> best rank
    for sp, rank in spans:
        sec = view.section_of.get(sp.unit.id)
        if sec is not None:
            parents[sec] = min(rank, parents.get(sec, rank))
    adjacent: dict[str, tuple[float, str]] = {}  # unit id -> (rank, reason)

    # -- parent context: heading line + lead, table headers --------------------------
    leads: set[str] = set()
    for sec_id, rank in parents.items():
        section = view.by_id[sec_id]
        units = view.section_units.get(sec_id, [])
        lead = units[0] if units and units[0].kind in LEAD_KINDS else None
        if lead is not None and lead.id not in direct_units:
            end, ids, reason = lead.char_end, [section.id, lead.id], "section_heading_and_lead"
            leads.add(lead.id)
        else:
            end, ids, reason = _heading_end(section), [section.id], "section_heading"
        out.append(
            view.fragment(
                "parent_context",
                section.char_start,
                end,
                cite=section,
                node_ids=tuple(ids),
                reason=reason,
                rank=rank,
                kind="section",
            )
        )
    seen_tables: set[str] = set()
    for sp, rank in spans:
        if sp.node.kind != "table_row" or sp.unit.id in seen_tables:
            continue
        seen_tables.add(sp.unit.id)
        table = sp.unit
        rows = [c for c in view.children.get(table.id, []) if c.kind == "table_row"]
        end = rows[0].char_start if rows else table.char_end
        while end > table.char_start and view.text[end - 1].isspace():
            end -= 1
        if end > table.char_start:
            out.append(
                view.fragment(
                    "parent_context",
                    table.char_start,
                    end,
                    cite=table,
                    node_ids=(table.id,),
                    reason="table_header",
                    rank=rank,
                    kind="table_header",
                )
            )

    # -- adjacent context ----------------------------------------------------------
    per_section: dict[str | None, int] = {}
    for sp, _ in spans:
        sec = view.section_of.get(sp.unit.id)
        per_section[sec] = per_section.get(sec, 0) + 1
    side_cap = 2 * budget.fragment_tokens
    for sp, rank in spans:
        sec = view.section_of.get(sp.unit.id)
        units = view.section_units.get(sec, [])
        w = max(1, window // max(1, per_section[sec]))
        i = next(k for k, u in enumerate(units) if u.id == sp.unit.id)
        for step in (-1, 1):
            tokens = 0
            for d in range(1, w + 1):
                j = i + step * d
                if not 0 <= j < len(units) or tokens > side_cap:
                    break
                u = units[j]
                tokens += max(1, len(u.text) // budget.chars_per_token)
                if u.id in direct_units or u.id in leads:
                    continue
                r = rank + d / 10
                if u.id not in adjacent or r < adjacent[u.id][0]:
                    adjacent[u.id] = (r, "neighbour")
    out.extend(_merge_adjacent(view, adjacent, budget))

    # -- background: the document's top section, when not already a parent ------------
    top = next((n for n in view.nodes if n.kind == "section"), None)
    if top is not None and top.id not in parents and spans:
        units = view.section_units.get(top.id, [])
        lead = units[0] if units and units[0].kind in LEAD_KINDS else None
        ok = lead is not None and lead.id not in direct_units and lead.id not in adjacent
        end = lead.char_end if ok and lead is not None else _heading_end(top)
        ids = [top.id, lead.id] if ok and lead is not None else [top.id]
        out.append(
            view.fragment(
                "background",
                top.char_start,
                end,
                cite=top,
                node_ids=tuple(ids),
                reason="document_lead",
                rank=min(r for _, r in spans),
                kind="section",
            )
        )
    return out


def _run_fragment(view: DocView, sec: str | None, run: list[tuple[Node, float, str]]) -> Fragment:
    first, last = run[0][0], run[-1][0]
    hint = view.by_id[sec] if sec is not None else first
    cite = first if len(run) == 1 else view.container(first.char_start, last.char_end, hint)
    return view.fragment(
        "adjacent_context",
        first.char_start,
        last.char_end,
        cite=cite,
        node_ids=tuple(u.id for u, _, _ in run),
        reason=run[0][2],
        rank=min(r for _, r, _ in run),
        kind=first.kind if len(run) == 1 else "run",
        heading_path=first.heading_path,
    )


def _page(node: Node) -> object:
    """The page a node's locator names (None for formats without pages)."""
    locator = node.attrs.get("locator")
    return locator.get("page") if isinstance(locator, dict) else None


def _merge_adjacent(
    view: DocView, adjacent: dict[str, tuple[float, str]], budget: Budget
) -> list[Fragment]:
    """Consecutive selected members of one section become one fragment (blocks alone)."""
    out: list[Fragment] = []
    for sec, units in view.section_units.items():
        run: list[tuple[Node, float, str]] = []
        tokens = 0
        prev = -2
        for k, u in enumerate(units):
            if u.id not in adjacent:
                continue
            size = max(1, len(u.text) // budget.chars_per_token)
            block = u.kind in BLOCKS
            if run and (
                k != prev + 1
                or _page(u) != _page(run[-1][0])  # PDF furniture sits between pages
                or block
                or run[-1][0].kind in BLOCKS
                or tokens + size > budget.fragment_tokens
            ):
                out.append(_run_fragment(view, sec, run))
                run, tokens = [], 0
            run.append((u, *adjacent[u.id]))
            tokens += size
            prev = k
        if run:
            out.append(_run_fragment(view, sec, run))
    return out


def hit_fragment(h: Hit, *, role: Role, reason: str, rank: float) -> Fragment:
    """A recall hit's own chunk as a fragment (its excerpt is the exact text at its
    offsets): the direct snippet when a source window cannot be read, or a conflict side
    found among the search hits."""
    return Fragment(
        role=role,
        doc_id=h.doc_id,
        path=h.path,
        revision=h.revision,
        version_id=h.version_id,
        node_ids=h.node_ids,
        line_start=h.line_start,
        line_end=h.line_end,
        char_start=h.char_start,
        char_end=h.char_end,
        heading_path=h.heading_path,
        text=h.excerpt,
        tokens=estimate_tokens(h.excerpt),
        truncated=False,
        citation_id=h.citation_id,
        reason=reason,
        rank=rank,
        kind="chunk",
    )
