"""The dependency rule, read from the ``import`` statements of ``src/citewise`` (lazy and
``TYPE_CHECKING`` imports included): nothing below the CLI imports it, the HTTP app and
its routes do not import each other, no stage imports the facade, and the package has no
cycle."""

from __future__ import annotations

import ast

from tests.import_graph import (
    DOCS_BEGIN,
    DOCS_END,
    EXCEPTIONS,
    LAYERS,
    SRC,
    a_cycle,
    describe,
    docs_section,
    folder_cycles,
    folder_graph,
    folder_of,
    folder_order,
    import_graph,
    layers_markdown,
    strongly_connected,
    upward,
)

GRAPH = import_graph()


def _is_cli(module: str) -> bool:
    # ``citewise.cli`` and its modules (and the old top-level ``citewise.cli_*`` files).
    return module == "citewise.cli" or module.startswith(("citewise.cli.", "citewise.cli_"))


def test_the_graph_sees_lazy_and_type_checking_imports() -> None:
    # cli/core.py imports the facade only inside commands, FileResult only for typing.
    assert "citewise.kb" in GRAPH["citewise.cli.options"]
    assert "citewise.core.records" in GRAPH["citewise.cli.core"]
    assert "citewise.graph.serialize" in GRAPH["citewise.facade.reads"]
    assert "citewise.graph" in GRAPH["citewise.facade.reads"]  # its __init__ runs too


def test_nothing_outside_the_cli_imports_it() -> None:
    offenders = {
        module: sorted(m for m in targets if _is_cli(m))
        for module, targets in GRAPH.items()
        if not _is_cli(module) and any(_is_cli(m) for m in targets)
    }
    assert offenders == {}, f"modules importing the CLI: {offenders}"


def test_the_http_app_and_its_routes_form_no_cycle() -> None:
    server = {m: {t for t in ts if t.startswith("citewise.server")} for m, ts in GRAPH.items()}
    server = {m: ts for m, ts in server.items() if m.startswith("citewise.server")}
    assert strongly_connected(server) == []
    assert {"citewise.server.routes_kb", "citewise.server.deps"} <= GRAPH["citewise.server.app"]
    for routes in ("routes_health", "routes_kb", "routes_query"):
        assert "citewise.server.app" not in GRAPH[f"citewise.server.{routes}"]


#: The interfaces on top and the access-scoped facade below them: the only modules that
#: may import the library facade (kb.py).
INTERFACES = (
    "citewise.cli",
    "citewise.server",
    "citewise.mcp_server",
    "citewise.eval",
    "citewise.facade",
)


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_only_the_interfaces_import_the_facade() -> None:
    # ``citewise`` itself resolves ``citewise.Home`` lazily for library users.
    importers = sorted(m for m, ts in GRAPH.items() if "citewise.kb" in ts)
    stages = [m for m in importers if m != "citewise" and not _under(m, INTERFACES)]
    assert stages == [], f"stages importing the facade (take a StageContext): {stages}"


def test_the_bottom_layers_import_nothing_above_them() -> None:
    analysis = {m: ts for m, ts in GRAPH.items() if _under(m, ("citewise.analysis",))}
    assert {"citewise.analysis.question", "citewise.analysis.tokenize"} <= set(analysis)
    # citewise.errors and citewise.memo are leaves (they import nothing of citewise): the
    # one exception hierarchy, which analysis.asof raises from (a bad --as-of date), and
    # the bounded memo of pure text functions (analysis.conditions keeps its readings).
    leaves = ("citewise.errors", "citewise.memo")
    for leaf in leaves:
        assert not any(t.startswith("citewise") for t in GRAPH[leaf]), leaf
    for module, targets in analysis.items():
        outside = sorted(t for t in targets if not _under(t, ("citewise.analysis", *leaves)))
        assert outside == [], f"{module} imports {outside}"
    assert GRAPH["citewise.context"] <= {
        "citewise.config",
        "citewise.store",
        "citewise.store.protocol",
        "citewise.index",
        "citewise.index.manager",
        # the recorded conflict resolutions an ask applies (issue 38): a Core type
        "citewise.core",
        "citewise.core.conflict_rules",
    }


def test_the_answer_stage_does_not_import_the_llm_route() -> None:
    # ``ask`` takes an LLMWriter (answer/writer.py); the llm package imports the answer stage.
    answer = {m: ts for m, ts in GRAPH.items() if _under(m, ("citewise.answer",))}
    offenders = {
        m: sorted(t for t in ts if _under(t, ("citewise.llm",))) for m, ts in answer.items()
    }
    assert {m: ts for m, ts in offenders.items() if ts} == {}


def test_cycle_finder_finds_a_planted_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert strongly_connected(graph) == [["a", "b", "c"], ["e"]]
    assert a_cycle(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_type_checking_and_function_imports_count() -> None:
    from tests.import_graph import _imported

    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from citewise.kb import Home\n"
        "def f():\n    from citewise.graph import serialize\n"
    )
    known = {"citewise", "citewise.kb", "citewise.graph", "citewise.graph.serialize"}
    got = _imported(ast.parse(source), "citewise.cli.x", False, known)
    assert got == {"citewise.kb", "citewise.graph", "citewise.graph.serialize"}


def test_no_import_cycles() -> None:
    text = describe(GRAPH)
    print(text)
    assert strongly_connected(GRAPH) == [], text


# -- folder layers (tests/import_graph.py: LAYERS, EXCEPTIONS) -----------------------------


def test_every_folder_has_one_place_in_the_layer_order() -> None:
    order = folder_order()
    assert len(order) == len(set(order)), "a folder is declared twice"
    present = {folder_of(m) for m in GRAPH} - {None}
    assert sorted(present - set(order)) == [], "declare each top-level folder in LAYERS"
    assert sorted(set(order) - present) == [], "LAYERS names a folder that does not exist"


def test_folder_imports_point_down_the_declared_order() -> None:
    up = upward(GRAPH)
    unexplained = {arrow: imports for arrow, imports in up.items() if arrow not in EXCEPTIONS}
    assert unexplained == {}, (
        f"imports up the layer order (move the shared code down): {unexplained}"
    )


def test_every_allowed_exception_is_still_needed() -> None:
    up = upward(GRAPH)
    stale = sorted(arrow for arrow in EXCEPTIONS if arrow not in up)
    assert stale == [], f"exceptions no import needs any more (remove them): {stale}"
    assert all(reason.strip() for reason in EXCEPTIONS.values())


def test_no_folder_cycle_outside_the_exceptions() -> None:
    without = {
        m: {t for t in ts if (folder_of(m), folder_of(t)) not in EXCEPTIONS}
        for m, ts in GRAPH.items()
    }
    assert folder_cycles(without) == []
    if not EXCEPTIONS:
        assert folder_cycles(GRAPH) == []


def test_the_folder_rule_finds_a_planted_upward_arrow() -> None:
    planted = {"citewise.errors": {"citewise.cli.root"}, "citewise.cli.root": {"citewise.errors"}}
    assert upward(planted) == {("errors", "cli"): [("citewise.errors", "citewise.cli.root")]}
    assert folder_cycles(planted) == [["cli", "errors"]]
    assert ("cli", "errors") in folder_graph(planted)


def test_the_architecture_doc_lists_the_declared_layers() -> None:
    doc = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert DOCS_BEGIN in doc and DOCS_END in doc
    assert docs_section(doc) == layers_markdown(), (
        "regenerate docs/architecture.md's layer list: python -m tests.import_graph --docs"
    )
    assert all(title in layers_markdown() for title, _, _ in LAYERS)
