"""The import graph of ``src/citewise``, read from the source with :mod:`ast`, and its cycles.

Every ``import`` / ``from ... import`` statement counts, wherever it stands: module level,
inside a function (a lazy import is still a dependency) and under ``if TYPE_CHECKING:``.
An edge goes to the most specific module named (``from citewise.graph import serialize``
-> ``citewise.graph.serialize``) and also to each package whose ``__init__`` the import
runs (``citewise.graph``), except the importer's own ancestors.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = "citewise"
SRC = Path(__file__).resolve().parents[1] / "src"

Graph = dict[str, set[str]]


def module_names(src: Path = SRC) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package under ``src``."""
    out: dict[str, Path] = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, target] if target else base)


def _imported(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (
                _resolve_relative(module, is_package, node.level, node.module)
                if node.level
                else node.module or ""
            )
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    out: set[str] = set()
    for name in names:
        if name != PACKAGE and not name.startswith(PACKAGE + "."):
            continue
        while name not in known and "." in name:  # ``from m import function`` -> m
            name = name.rsplit(".", 1)[0]
        out.add(name)
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))  # packages it runs
    ancestors = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
    return out - ancestors - {module}


def import_graph(src: Path = SRC) -> Graph:
    """Module -> the package modules it imports (see the module docstring for the rules)."""
    files = module_names(src)
    known = set(files)
    graph: Graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = _imported(tree, module, path.name == "__init__.py", known)
    return graph


def _digraph(graph: Graph) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(graph)
    g.add_edges_from((a, b) for a, targets in graph.items() for b in targets)
    return g


def strongly_connected(graph: Graph) -> list[list[str]]:
    """Every import cycle as its strongly connected component (more than one module, or
    a module importing itself); each sorted, the list sorted."""
    g = _digraph(graph)
    return sorted(
        sorted(c)
        for c in nx.strongly_connected_components(g)
        if len(c) > 1 or any(g.has_edge(m, m) for m in c)
    )


def a_cycle(graph: Graph, component: list[str]) -> list[str]:
    """One concrete import circle inside ``component``, from its first module back to it."""
    g = _digraph(graph).subgraph(component)
    edges = nx.find_cycle(g, source=component[0])
    return [edges[0][0], *(b for _, b in edges)]


def describe(graph: Graph) -> str:
    """The cycles as text: each component's modules and one circle through it."""
    lines = []
    for component in strongly_connected(graph):
        lines.append(f"{len(component)} modules: {', '.join(component)}")
        lines.append("  e.g. " + " -> ".join(a_cycle(graph, component)))
    return "\n".join(lines) or "no cycles"


# -- folder layers ------------------------------------------------------------------------
#
# The top-level folders and modules of ``src/citewise`` in one declared order, bottom first,
# grouped into named layers. An import between two folders must point down this list (to an
# earlier folder); an arrow that points up is allowed only if it is named in EXCEPTIONS,
# with its reason. Imports within a folder are the module rule's business (no cycle).


Layer = tuple[str, tuple[str, ...], str]

#: (layer name, its folders bottom first, what it holds), the bottom layer first.
LAYERS: tuple[Layer, ...] = (
    (
        "Base",
        ("errors", "switches", "config", "memo", "jsonable"),
        "the one exception hierarchy, the on/off switches, settings, the memo of pure text "
        "functions, JSON conversion",
    ),
    ("Analysis", ("analysis",), "text and question analysis (the `Question`, read once)"),
    (
        "Core",
        ("core",),
        "what two stages share: the parsed-document and stored records, search filters and "
        "results, the access rule, the ledger entry format and Merkle tree, secret "
        "redaction, the `Reranker` protocol",
    ),
    (
        "Data",
        ("ingest", "store", "graph", "index"),
        "parsing, the Store and Ledger protocols and backends, the knowledge graph built from "
        "stored chunks, and the index (BM25, vectors, per-caller views)",
    ),
    (
        "Stages",
        ("recall", "context", "evidence", "sufficiency", "answer", "notes", "web", "llm", "audit"),
        "recall, the `StageContext` a stage takes, evidence, the sufficiency verdict, the "
        "answer, topic notes compiled from the sources, the opt-in second source, the "
        "optional LLM route, and audit (recording, pinned citations, bundles, replay)",
    ),
    (
        "Operations",
        ("conversation", "sync", "governance"),
        "conversations over asks, and the whole-knowledge-base operations: folder sync, "
        "mirror, watch and store migration; governance (the policy, the publication gate, "
        "quarantine and the review queue)",
    ),
    ("Library", ("kb", "testing"), "`Home` / `KnowledgeBase`, and the backend test suites"),
    (
        "Facade",
        ("facade",),
        "the access-scoped facade every interface goes through: the `Caller`, the `Service` "
        "(scope and access on every read and write, the ledger entries the library writes), "
        "the readers-writer lock, and version numbers as the caller sees them",
    ),
    (
        "Interfaces",
        ("eval", "server", "mcp_server", "cli"),
        "evaluation, the HTTP server, the MCP server and the command line",
    ),
)

