"""``citewise graph``: inspect and export the knowledge graph (register ``graph_app``)."""

from __future__ import annotations

import json as jsonlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, KbOpt, open_home
from citewise.config import DEFAULT_KB
from citewise.errors import UsageError

if TYPE_CHECKING:
    import networkx as nx

    from citewise.graph.build import KnowledgeGraph
    from citewise.graph.models import Edge

graph_app = typer.Typer(
    help="Inspect and export the knowledge graph (read from headings, links, diagrams and "
    "front-matter relations).",
    no_args_is_help=True,
)


def load_graph(home: Path | None, kb: str) -> KnowledgeGraph:
    from citewise.graph.build import KBGraph

    with open_home(home) as h:
        h.kb(kb)  # raises KBNotFound with a hint
        return KBGraph(h.store, kb).sync()


@graph_app.command("show")
def show(
    node: Annotated[str, typer.Argument(help="Document path, path#anchor, node id or title.")],
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """A knowledge point and every edge in and out of it, with its evidence span."""
    from citewise.graph.select import select_neighbors
    from citewise.graph.serialize import edge_json, point_json

    g = load_graph(home, kb)
    found = g.find(node)
    if not found:
        raise UsageError(
            f"No graph node matches {node!r}.",
            hint="Pass a document path (see 'citewise docs list'), path#anchor, a section "
            "node id or a heading title.",
        )
    p = found[0]
    if p.kind == "document":  # a document: its sections' relations, rolled up
        from citewise.graph.rollup import rolled_up

        edges = [(r.direction, r.edge, r.other, r.written_in) for r in rolled_up(g, p.path)]
    else:
        edges = [("in", e, g.points[str(e.source)], p) for e in g.in_edges(p.key)] + [
            ("out", e, g.points[str(e.target)], p) for e in g.out_edges(p.key)
        ]
        edges.sort(key=lambda t: (t[0], -t[1].confidence, t[1].kind, t[2].path, t[2].line_start))
    diag = select_neighbors(g, p.key)
    data = {
        "point": point_json(p),
        "in_degree": diag.in_degree,
        "out_degree": diag.out_degree,
        "edges": [
            edge_json(e, d, o) | {"written_in": own.title, "written_in_key": own.key}
            for d, e, o, own in edges
        ],
        "also_matched": [point_json(q) for q in found[1:]],
    }
    if json:
        ui.print_json(data)
        return
    ui.out.print(f"{p.kind} {p.key}  {p.title}", markup=False)
    ins = sum(1 for t in edges if t[0] == "in")
    ui.out.print(
        f"  {p.path}:{p.line_start}-{p.line_end}  in {ins}, out {len(edges) - ins}",
        markup=False,
    )
    for d, e, o, own in edges:
        arrow = "<-" if d == "in" else "->"
        s = e.span
        snippet = " ".join(s.text.split())
        snippet = snippet if len(snippet) <= 90 else snippet[:87] + "..."
        where = f"  (written in {own.title!r})" if own.kind == "section" else ""
        ui.out.print(
            f"  {arrow} {e.kind:<14} {e.confidence:.2f} {o.kind:<8} {o.title}  [{o.path}]{where}\n"
            f"       {e.origin}: {s.path}:{s.line_start}-{s.line_end} {s.span_id}  {snippet}",
            markup=False,
        )
    if len(found) > 1:
        ui.out.print(f"  ({len(found) - 1} more point(s) match; use a node id)", markup=False)


def _graphml_ready(g: KnowledgeGraph) -> nx.MultiDiGraph:
    import networkx as nx

    out = nx.MultiDiGraph()
    for key, p in g.points.items():
        out.add_node(
            key,
            kind=p.kind,
            title=p.title,
            path=p.path,
            version_id=p.version_id,
            node_id=p.node_id,
            line_start=p.line_start,
            line_end=p.line_end,
            bibliographic=p.bibliographic,
        )
    for u, v, data in g.g.edges(data=True):
        e: Edge = data["edge"]
        s = e.span
        out.add_edge(
            u,
            v,
            kind=e.kind,
            confidence=e.confidence,
            origin=e.origin,
            label=e.label,
            directed=e.directed,
            span_id=s.span_id,
            span_path=s.path,
            span_version=s.version_id,
            span_node=s.node_id,
            char_start=s.char_start,
            char_end=s.char_end,
            line_start=s.line_start,
            line_end=s.line_end,
            span_text=s.text,
        )
    return out


@graph_app.command("export")
def export(
    format_: Annotated[str, typer.Option("--format", help="graphml or json (node-link).")] = "json",
    out: Annotated[Path | None, typer.Option("--out", help="Write here instead of stdout.")] = None,
    kb: KbOpt = DEFAULT_KB,
    home: HomeOpt = None,
) -> None:
    """The whole graph as GraphML or node-link JSON, every edge with its evidence span."""
    if format_ not in ("graphml", "json"):
        raise UsageError(f"Unknown format {format_!r}.", hint="Use graphml or json.")
    import networkx as nx

    g = _graphml_ready(load_graph(home, kb))
    if format_ == "graphml":
        text = "\n".join(nx.generate_graphml(g)) + "\n"
    else:
        text = jsonlib.dumps(nx.node_link_data(g, edges="edges"), ensure_ascii=False, indent=2)
        text += "\n"
    if out is None:
        ui.out.file.write(text)
    else:
        out.write_text(text, "utf-8")
        ui.err.print(
            f"wrote {g.number_of_nodes()} nodes, {g.number_of_edges()} edges to {out}",
            markup=False,
        )


@graph_app.command("stats")
def stats(kb: KbOpt = DEFAULT_KB, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Counts of points and edges by kind, and how long the build took."""
    g = load_graph(home, kb)
    kinds: dict[str, int] = {}
    for p in g.points.values():
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    rels: dict[str, int] = {}
    origins: dict[str, int] = {}
    for _, _, d in g.g.edges(data=True):
        rels[d["edge"].kind] = rels.get(d["edge"].kind, 0) + 1
        origins[d["edge"].origin] = origins.get(d["edge"].origin, 0) + 1
    data = {
        "points": dict(sorted(kinds.items())),
        "edges": dict(sorted(rels.items())),
        "origins": dict(sorted(origins.items())),
        "build": ui.to_jsonable(g.stats),
    }
    if json:
        ui.print_json(data)
        return
    for key, value in data.items():
        ui.out.print(f"{key:>8}: {value}", markup=False)


def register(app: typer.Typer) -> None:
    """Add the ``graph`` group to ``app``."""
    app.add_typer(graph_app, name="graph")
