"""The graph against a real SQLite home: store-synced rebuilds, deletes, spans, CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from citewise.cli.graph import graph_app
from citewise.graph.build import KBGraph
from citewise.kb import Home

FIXTURES = Path(__file__).parent / "fixtures" / "graph"


@pytest.fixture
def graph_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    src = tmp_path / "docs"
    shutil.copytree(FIXTURES, src)
    h = Home.open(tmp_path / "home")
    assert h.kb("default").add([src]).ok
    return h


def _touches(g: object, path: str) -> list[object]:
    from citewise.graph.build import KnowledgeGraph

    assert isinstance(g, KnowledgeGraph)
    hits = []
    for u, v, d in g.g.edges(data=True):
        e = d["edge"]
        if path in (g.points[u].path, g.points[v].path, e.span.path):
            hits.append(e)
    return hits


def test_deleted_document_leaves_no_edges(graph_home: Home) -> None:
    kbg = KBGraph(graph_home.store, "default")
    g = kbg.sync()
    assert _touches(g, "old.md")  # front matter "supersedes" and the [[Old Guide]] link
    assert kbg.sync() is g  # nothing changed: no rebuild
    graph_home.kb("default").delete("old.md")
    g2 = kbg.sync()
    assert g2 is not g
    assert not _touches(g2, "old.md")
    assert "old.md" not in g2.doc_keys
    assert all(p.path != "old.md" for p in g2.points.values())
    assert g2.stats.extracted == 0 and g2.stats.reused == g2.stats.documents  # cached extracts
    assert g2.stats.unresolved == g.stats.unresolved + 2  # the two edges into old.md
    # the same holds for a fresh process reading the store
    assert not _touches(KBGraph(graph_home.store, "default").sync(), "old.md")


def test_changed_document_is_re_extracted_alone(graph_home: Home, tmp_path: Path) -> None:
    kbg = KBGraph(graph_home.store, "default")
    kbg.sync()
    doc = tmp_path / "docs" / "setup.md"
    doc.write_text(doc.read_text("utf-8") + "\n## Uninstall\n\nRemove it.\n", "utf-8")
    graph_home.kb("default").add([tmp_path / "docs"])
    g = kbg.sync()
    assert g.stats.extracted == 1
    assert any(p.title == "Uninstall" for p in g.points.values())


def test_edge_spans_resolve_through_the_store(graph_home: Home) -> None:
    g = KBGraph(graph_home.store, "default").sync()
    origins = set()
    for _, _, d in g.g.edges(data=True):
        e = d["edge"]
        cited = graph_home.resolve(e.span.span_id)
        assert cited.text == e.span.text
        assert (cited.line_start, cited.line_end) == (e.span.line_start, e.span.line_end)
        origins.add(e.origin)
    assert origins == {"containment", "link", "wikilink", "mermaid", "front_matter"}


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(graph_app, name="graph")
    return app


def test_cli_show_and_export(graph_home: Home, tmp_path: Path) -> None:
    home = str(graph_home.settings.home)
    runner = CliRunner()
    shown = runner.invoke(_cli(), ["graph", "show", "pipeline.md", "--home", home, "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    assert data["point"]["kind"] == "document"
    rels = {(e["direction"], e["relation"], e["neighbor"]["title"]) for e in data["edges"]}
    assert ("out", "supersedes", "Old Guide") in rels
    assert all(e["evidence"]["text"] for e in data["edges"])
    text = runner.invoke(_cli(), ["graph", "show", "Install steps", "--home", home])
    assert text.exit_code == 0 and "Install steps" in text.output
    missing = runner.invoke(_cli(), ["graph", "show", "no such thing", "--home", home])
    assert missing.exit_code != 0
    out = tmp_path / "g.json"
    res = runner.invoke(
        _cli(), ["graph", "export", "--format", "json", "--out", str(out), "--home", home]
    )
    assert res.exit_code == 0, res.output
    nl = json.loads(out.read_text("utf-8"))
    assert nl["nodes"] and nl["edges"] and "span_text" in nl["edges"][0]
    gml = tmp_path / "g.graphml"
    res = runner.invoke(
        _cli(), ["graph", "export", "--format", "graphml", "--out", str(gml), "--home", home]
    )
    assert res.exit_code == 0, res.output
    import networkx as nx

    back = nx.read_graphml(gml)
    assert back.number_of_edges() == len(nl["edges"])


def test_index_hands_its_chunk_rows_to_the_graph(
    graph_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's first search reads the chunks from the store once: the graph takes
    (chunk, document, nodes) rows from the index state of the same generation, and is the
    graph it would have built from the store."""
    fresh = Home.open(graph_home.settings.home)  # a new server process on the same home
    store = fresh.store
    reads = []
    real = store.iter_chunks

    def counted(kb: str):  # type: ignore[no-untyped-def]
        reads.append(kb)
        return real(kb)

    monkeypatch.setattr(store, "iter_chunks", counted)
    index = fresh.index("default")
    with index.pinned():
        g = index.graph.sync()
    assert reads == ["default"]  # the index's read only
    alone = KBGraph(store, "default").sync()
    assert g.chunk_point == alone.chunk_point and g.point_chunks == alone.point_chunks
    assert g.chunk_rows == alone.chunk_rows and g.chunk_rows
    # a write moves the generation: one read (the index's, on the write's own sync) serves
    # both, and the rows are the new ones
    reads.clear()
    fresh.kb("default").delete("old.md")
    with index.pinned():
        g2 = index.graph.sync()
    assert reads == ["default"]
    assert g2.chunk_rows == KBGraph(store, "default").sync().chunk_rows
    assert all(doc != g.doc_keys.get("old.md") for _, doc, _ in g2.chunk_rows)


def test_resolved_edges_are_not_copied(graph_home: Home) -> None:
    """An edge whose endpoints need no resolving (containment, most of a large graph) is
    the extract's own object in the assembled graph: no second copy per edge in memory."""
    g = KBGraph(graph_home.store, "default").sync()
    own = {id(e) for x in g.sources for e in x.edges}
    kept = [d["edge"] for _, _, d in g.g.edges(data=True)]
    plain = [e for e in kept if e.origin == "containment"]
    assert plain and all(id(e) in own for e in plain)
    assert any(id(e) not in own for e in kept)  # resolved links are new edges
