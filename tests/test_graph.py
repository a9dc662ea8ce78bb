"""The knowledge graph: extraction with exact spans, resolution, selection and the boost."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.config import IngestConfig
from citewise.graph.build import KnowledgeGraph, join_graph
from citewise.graph.extract import doc_input_from_parsed, extract_document
from citewise.graph.mermaid import parse_flowchart
from citewise.graph.models import DocExtract, Edge
from citewise.graph.select import (
    graph_boost,
    graph_context,
    neighbor_support,
    select_anchor,
    select_neighbors,
)
from citewise.graph.text import label_kind, norm_title, relation_type_kind, slugify
from citewise.ingest.parse import parse_document

FIXTURES = Path(__file__).parent / "fixtures" / "graph"


def _extract(
    path: str, text: str
) -> tuple[DocExtract, str, list[tuple[str, str, tuple[str, ...]]]]:
    parsed = parse_document(
        text.encode("utf-8"), name=path, kb="t", doc_path=path, config=IngestConfig()
    )
    x = extract_document(doc_input_from_parsed(parsed, path))
    chunks = [(c.id, x.doc_id, c.node_ids) for c in parsed.chunks]
    return x, parsed.text, chunks


def graph_of(docs: dict[str, str]) -> tuple[KnowledgeGraph, dict[str, str]]:
    extracts, texts, chunks = [], {}, []
    for path, text in docs.items():
        x, full, ch = _extract(path, text)
        extracts.append(x)
        texts[path] = full
        chunks.extend(ch)
    return join_graph(extracts, chunks), texts


def fixture_docs() -> dict[str, str]:
    return {p.name: p.read_text("utf-8") for p in sorted(FIXTURES.glob("*.md"))}


def edges(g: KnowledgeGraph, origin: str | None = None) -> list[Edge]:
    out = [d["edge"] for _, _, d in g.g.edges(data=True)]
    return [e for e in out if origin is None or e.origin == origin]


def title(g: KnowledgeGraph, key: object) -> str:
    assert isinstance(key, str)
    return g.points[key].title


# -- vocabulary --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("label", "kind", "rev"),
    [
        ("leads to", "causes", False),
        ("triggers", "causes", False),
        ("on failure, causes", "causes", False),
        ("after 5 failed attempts, causes", "causes", False),
        ("vs", "contrasts_with", False),
        ("versus", "contrasts_with", False),
        ("differs from", "contrasts_with", False),
        ("similar to", "analogous_to", False),
        ("then", "precedes", False),
        ("next", "precedes", False),
        ("on success, precedes", "precedes", False),
        ("needs", "requires", False),
        ("depends on", "requires", False),
        ("part of", "part_of", False),
        ("superseded by", "supersedes", True),
        ("replaced by", "replaces", True),
        ("amends", "amends", False),
        ("repeals", "repeals", False),
        ("导致", "causes", False),
    ],
)
def test_label_vocabulary(label: str, kind: str, rev: bool) -> None:
    assert label_kind(label) == (kind, rev)


def test_unknown_label_and_front_matter_types() -> None:
    assert label_kind("approved by legal") is None
    assert relation_type_kind("superseded_by") == ("supersedes", True)
    assert relation_type_kind("translates") == ("other", False)
    assert slugify("GET /api/v2/config") == "get-apiv2config"
    assert slugify("Harbor 2.3.2 — 2023-11-08") == "harbor-232--2023-11-08"
    assert norm_title("2.1 **Retry Policy**:") == norm_title("retry policy")


def test_mermaid_reader_handles_shapes_chains_and_groups() -> None:
    chart = parse_flowchart(
        'graph LR\n  A((Start)) -- needs --> B{"Is it ok?"}\n  B -.-> C & D([Stadium]); C --- D\n'
        "  X <--> Y\n  E ==>|vs| F:::hot --> G>Flag]\n  %% a comment --> Z\n"
    )
    assert chart is not None
    got = [(e.source, e.target, e.label, e.directed) for e in chart.edges]
    assert got == [
        ("A", "B", "needs", True),
        ("B", "C", "", True),
        ("B", "D", "", True),
        ("C", "D", "", False),
        ("X", "Y", "", False),
        ("E", "F", "vs", True),
        ("F", "G", "", True),
    ]
    assert chart.nodes["B"].label == "Is it ok?" and chart.nodes["G"].label == "Flag"
    assert parse_flowchart("sequenceDiagram\n  A->>B: hi\n") is None


# -- extraction --------------------------------------------------------------------------
def test_mermaid_edges_are_typed_with_exact_spans() -> None:
    x, text, _ = _extract("pipeline.md", (FIXTURES / "pipeline.md").read_text("utf-8"))
    mermaid = [e for e in x.edges if e.origin == "mermaid"]
    lines = text.splitlines()
    for e in mermaid:
        s = e.span
        assert s.text == text[s.char_start : s.char_end]
        assert s.line_start == s.line_end  # an edge's own line
        assert s.text in [part.strip() for part in lines[s.line_start - 1].split(";")]
        mnode = next(n for n in x_nodes(text) if n.id == s.node_id)
        assert mnode.kind == "mermaid"
        assert mnode.char_start <= s.char_start < s.char_end <= mnode.char_end
    g, _ = graph_of(fixture_docs())
    typed = {
        (title(g, e.source), e.kind, title(g, e.target), e.confidence) for e in edges(g, "mermaid")
    }
    assert ("Build stage", "precedes", "Test suite", 0.9) in typed  # both are sections
    assert ("Test suite", "causes", "Release", 0.9) in typed  # "-- leads to -->"
    assert ("Test suite", "requires", "Staging cluster", 0.9) in typed
    assert ("Release", "contrasts_with", "Hotfix", 0.9) in typed
    assert ("Release", "contrasts_with", "Manual release", 0.9) in typed
    assert ("Hotfix", "precedes", "Rollback", 0.6) in typed  # unlabelled arrow
    assert ("Manual release", "other", "Hotfix", 0.6) in typed  # "---": no arrowhead
    kinds = {p.title: p.kind for p in g.points.values() if p.path == "pipeline.md"}
    assert kinds["Build stage"] == "section" and kinds["Release"] == "concept"
    # a concept's evidence is the diagram's chunk
    release = next(p for p in g.points.values() if p.title == "Release")
    assert g.chunks_of(release.key)


def x_nodes(text: str) -> tuple:  # type: ignore[type-arg]
    return parse_document(
        text.encode("utf-8"),
        name="pipeline.md",
        kb="t",
        doc_path="pipeline.md",
        config=IngestConfig(),
    ).nodes


def test_front_matter_relations_and_links_become_edges() -> None:
    g, texts = graph_of(fixture_docs())
    for e in edges(g):
        s = e.span
        assert s.text == texts[s.path][s.char_start : s.char_end], e
    fm = {
        (title(g, e.source), e.kind, title(g, e.target), e.confidence, e.span.text)
        for e in edges(g, "front_matter")
    }
    assert (
        "Release Pipeline",
        "supersedes",
        "Old Guide",
        1.0,
        "- {type: supersedes, target: old.md}",
    ) in fm
    assert (
        "Release Pipeline",
        "requires",
        "Setup",
        1.0,
        "- type: requires\n    target: setup.md",
    ) in fm
    assert (
        "Release Pipeline",
        "precedes",
        "Push mode",
        1.0,
        "- {type: precedes, target: push-mode.md}",
    ) in fm
    # explicit confidence and an anchor in a front-matter target
    assert any(k == "analogous_to" and t == "Install steps" and c == 0.4 for _, k, t, c, _ in fm)
    links = {
        (title(g, e.source), e.origin, title(g, e.target), e.span.text)
        for e in edges(g)
        if e.origin in ("link", "wikilink")
    }
    assert (
        "Release Pipeline",
        "link",
        "Install steps",
        "[install steps](setup.md#install-steps)",
    ) in links  # relative path + anchor
    assert ("Release Pipeline", "wikilink", "Old Guide", "[[Old Guide]]") in links  # by title
    assert ("Release Pipeline", "wikilink", "Setup", "[[setup]]") in links  # by file stem
    assert (
        "Pull mode",
        "link",
        "Push mode vs pull",
        "[push mode section](#push-mode-vs-pull)",
    ) in links
    assert not any("nowhere" in t for *_, t in links)  # inside a code span
    # containment: every section is part of its parent
    part = {(title(g, e.source), title(g, e.target)) for e in edges(g, "containment")}
    assert ("Install steps", "Setup") in part


# -- selection ---------------------------------------------------------------------------
COMPARE_DOCS = {
    "a.md": (
        "---\ntitle: Push mode\nrelations:\n  - {type: precedes, target: c.md}\n---\n\n"
        "# Push mode\n\nPush mode sends changes at once. Compare [Pull mode](b.md).\n\n"
        "```mermaid\nflowchart LR\n  P[Push mode] -->|vs| Q[Pull mode]\n```\n"
    ),
    "b.md": "# Pull mode\n\nPull mode polls the source.\n",
    "c.md": "# Deployment\n\nDeploy after choosing a mode.\n",
}


def test_compare_query_prefers_contrast_over_stronger_procedural_edge() -> None:
    g, _ = graph_of(COMPARE_DOCS)
    anchor = g.doc_keys["a.md"]
    diag = select_neighbors(g, anchor, intent="compare")
    assert diag.status == "ok" and not diag.fallback_used
    assert [n.title for n in diag.successors] == ["Pull mode"]
    assert diag.successors[0].relation == "contrasts_with"
    assert diag.successors[0].confidence == 0.9  # below the procedural edge's 1.0
    assert diag.misaligned_candidates >= 1  # the "precedes" neighbor was seen, not chosen
    # the same anchor for a procedural question picks the procedural edge
    how = select_neighbors(g, anchor, intent="how_to")
    assert how.successors[0].title == "Deployment" and how.successors[0].relation == "precedes"
    fragments = neighbor_support(diag)
    assert fragments[0].relation == "contrasts_with" and fragments[0].direction == "out"
    assert fragments[0].path_to_anchor == (diag.successors[0].key, anchor)


def test_compare_falls_back_to_structural_neighbors() -> None:
    g, _ = graph_of(fixture_docs())
    setup = g.doc_keys["setup.md"]
    diag = select_neighbors(g, setup, intent="compare")
    assert diag.status == "ok" and diag.fallback_used and diag.fallback == "structural"
    assert diag.aligned_candidates == 0
    assert all(n.relation in ("part_of", "references") for n in diag.predecessors + diag.successors)


def test_filters_equivalent_titles_bibliography_self_and_low_confidence() -> None:
    docs = {
        "push.md": "# Push mode\n\nPush sends changes. See [push](other.md#push-mode) and "
        "[latency](#latency).\n\n## Latency\n\nFast.\n\n## See also\n\n- [x](other.md)\n",
        "other.md": "# Modes\n\nIntro.\n\n## Push mode\n\nSame subject, other page.\n",
        "setup.md": "---\ntitle: Setup\nrelations:\n  - {type: references, target: push.md, "
        "confidence: 0.3}\n---\n\n# Setup\n\nText.\n",
    }
    g, _ = graph_of(docs)
    anchor = g.doc_keys["push.md"]
    diag = select_neighbors(g, anchor)
    shown = [n.title for n in diag.predecessors + diag.successors]
    assert "Push mode" not in shown  # other.md's section: different id, same title
    assert "See also" not in shown
    assert "Setup" not in shown  # confidence 0.3 < 0.5
    assert "Latency" in shown
    assert diag.filtered["equivalent_title"] == 1
    assert diag.filtered["bibliographic"] == 1
    assert diag.filtered["low_confidence"] == 1
    assert all(n.key != anchor for n in diag.predecessors + diag.successors)


def test_windows_default_three_and_five_when_deep() -> None:
    body = "".join(f"\n## Topic {i}\n\nText {i}.\n" for i in range(7))
    g, _ = graph_of({"d.md": "# Hub\n\nIntro." + body})
    hub = g.doc_keys["d.md"]
    # containment edges have confidence 1.0: high-confidence paths extend to five
    assert len(select_neighbors(g, hub).predecessors) == 5
    assert len(select_neighbors(g, hub, high_confidence=1.01).predecessors) == 3
    assert len(select_neighbors(g, hub, deep=True, high_confidence=1.01).predecessors) == 5
    diag = select_neighbors(g, hub)
    assert diag.in_degree == 7 and diag.in_kinds == {"part_of": 7}


def test_evidence_callable_orders_neighbors() -> None:
    g, _ = graph_of({"d.md": "# Hub\n\nIntro.\n\n## Alpha\n\nA.\n\n## Beta\n\nB.\n"})
    hub = g.doc_keys["d.md"]
    diag = select_neighbors(g, hub, has_evidence=lambda p: p.title == "Beta")
    assert [n.title for n in diag.predecessors] == ["Beta", "Alpha"]
    assert diag.predecessors[0].has_evidence and not diag.predecessors[1].has_evidence


def test_no_edges_means_unavailable() -> None:
    g, _ = graph_of({"a.txt": "Plain notes without headings.\n", "b.txt": "More notes.\n"})
    assert g.edge_count == 0
    diag = graph_context(g, analyse("compare a and b"), list(g.chunk_point))
    assert diag.status == "unavailable" and "no edges" in diag.reason
    assert select_neighbors(None, "x").status == "unavailable"
    assert graph_boost(list(g.chunk_point), g.doc_keys["a.txt"], g) == {}


def test_anchor_by_title_then_top_hit_and_boost_stays_in_pool() -> None:
    g, _ = graph_of(fixture_docs())
    a = select_anchor(g, "Install steps", [])
    assert a is not None and a.reason == "title_match" and a.title == "Install steps"
    # "# Setup" stands for the document Setup
    s = select_anchor(g, "setup", [])
    assert s is not None and s.kind == "document"
    pool = list(g.chunk_point)
    hit = select_anchor(g, "how are hotfixes released", pool[:1])
    assert hit is not None and hit.reason == "top_hit" and hit.chunk_id == pool[0]
    anchor = g.doc_keys["pipeline.md"]
    boost = graph_boost(pool, anchor, g, intent="compare")
    assert boost and set(boost) <= set(pool)
    assert graph_boost(pool[:2], anchor, g).keys() <= set(pool[:2])
    # the anchor's own document keeps the largest term (unless excluded); a document two
    # hops away (pipeline -> push mode -> pull mode) gets less than the one it is reached by
    pipeline_chunks = set(g.chunks_of(anchor))
    best = max(boost, key=lambda c: boost[c])
    assert best in pipeline_chunks
    assert 0 < _doc_boost(g, boost, "pull-mode.md") < _doc_boost(g, boost, "push-mode.md")
    assert (
        graph_boost(pool, anchor, g, max_hops=1)
        .keys()
        .isdisjoint(g.chunks_of(g.doc_keys["pull-mode.md"]))
    )
    assert all(v <= 0.5 / 61 for v in boost.values())
    assert not pipeline_chunks & set(graph_boost(pool, anchor, g, include_anchor=False))


def test_invisible_neighbors_are_hidden() -> None:
    g, _ = graph_of(COMPARE_DOCS)
    anchor = g.doc_keys["a.md"]
    diag = select_neighbors(g, anchor, intent="compare", visible=lambda p: p.path != "b.md")
    assert all(n.path != "b.md" for n in diag.predecessors + diag.successors)
    assert diag.filtered["not_visible"] >= 1 and diag.fallback_used


LINKED_DOCS = {
    "anchor.md": "# Anchor\n\nThe anchor runbook. First read [the target](target.md).\n\n"
    "## Steps\n\nDo the steps.\n",
    "target.md": "# Target\n\nThe linked target runbook.\n\n## Details\n\nTarget details.\n",
    "hub.md": "# Hub\n\nEverything: [[Anchor]], [[Target]], [[One]], [[Two]], [[Three]], "
    "[[Four]], [[Five]].\n",
    "one.md": "# One\n\nOne.\n",
    "two.md": "# Two\n\nTwo.\n",
    "three.md": "# Three\n\nThree.\n",
    "four.md": "# Four\n\nFour.\n",
    "five.md": "# Five\n\nFive.\n",
    "unrelated.md": "# Unrelated\n\nNothing links here.\n",
}


def _doc_boost(g: KnowledgeGraph, boost: dict[str, float], path: str) -> float:
    return max((boost.get(c, 0.0) for c in g.chunks_of(g.doc_keys[path])), default=0.0)


def test_boost_reaches_a_document_linked_from_the_anchor_body() -> None:
    g, _ = graph_of(LINKED_DOCS)
    pool = list(g.chunk_point)
    boost = graph_boost(pool, g.doc_keys["anchor.md"], g)
    # the body link hangs off "# Anchor", which counts as the document: one hop, and every
    # chunk of the target (its subsection too) is within reach
    target_chunks = g.chunks_of(g.doc_keys["target.md"])
    assert len(target_chunks) >= 2 and all(boost.get(c, 0) > 0 for c in target_chunks)
    assert _doc_boost(g, boost, "unrelated.md") == 0.0
    # also through a section-level title anchor
    section = select_anchor(g, "anchor", pool)
    assert section is not None and section.kind == "document"
    assert graph_boost(pool, section, g) == boost


def test_boost_leaves_out_the_anchor_document_when_asked() -> None:
    g, _ = graph_of(LINKED_DOCS)
    pool = list(g.chunk_point)
    anchor = g.doc_keys["anchor.md"]
    excluded = graph_boost(pool, anchor, g, include_anchor=False)
    assert _doc_boost(g, excluded, "anchor.md") == 0.0
    assert _doc_boost(g, excluded, "target.md") > 0
    # by default it keeps the top term, so a boosted neighbour cannot overtake it
    included = graph_boost(pool, anchor, g)
    assert _doc_boost(g, included, "anchor.md") == 0.5 / 61
    assert _doc_boost(g, included, "anchor.md") > _doc_boost(g, included, "target.md")


def test_hub_neighbour_gets_less_than_a_direct_specific_link() -> None:
    g, _ = graph_of(LINKED_DOCS)
    pool = list(g.chunk_point)
    boost = graph_boost(pool, g.doc_keys["anchor.md"], g)
    hub, target = _doc_boost(g, boost, "hub.md"), _doc_boost(g, boost, "target.md")
    assert 0 < hub < target
    # documents reached only through the hub get less again (hop decay and hub damping)
    assert 0 < _doc_boost(g, boost, "one.md") < hub
