"""Write-time checks every backend applies before it writes: knowledge-base names, document
paths, and parses whose nodes must slice their text exactly (nothing is written otherwise)."""

from __future__ import annotations

import re

from citewise.core.records import ParsedDocument, sha256_text
from citewise.errors import StoreError, UsageError

KB_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")


def check_kb_name(name: str) -> None:
    if not isinstance(name, str) or KB_NAME_RE.match(name) is None:
        raise UsageError(
            f"Invalid knowledge base name {name!r}.",
            hint="Use 1-63 characters: lowercase letters, digits, '-' and '_', "
            "starting with a letter or digit (e.g. 'team-docs').",
        )


def check_doc_path(path: str) -> None:
    parts = path.split("/")
    if (
        not path
        or "\x00" in path
        or "\\" in path
        or path.startswith("/")
        or any(p in ("", ".", "..") for p in parts)
    ):
        raise UsageError(
            f"Invalid document path {path!r}.",
            hint="Document paths are relative to the added root, '/'-separated, "
            "with no empty, '.' or '..' segments (e.g. 'guides/setup.md').",
        )


def check_parsed(parsed: ParsedDocument) -> None:
    """Refuse a parse whose nodes do not slice its text exactly (nothing is written)."""
    text = parsed.text
    seen: set[str] = set()
    for node in parsed.nodes:
        if node.id in seen:
            raise StoreError(f"Parser produced duplicate node id {node.id!r}.")
        seen.add(node.id)
        if not 0 <= node.char_start <= node.char_end <= len(text):
            raise StoreError(f"Node {node.id} has an out-of-range char range.")
        if text[node.char_start : node.char_end] != node.text:
            raise StoreError(f"Node {node.id} text does not match its char range.")
        if sha256_text(node.text) != node.sha256:
            raise StoreError(f"Node {node.id} sha256 does not match its text.")
    chunk_ids: set[str] = set()
    for chunk in parsed.chunks:
        if chunk.id in chunk_ids:
            raise StoreError(f"Parser produced duplicate chunk id {chunk.id!r}.")
        chunk_ids.add(chunk.id)
        missing = [n for n in chunk.node_ids if n not in seen]
        if missing:
            raise StoreError(f"Chunk {chunk.id} names unknown nodes {missing}.")
        if not 0 <= chunk.char_start <= chunk.char_end <= len(text):
            raise StoreError(f"Chunk {chunk.id} has an out-of-range char range.")
