"""Regression tests for issue 13 items 2, 3 and 4 at the library level: what a principal
gets from search, evidence and answers never depends on documents it may not read."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import pytest

from citewise.core.search import SearchFilters
from citewise.index.lexical import LexicalIndex
from citewise.kb import Home
from tests._leak_corpus import HIDDEN, HIDDEN_NAME, QUERIES, TOKEN, build
from tests.backends import Backend

BOB = SearchFilters(principal="bob")
ALICE = SearchFilters(principal="alice")


@pytest.fixture(scope="module")
def homes(
    module_backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Home]]:
    """The three homes on each store backend (SQLite, PostgreSQL)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("leaks")
    opened = {
        v: module_backend.open(build(root / v, v, module_backend.store(root / v)))
        for v in ("without", "with", "deleted")
    }
    yield opened
    for h in opened.values():
        h.close()
    mp.undo()


def _search(home: Home, query: str, filters: SearchFilters = BOB) -> dict[str, Any]:
    result = home.kb().search(query, filters=filters)
    data = asdict(result)
    for d in data["diagnostics"]:
        d["ms"] = 0.0  # timings are the only per-run field
    return data


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("variant", ["with", "deleted"])
def test_search_is_the_same_without_the_hidden_document(
    homes: dict[str, Home], query: str, variant: str
) -> None:
    """Items 2, 3, 4: scores, route diagnostics, graph anchor/degrees/filtered counts and
    the revision number are those of a corpus that never held the hidden document."""
    assert _search(homes[variant], query) == _search(homes["without"], query)


def test_top_score_ignores_hidden_document_frequencies(homes: dict[str, Home]) -> None:
    """Item 3: the hidden document repeats 'vault'; bob's BM25 statistics leave it out."""

    def top(home: Home) -> float | None:
        res = home.kb().search("vault rotation", filters=BOB, mode="lexical")
        return next(d.top_score for d in res.diagnostics if d.route == "lexical")

    assert top(homes["with"]) == top(homes["without"])


def test_reader_still_finds_the_hidden_document(homes: dict[str, Home]) -> None:
    """The suite is live: alice sees the token bob cannot."""
    res = homes["with"].kb().search(f"What is {TOKEN}?", filters=ALICE)
    assert any(h.path == HIDDEN for h in res.hits)
    assert _search(homes["with"], "vault rotation", ALICE) != _search(
        homes["without"], "vault rotation", ALICE
    )


def test_graph_anchor_is_never_a_hidden_point(homes: dict[str, Home]) -> None:
    """Item 2: the query is the hidden document's title; bob's anchor is not that point."""
    res = homes["with"].kb().search("Vault internals", filters=BOB)
    assert res.graph is None or res.graph.anchor is None or res.graph.anchor.path != HIDDEN
    assert "not_visible" not in (res.graph.filtered if res.graph else {})


def test_visible_revision_does_not_move_with_hidden_changes(homes: dict[str, Home]) -> None:
    """Item 4: two hidden batches later, bob's revision is still his first."""
    assert homes["with"].kb().info().revision == 3
    assert homes["with"].kb().search("vault", filters=BOB).revision == 1
    assert homes["with"].kb().search("vault", filters=ALICE).revision == 3


@pytest.mark.parametrize(
    ("question", "leak"),
    [
        # the hidden document supersedes the public retention policy
        ("What is the retention period for audit logs?", "stale_evidence"),
        # only the hidden document names the token: as absent as a name nobody wrote
        (f"How does the {HIDDEN_NAME} module rotate vault keys?", ""),
    ],
)
def test_answers_do_not_depend_on_hidden_relations_or_terms(
    homes: dict[str, Home], question: str, leak: str
) -> None:
    """Item 4 (stale evidence) and the named-term check behind ``subject_absent``."""

    def answer(home: Home) -> dict[str, Any]:
        a = home.kb().ask(question, filters=BOB).to_json(with_trace=False)
        return {k: a[k] for k in ("outcome", "degradation", "answer", "sufficiency")}

    got = answer(homes["with"])
    assert not leak or leak not in str(got)
    assert got == answer(homes["without"])


def test_population_scores_equal_an_index_of_only_that_population() -> None:
    """Item 3, unit level: statistics of a visible subset equal a from-scratch index."""
    chunks = [
        ("a", "vault keys rotate quarterly", "Rotation"),
        ("b", "retention of vault audit logs", ""),
        ("c", "vault vault vault secret hourly rotation", "Vault"),
        ("d", "unrelated text about deployment", ""),
    ]
    full = LexicalIndex.build(chunks[:2])
    full.add(chunks[2:])  # the hidden ones land in the delta segment
    visible = ["a", "b", "d"]
    alone = LexicalIndex.build([c for c in chunks if c[0] in visible])
    pop = full.population(visible)
    for query in ("vault rotation", "vault audit", "deployment"):
        tokens = query.split()
        got = full.search_tokens(tokens, k=10, allowed=visible, population=pop)
        assert got == alone.search_tokens(tokens, k=10)
        assert full.search_tokens(tokens, k=10, allowed=visible) != got or query == "deployment"


def test_revision_view_counts_changes_to_what_the_principal_may_read(
    homes: dict[str, Home],
) -> None:
    """A document turning restricted is a change bob sees (it leaves his view); the
    restricted versions themselves are not. The store reads each version's own access."""
    from citewise.core.access import revision_view

    versions = [
        (1, 3, {}),
        (3, None, {"access": "alice"}),
        (2, None, {"access": ["alice"]}),
        (4, None, {"access": ["bob"]}),
        (5, None, {"access": ""}),  # fails closed: restricted to nobody
    ]
    bob, alice = revision_view(versions, "bob"), revision_view(versions, "alice")
    assert [bob.number(r) for r in (0, 1, 2, 3, 4, 5)] == [0, 1, 1, 2, 3, 3]
    assert [alice.number(r) for r in (0, 1, 2, 3, 4, 5)] == [0, 1, 2, 3, 3, 3]
    stored = homes["with"].store.version_access("default")
    assert sorted(str(a) for _, _, a in stored if a) == ["{'access': ['alice']}"] * 2
    assert sum(1 for _, removed, a in stored if a and removed == 3) == 1  # v1 replaced at 3


def test_principals_with_the_same_access_classes_share_their_views(
    homes: dict[str, Home],
) -> None:
    """Caches are per set of readable access classes, not per principal."""
    index = homes["with"].index("default")
    with index.pinned():
        bob, carol, alice = (index.population(p) for p in ("bob", "carol", "alice"))
        assert bob is not None and bob is carol
        assert alice is None  # alice may read everything: global statistics
        assert index.graph_for("bob") is index.graph_for("carol")
        assert index.graph_for("alice") is index.graph.sync()
        assert index.readable("bob") < index.readable("alice")


@pytest.mark.parametrize(
    "meta",
    [
        {},
        {"title": "x", "tags": ["a"]},
        {"access": ["alice", "bob"]},
        {"access": "alice"},
        {"access": ""},
        {"access": []},
        {"access": None},
        {"Access": "alice"},
        {"Access": "alice", "access": ["alice"]},
    ],
)
def test_access_class_decides_like_the_metadata(meta: dict[str, Any]) -> None:
    """Views are shared per access class, so a class must admit exactly whom the document
    admits (fail-closed spellings included)."""
    from citewise.core.access import may_read
    from citewise.index.views import access_class

    for who in (None, "alice", "bob"):
        assert may_read(dict(access_class(meta)), who) == may_read(meta, who)
