"""Per-ask work is bounded by what is read, not by the cited document's length (issue 35).

The same Markdown document is ingested once as written and once with nine times as many
unrelated filler sections; the same questions are asked of both (dense off). Node decodes
(every call of the row conversion ``store._convert.node``), store calls and node rows
returned by ``nodes_near`` are counted per ask once the index state is warm: they must not
grow with the document. Also: the acronym prefilter of the admission gate finds what the
plain scan finds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.answer.admission import expansions
from citewise.core.records import Node
from citewise.kb import Home
from citewise.store import _convert as cv
from citewise.store import _near
from citewise.store._node_cache import NodeCache
from citewise.store.protocol import Store
from citewise.store.sqlite import SQLiteStore
from tests.test_query_cost import CountingStore

_FACTS = (
    "## Coolant\n\nThe boiling point of the coolant is 106 °C at sea level.\n\n"
    "## Pump\n\nThe pump must be primed for 30 seconds before the first start.\n\n"
    "## Filter\n\nReplace the intake filter every 400 operating hours.\n\n"
)
_QUESTIONS = (
    "What is the boiling point of the coolant?",
    "How long must the pump be primed before the first start?",
    "How often should the intake filter be replaced?",
)


def _filler(i: int) -> str:
    """An unrelated section: distinct words so that it never answers the questions."""
    words = " ".join(f"lorem{i}x{j}" for j in range(12))
    return (
        f"## Appendix note {i}\n\nArchive shelf {i} lists {words}.\n\n- item {i}a\n- item {i}b\n\n"
    )


def _document(sections: int) -> str:
    return "# Plant manual\n\n" + _FACTS + "".join(_filler(i) for i in range(sections))


def _per_ask(tmp_path: Path, name: str, sections: int, mp: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts of the warm asks (after one ask of each question) over one document."""
    docs = tmp_path / name / "docs"
    docs.mkdir(parents=True)
    (docs / "manual.md").write_text(_document(sections), "utf-8")
    decodes = [0]
    real = cv.node

    def counted(r: Any) -> Node:
        decodes[0] += 1
        return real(r)

    mp.setattr(cv, "node", counted)
    near_rows = [0]
    real_near = _near.SQLiteNear.nodes_near

    def near(self: Any, *args: Any, **kwargs: Any) -> Any:
        window = real_near(self, *args, **kwargs)
        near_rows[0] += len(window.nodes)
        return window

    mp.setattr(_near.SQLiteNear, "nodes_near", near)
    sqlite = SQLiteStore(tmp_path / name / "home" / "citewise.db")
    counting = CountingStore(sqlite)
    with Home.open(tmp_path / name / "home", store=cast(Store, counting)) as home:
        kb = home.kb()
        assert kb.add([docs]).ok
        nodes = kb.stats()
        for q in _QUESTIONS:  # warm: the state's copies and the store's decoded nodes
            assert kb.ask(q).outcome == "answered"
        cold_windows = sqlite._window_cache.misses
        decodes[0] = near_rows[0] = sqlite._window_cache.misses = 0
        counting.calls.clear()
        counting.rows.clear()
        answers = [kb.ask(q) for q in _QUESTIONS]
        assert all(a.outcome == "answered" for a in answers)
    asks = len(_QUESTIONS)
    return {
        "documents": int(nodes.get("documents", 0)),
        "decodes": decodes[0] // asks,
        "store_reads": counting.reads() // asks,
        "near_rows": near_rows[0] // asks,
        "cold_window_misses": cold_windows,
        "window_misses": sqlite._window_cache.misses,
    }


def test_node_decodes_and_store_reads_do_not_grow_with_the_cited_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.setattr(_near, "FULL_VIEW_NODES", 100)  # the long form is read as windows
    short = _per_ask(tmp_path, "short", 10, monkeypatch)  # read whole, kept by the state
    long = _per_ask(tmp_path, "long", 100, monkeypatch)  # 10x: read as windows
    longer = _per_ask(tmp_path, "longer", 1000, monkeypatch)  # 100x
    assert short["documents"] == long["documents"] == longer["documents"] == 1
    # decoded once per store: a warm ask decodes no node, however long the document
    assert short["decodes"] == long["decodes"] == longer["decodes"] == 0
    # a document read as windows: store calls and node rows are set by the windows around
    # the cited spans, the same for a document ten times longer again
    assert longer["store_reads"] == long["store_reads"], (long, longer)
    assert longer["near_rows"] == long["near_rows"], (long, longer)
    assert short["store_reads"] <= long["store_reads"]
    # windows of a long version are read from the store once per (content, start): the
    # first asks read as many as the cited spans need, whatever the length; warm, none
    assert long["cold_window_misses"] == longer["cold_window_misses"] > 0, (long, longer)
    assert short["window_misses"] == long["window_misses"] == longer["window_misses"] == 0


def _plain_expansions(text: str, context: str) -> list[str]:
    """The scan the prefiltered :func:`expansions` replaced: every acronym's full pattern."""
    out = []
    for acronym in dict.fromkeys(re.findall(r"\b[A-Z]{2,}[0-9]*\b", text)):
        pat = rf"([^()\n.;:]{{3,90}}?)\s*\(\s*[\"“]?{re.escape(acronym)}[\"”]?\s*\)"
        out += [m.group(1) for m in re.finditer(pat, context.replace("\n", " "))]
    return out


_WORDS = st.lists(
    st.sampled_from(["VHDPA", "GFS", "Act", "(", ")", "“", "”", '"', "\n", ".", "the", "A2"]),
    max_size=30,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=_WORDS, context=_WORDS)
def test_prefiltered_expansions_are_the_plain_scan(text: str, context: str) -> None:
    assert expansions(text, context) == _plain_expansions(text, context)


def test_expansions_read_a_defining_parenthesis() -> None:
    context = "The Vessel Hull Design Protection Act (VHDPA) protects designs."
    assert expansions("VHDPA applies", context) == ["The Vessel Hull Design Protection Act"]


def _row(node_id: str) -> dict[str, Any]:
    return {
        "node_id": node_id, "kind": "paragraph", "parent_id": None, "heading_path": "[]",
        "ordinal": 0, "line_start": 1, "line_end": 1, "char_start": 0, "char_end": 1,
        "text": "x", "search_text": "x", "sha256": "", "clause_path": None, "attrs": "{}",
    }  # fmt: skip


def test_the_node_cache_decodes_once_and_drops_least_recently_used_content() -> None:
    cache = NodeCache(max_nodes=3)
    a, b = (1, "d1", "sha-a"), (2, "d2", "sha-b")
    first = cache.decode(a, [_row("n1"), _row("n2")])
    assert cache.decode(a, [_row("n2")])[0] is first[1]  # decoded once, shared
    cache.keep_whole(a, first)
    assert cache.whole(a) == tuple(first) and cache.whole(b) is None
    cache.decode(b, [_row("m1"), _row("m2")])  # 4 nodes > 3: the older content goes
    assert cache.whole(a) is None and len(cache.decode(b, [_row("m1")])) == 1
    cache.clear()
    assert cache.whole(b) is None
