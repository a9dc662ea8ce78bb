"""A small reader for Mermaid flowcharts (``flowchart``/``graph``): node labels and edges.

Only what the graph needs is read: node ids with their labels (any bracket shape, quoted or
not), links with or without labels (``-->|label|``, ``-- label -->``, ``-.->``, ``==>``,
``---``, ``<-->``), chains (``A --> B --> C``) and ``&`` groups. ``subgraph``, ``style``,
``classDef``, ``click`` and comments are skipped. Offsets are relative to the text passed in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^\s*(?:flowchart|graph)\b", re.IGNORECASE)
_SKIP = re.compile(
    r"^\s*(?:subgraph|end|classDef|class|style|linkStyle|click|direction|accTitle|accDescr)\b"
)
_ID = re.compile(r"\s*([^\W\d][\w]*|\d[\w]*)")
_Q = r'"[^"]*"'
_SHAPES = re.compile(
    rf"\(\(\((?P<s1>{_Q}|.*?)\)\)\)|\(\((?P<s2>{_Q}|.*?)\)\)|\(\[(?P<s3>{_Q}|.*?)\]\)"
    rf"|\[\[(?P<s4>{_Q}|.*?)\]\]|\[\((?P<s5>{_Q}|.*?)\)\]|\{{\{{(?P<s6>{_Q}|.*?)\}}\}}"
    rf"|\[[/\\](?P<s7>{_Q}|.*?)[/\\]\]|\[(?P<s8>{_Q}|[^\]]*)\]|\((?P<s9>{_Q}|[^)]*)\)"
    rf"|\{{(?P<s10>{_Q}|[^}}]*)\}}|>(?P<s11>{_Q}|[^\]]*)\]"
)
_CLASS = re.compile(r":::[\w-]+")
_LINK = re.compile(
    r"\s*(?:"
    r"(?P<h1><)?(?P<b1>-{2,}|={2,}|-\.+-)(?P<t1>>|[ox](?=\s))?\s*\|(?P<l1>[^|]*)\|"
    r"|(?P<h2><)?(?P<o2>--|==|-\.)\s+(?P<l2>[^>|]+?)\s*(?P<c2>-{2,}|={2,}|\.+-)(?P<t2>>|[ox](?=\s))?"
    r"|(?P<h3><)?(?P<b3>-{2,}|={2,}|-\.+-)(?P<t3>>|[ox](?=\s))?"
    r")"
)


@dataclass(frozen=True, slots=True)
class MermaidNode:
    id: str
    label: str
    #: offsets of the statement (trimmed line part) where the node got its label
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class MermaidEdge:
    source: str
    target: str
    label: str
    directed: bool
    #: offsets of the statement the edge was written in (leading/trailing blanks trimmed)
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Flowchart:
    nodes: dict[str, MermaidNode]
    edges: tuple[MermaidEdge, ...]


def _label(m: re.Match[str]) -> str:
    for value in m.groupdict().values():
        if value is not None:
            v = value.strip()
            if len(v) >= 2 and v[0] == v[-1] == '"':
                v = v[1:-1]
            return re.sub(r"<br\s*/?>", " ", v).strip()
    return ""


def _statements(source: str) -> list[tuple[int, int]]:
    """(start, end) of each statement: lines, split on ``;``, blanks and comments trimmed."""
    out: list[tuple[int, int]] = []
    pos = 0
    for line in source.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        cut = body.find("%%")
        if cut >= 0:
            body = body[:cut]
        start = 0
        for part in body.split(";"):
            a = start + (len(part) - len(part.lstrip()))
            b = start + len(part.rstrip())
            if b > a:
                out.append((pos + a, pos + b))
            start += len(part) + 1
        pos += len(line)
    return out


def parse_flowchart(source: str) -> Flowchart | None:
    """Nodes and edges of a flowchart; ``None`` when ``source`` is another diagram type."""
    stmts = _statements(source)
    if not stmts or not _HEADER.match(source[stmts[0][0] : stmts[0][1]]):
        return None
    nodes: dict[str, MermaidNode] = {}
    edges: list[MermaidEdge] = []
    for a, b in stmts[1:]:
        stmt = source[a:b]
        if _SKIP.match(stmt):
            continue
        _statement(stmt, a, b, nodes, edges)
    return Flowchart(nodes, tuple(edges))


def _group(
    stmt: str, pos: int, a: int, b: int, nodes: dict[str, MermaidNode]
) -> tuple[list[str], int]:
    """``A[x] & B`` at ``pos``: the ids read and the position after them."""
    ids: list[str] = []
    while True:
        m = _ID.match(stmt, pos)
        if m is None:
            return ids, pos
        nid = m.group(1)
        pos = m.end()
        shape = _SHAPES.match(stmt, pos)
        if shape is not None:
            label = _label(shape)
            pos = shape.end()
            if nid not in nodes or nodes[nid].label == nid:
                nodes[nid] = MermaidNode(nid, label or nid, a, b)
        elif nid not in nodes:
            nodes[nid] = MermaidNode(nid, nid, a, b)
        cls = _CLASS.match(stmt, pos)
        if cls is not None:
            pos = cls.end()
        ids.append(nid)
        amp = re.match(r"\s*&", stmt[pos:])
        if amp is None:
            return ids, pos
        pos += amp.end()


def _statement(
    stmt: str, a: int, b: int, nodes: dict[str, MermaidNode], edges: list[MermaidEdge]
) -> None:
    left, pos = _group(stmt, 0, a, b, nodes)
    if not left:
        return
    while pos < len(stmt):
        link = _LINK.match(stmt, pos)
        if link is None:
            return
        label = (link.group("l1") or link.group("l2") or "").strip().strip('"').strip()
        head = link.group("h1") or link.group("h2") or link.group("h3")
        tail = link.group("t1") or link.group("t2") or link.group("t3")
        directed = bool(tail) and not head
        right, pos = _group(stmt, link.end(), a, b, nodes)
        if not right:
            return
        for s in left:
            for t in right:
                edges.append(MermaidEdge(s, t, label, directed, a, b))
        left = right
