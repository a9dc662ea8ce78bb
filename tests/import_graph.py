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
