"""Entry point: bytes of one file -> :class:`ParsedDocument`.

Steps: size limit, format by extension (the registry in ``formats.py``), decode and
front matter (text formats that ask for them), format parser, clause tracking, ids,
chunking.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import PurePosixPath
from typing import Any

from citewise.config import IngestConfig
from citewise.core.records import DocFormat, Node, ParsedDocument, sha256_text, stable_id
from citewise.errors import (
    BrokenFile,
    CitewiseError,
    EmptyFile,
    FileTooLarge,
    ParseLimitExceeded,
)
from citewise.ingest.chunking import build_chunks
from citewise.ingest.clauses import ClauseEvent, assign_clause_paths
from citewise.ingest.decode import LineIndex, decode_bytes
from citewise.ingest.extracted import Extracted, TextSource
from citewise.ingest.formats import format_for
from citewise.ingest.frontmatter import split_front_matter
from citewise.ingest.limits import ParseBudget
from citewise.ingest.tree import RawNode

_CLAUSE_BLOCKS = frozenset({"paragraph", "list_item", "blockquote"})


def detect_format(name: str) -> DocFormat:
    """Format name from the file extension (see ``ingest/formats.py``); raises
    :class:`UnsupportedFormat`."""
    return format_for(name).name


@contextmanager
def contained(name: str, fmt: str) -> Iterator[None]:
    """A format parser's own failure (a bug, or an input its library did not foresee)
    fails this one file with a clear error, never the batch it is part of. Only the
    exception's type is named: its message may quote the file. Running out of memory is a
    resource limit of this file (``PARSE_LIMIT``): the memory is freed as the error
    unwinds the parse, and the rest of the batch goes on."""
    try:
        yield
    except CitewiseError:
        raise
    except MemoryError:
        raise ParseLimitExceeded(
            f"{name}: the {fmt} parser ran out of memory on this file.",
            hint="Split the file or lower what it asks for (page size, image resolution), "
            "or add it where more memory is available.",
        ) from None
    except RecursionError:
        raise ParseLimitExceeded(
            f"{name}: the file nests too deeply for the {fmt} parser "
            "(past Python's recursion limit).",
            hint="Flatten the nesting or split the file.",
        ) from None
    except Exception as exc:
        raise BrokenFile(
            f"{name}: the {fmt} parser could not read this file ({type(exc).__name__}).",
            hint=f"Check that it is a valid {fmt} file; if it is, report it to the citewise "
            "maintainers and leave it out of the ingest meanwhile.",
        ) from exc


def _stem(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).stem or name


def _walk(root: RawNode, budget: ParseBudget) -> list[tuple[RawNode, int]]:
    """Pre-order ``(node, depth)`` without recursion (deep trees cannot overflow the
    stack); depth and node count are checked against the budget as it goes."""
    out: list[tuple[RawNode, int]] = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        budget.depth(depth)
        budget.step()
        out.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(node.children))
    if len(out) > budget.limits.max_nodes:
        budget.node(len(out) - budget.nodes)
    return out


def _assign_clauses(order: list[tuple[RawNode, int]]) -> None:
    events: list[ClauseEvent] = []
    targets: list[RawNode] = []
    for raw, depth in order:
        if raw.clause_preset:
            continue
        if raw.kind == "section":
            events.append(ClauseEvent("heading", raw.title or "", raw.level or depth))
        elif raw.kind in _CLAUSE_BLOCKS:
            events.append(ClauseEvent("block", raw.search_text))
        else:
            continue
        targets.append(raw)
    for raw, res in zip(targets, assign_clause_paths(events), strict=True):
        raw.clause_path = res.path
        if res.marker:
            raw.attrs["clause_marker"] = res.marker
        if res.inherited:
            raw.attrs["clause_inherited"] = True
        if res.ambiguous:
            raw.attrs["clause_ambiguous"] = True


def parse_document(
    raw: bytes,
    *,
    name: str,
    kb: str,
    doc_path: str,
    config: IngestConfig,
    clock: Callable[[], float] | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> ParsedDocument:
    """Parse one file. Errors are :class:`~citewise.errors.IngestError` subclasses;
    a file past a :class:`~citewise.config.ParseLimits` bound raises
    :class:`~citewise.errors.ParseLimitExceeded`. ``clock`` is for tests.

    ``metadata``: fields given from outside the file (its sidecar and folder files, or an
    upload's fields), already validated. They replace what the format's parser found, key
    by key; the file's own front matter replaces them in turn."""
    given = dict(metadata or {})
    if len(raw) > config.max_file_bytes:
        raise FileTooLarge(
            f"{name}: {len(raw):,} bytes exceeds the {config.max_file_bytes:,}-byte limit.",
            hint="Split the file or raise ingest.max_file_bytes.",
        )
    spec = format_for(name)
    fmt: DocFormat = spec.name
    budget = ParseBudget(name, config.limits, clock or time.monotonic)
    extracted: Extracted
    if spec.parse_bytes is not None:
        if not raw:
            raise EmptyFile(f"{name}: the file is empty.", hint="Add content or remove the file.")
        with contained(name, fmt):
            extracted = spec.parse_bytes(raw, name, budget)
        meta = {**extracted.metadata, **given}
        text = extracted.text
        if not text.strip():
            raise EmptyFile(
                f"{name}: no text could be extracted from the file.",
                hint="Check that the file holds text (not only images), or leave it out.",
            )
        index = LineIndex(text)
    else:
        assert spec.parse_text is not None  # FormatSpec checks one parser is given
        text = decode_bytes(raw, name)
        index = LineIndex(text)
        body_offset = 0
        front: dict[str, Any] = {}
        if spec.front_matter:
            front, body_offset = split_front_matter(text, name)
        with contained(name, fmt):
            extracted = spec.parse_text(TextSource(text, name, body_offset, index, budget))
        meta = {**extracted.metadata, **given, **front}
    children, first_heading = extracted.nodes, extracted.title
    title = str(meta.get("title") or first_heading or _stem(name))

    root = RawNode("document", 0, len(text), title, title=title, children=children)
    root.clause_preset = True
    order = _walk(root, budget)
    budget.text(sum(r.char_end - r.char_start for r, _ in order), len(text))
    _assign_clauses(order)
    budget.check_time()

    content_sha = sha256_text(text)
    nodes: list[Node] = []
    ids: dict[int, str] = {}
    paths: dict[int, tuple[str, ...]] = {}
    parents: dict[int, RawNode | None] = {id(root): None}
    for raw_node, _ in order:
        for child in raw_node.children:
            parents[id(child)] = raw_node
    for ordinal, (raw_node, _) in enumerate(order):
        budget.step()
        parent = parents[id(raw_node)]
        path = paths[id(parent)] if parent is not None else ()
        if raw_node.kind == "section":
            path = (*path, raw_node.title or "")
        paths[id(raw_node)] = path
        node_id = stable_id("n", kb, doc_path, content_sha, raw_node.kind, str(ordinal))
        ids[id(raw_node)] = node_id
        body = text[raw_node.char_start : raw_node.char_end]
        line_start, line_end = index.line_range(raw_node.char_start, raw_node.char_end)
        nodes.append(
            Node(
                id=node_id,
                kind=raw_node.kind,
                parent_id=ids[id(parent)] if parent is not None else None,
                heading_path=path,
                ordinal=ordinal,
                line_start=line_start,
                line_end=line_end,
                char_start=raw_node.char_start,
                char_end=raw_node.char_end,
                text=body,
                search_text=raw_node.search_text,
                sha256=sha256_text(body),
                clause_path=raw_node.clause_path,
                attrs=raw_node.attrs,
            )
        )
    budget.check_time()
    if any("locator" in n.attrs for n in nodes):
        meta["locators"] = True  # recall/evidence read node locators for this document
    chunks = build_chunks(nodes, title, config.chunks, (kb, doc_path, content_sha))
    return ParsedDocument(
        format=fmt, text=text, title=title, metadata=meta, nodes=tuple(nodes), chunks=chunks
    )
