"""A query's cost does not grow with one document's node count.

A document of thousands of headings (a hostile upload) sits in the KB next to an ordinary
one. Searching, gathering evidence and answering must read a bounded number of its nodes
and graph edges, counted at the store and graph boundaries (no timing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.graph.build import WALK_CHILDREN, KnowledgeGraph
from citewise.kb import Home
from citewise.store._near import FULL_VIEW_NODES, NEAR_NODES
from citewise.store.sqlite import SQLiteStore

HEADINGS = 3000  # > FULL_VIEW_NODES and > WALK_CHILDREN: the windows must apply


@pytest.fixture
def huge_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    src = tmp_path / "src"
    src.mkdir()
    body = "".join(f"## heading {i}\n\n" for i in range(HEADINGS))
    (src / "big.md").write_text(body + "The zebra password rotation happens weekly.\n")
    (src / "small.md").write_text("# Small\n\nThe zebra policy covers weekly rotation.\n")
    home = Home.open(tmp_path / "home")
    report = home.kb().add([src])
    assert report.ok, report.files
    yield home
    home.close()


def _count_nodes(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    read: Counter[str] = Counter()
    whole = SQLiteStore.nodes_of_version
    near = SQLiteStore.nodes_near

    def nodes_of_version(self: SQLiteStore, kb: str, path: str, vid: int) -> Any:
        out = whole(self, kb, path, vid)
        read[f"{path} whole"] += 1
        read[f"{path} largest read"] = max(read[f"{path} largest read"], len(out))
        return out

    def nodes_near(self: SQLiteStore, kb: str, path: str, vid: int, spans: Any) -> Any:
        out = near(self, kb, path, vid, spans)
        if out.complete:  # a small version read whole, in nodes_near's own snapshot
            read[f"{path} whole"] += 1
            read[f"{path} largest read"] = max(read[f"{path} largest read"], len(out.nodes))
        else:
            read[f"{path} window"] += 1
            per_span = len(out.nodes) / max(1, len(set(spans)))
            read[f"{path} largest read"] = max(read[f"{path} largest read"], int(per_span))
        return out

    monkeypatch.setattr(SQLiteStore, "nodes_of_version", nodes_of_version)
    monkeypatch.setattr(SQLiteStore, "nodes_near", nodes_near)
    return read


def _count_graph(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    seen: Counter[str] = Counter()
    for name in ("out_edges", "in_edges", "walk_in_edges", "of_path", "same_title"):
        if not hasattr(KnowledgeGraph, name):
            continue
        original = getattr(KnowledgeGraph, name)

        def counted(self: KnowledgeGraph, *args: Any, _f: Any = original, **kw: Any) -> Any:
            out = _f(self, *args, **kw)
            seen["items"] += len(out)
            return out

        monkeypatch.setattr(KnowledgeGraph, name, counted)
    return seen


def test_search_evidence_and_answers_read_a_window_of_a_huge_document(
    huge_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = huge_home.kb()
    kb.search("zebra")  # the graph is built once per store generation, not per query
    read = _count_nodes(monkeypatch)
    graph = _count_graph(monkeypatch)
    result = kb.search("zebra password rotation")
    assert {h.path for h in result.hits} == {"big.md", "small.md"}
    # graph walks step into at most WALK_CHILDREN children of the huge document's nodes
    assert graph["items"] <= 2 * WALK_CHILDREN + 100 < HEADINGS
    pack = kb.evidence("zebra password rotation")
    assert any(f.path == "big.md" for f in pack.fragments)
    answer = kb.ask("How often does the zebra password rotation happen?")
    assert answer.citations
    # Per span: the nodes around its start plus their ancestors, never the whole document.
    assert read["big.md whole"] == 0
    assert read["big.md window"] > 0
    assert read["big.md largest read"] <= 2 * NEAR_NODES + 10 < FULL_VIEW_NODES < HEADINGS
    assert read["small.md whole"] > 0


def test_small_documents_are_still_read_whole(huge_home: Home) -> None:
    store = huge_home.store
    kb = huge_home.kb()
    doc = kb.document("small.md")
    window = store.nodes_near(kb.name, "small.md", doc.version_id, [(0, 5)])
    assert window.complete
    assert window.nodes == store.nodes_of_version(kb.name, "small.md", doc.version_id)
    big = kb.document("big.md")
    text_end = len(store.get_document_text(kb.name, big.doc_id, big.version_id))
    part = store.nodes_near(kb.name, "big.md", big.version_id, [(text_end - 10, text_end)])
    assert not part.complete
    ids = {n.id for n in part.nodes}
    # every node's parent is in the window (ancestors are always read)
    assert all(n.parent_id is None or n.parent_id in ids for n in part.nodes)
    assert any(n.parent_id is None for n in part.nodes)