#: Upward arrows still allowed: (importer folder, imported folder) -> the reason. Empty is
#: the aim; a test fails when an entry is no longer needed.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def folder_order() -> list[str]:
    return [folder for _, folders, _ in LAYERS for folder in folders]


def folder_of(module: str) -> str | None:
    """The top-level folder or module of ``citewise`` that ``module`` lives in (None for the
    package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def folder_graph(graph: Graph) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(importer folder, imported folder) -> the module imports that make that arrow."""
    arrows: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for module, targets in graph.items():
        a = folder_of(module)
        for target in targets:
            b = folder_of(target)
            if a is not None and b is not None and a != b:
                arrows.setdefault((a, b), []).append((module, target))
    return {k: sorted(v) for k, v in sorted(arrows.items())}


def upward(graph: Graph) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """The folder arrows that point up the declared order (or to an undeclared folder)."""
    rank = {folder: i for i, folder in enumerate(folder_order())}
    return {
        (a, b): imports
        for (a, b), imports in folder_graph(graph).items()
        if a not in rank or b not in rank or rank[b] > rank[a]
    }


def folder_cycles(graph: Graph) -> list[list[str]]:
    """The folder cycles: strongly connected components of the folder graph."""
    folders: Graph = {}
    for a, b in folder_graph(graph):
        folders.setdefault(a, set()).add(b)
        folders.setdefault(b, set())
    return strongly_connected(folders)


def layers_markdown() -> str:
    """The Markdown of docs/architecture.md's layer list, generated from LAYERS and
    EXCEPTIONS (``python -m tests.import_graph --docs`` prints it)."""

    def name(folder: str) -> str:
        return f"`{folder}/`" if (SRC / PACKAGE / folder).is_dir() else f"`{folder}.py`"

    lines = [
        "Folders, from the top (imports between folders point down this list; within a "
        "layer, down its list, which reads bottom first):",
        "",
    ]
    for number, (title, folders, what) in enumerate(reversed(LAYERS), start=1):
        shown = ", ".join(name(f) for f in folders)
        lines.append(f"{number}. **{title}** ({shown}): {what}.")
    lines.append("")
    if EXCEPTIONS:
        lines.append("Upward arrows still allowed, each with its reason:")
        lines.append("")
        lines.extend(f"- {name(a)} → {name(b)}: {why}" for (a, b), why in EXCEPTIONS.items())
    else:
        lines.append("Upward arrows allowed: none. The folder graph has no cycle.")
    return "\n".join(lines)


DOCS_BEGIN = "<!-- layers: generated by python -m tests.import_graph --docs -->"
DOCS_END = "<!-- /layers -->"


def docs_section(text: str) -> str:
    """The generated part of docs/architecture.md (between DOCS_BEGIN and DOCS_END)."""
    start = text.index(DOCS_BEGIN) + len(DOCS_BEGIN)
    return text[start : text.index(DOCS_END)].strip("\n")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--docs"]:
        print(layers_markdown())
    else:
        g = import_graph()
        print(describe(g))
        for (a, b), imports in upward(g).items():
            print(f"up: {a} -> {b}: {', '.join(f'{m} -> {t}' for m, t in imports)}")
        print("folder cycles:", folder_cycles(g) or "none")
