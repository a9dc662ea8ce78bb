"""Retrieval chunks: complete adjacent block nodes inside one section.

Members are block nodes (paragraph, list_item, table, code, mermaid, blockquote)
that are not inside the range of another member (a nested list item travels
with its parent item). Members are packed greedily up to ``target_words`` and
never past ``max_words``; a single node larger than ``max_words`` becomes a chunk
on its own (recognisable by ``word_count > max_words``) - nodes are never split.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from citewise.config import ChunkConfig
from citewise.core.records import BLOCK_KINDS, Chunk, Node, stable_id

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
#: CJK characters per counted word.
CJK_CHARS_PER_WORD = 1.5


def count_words(text: str) -> int:
    """Whitespace-language words plus CJK characters / 1.5 (rounded up)."""
    cjk = len(_CJK.findall(text))
    rest = _CJK.sub(" ", text)
    return len(_WORD.findall(rest)) + math.ceil(cjk / CJK_CHARS_PER_WORD)


def breadcrumb(title: str, heading_path: Sequence[str]) -> str:
    """``title > h1 > h2``; a first heading equal to the title is not repeated."""
    parts = [title] if title else []
    for h in heading_path:
        if not parts or h != parts[-1]:
            parts.append(h)
    return " > ".join(parts)


def chunk_members(nodes: Sequence[Node]) -> list[tuple[Node, str | None]]:
    """Member nodes in document order with the id of their enclosing section."""
    by_id = {n.id: n for n in nodes}
    out: list[tuple[Node, str | None]] = []
    for node in nodes:
        if node.kind not in BLOCK_KINDS:
            continue
        section: str | None = None
        covered = False
        parent = by_id.get(node.parent_id) if node.parent_id else None
        while parent is not None:
            if parent.kind in BLOCK_KINDS and (
                parent.char_start <= node.char_start and node.char_end <= parent.char_end
            ):
                covered = True
                break
            if parent.kind == "section" and section is None:
                section = parent.id
            parent = by_id.get(parent.parent_id) if parent.parent_id else None
        if not covered:
            out.append((node, section))
    return out


def build_chunks(
    nodes: Sequence[Node], title: str, config: ChunkConfig, id_parts: Sequence[str]
) -> tuple[Chunk, ...]:
    """Pack member nodes into chunks. ``id_parts`` = (kb, doc_path, content_sha256)."""
    groups: list[list[tuple[Node, int]]] = []
    current: list[tuple[Node, int]] = []
    current_words = 0
    current_section: object = object()
    for node, section in chunk_members(nodes):
        words = count_words(node.search_text)
        new_group = (
            section != current_section
            or current_words >= config.target_words
            or current_words + words > config.max_words
        )
        if current and new_group:
            groups.append(current)
            current, current_words = [], 0
        current.append((node, words))
        current_words += words
        current_section = section
    if current:
        groups.append(current)

    chunks: list[Chunk] = []
    for ordinal, group in enumerate(groups):
        first = group[0][0]
        chunks.append(
            Chunk(
                id=stable_id("c", *id_parts, str(ordinal)),
                ordinal=ordinal,
                node_ids=tuple(n.id for n, _ in group),
                heading_path=first.heading_path,
                breadcrumb=breadcrumb(title, first.heading_path),
                search_text="\n".join(n.search_text for n, _ in group if n.search_text),
                line_start=first.line_start,
                line_end=max(n.line_end for n, _ in group),
                char_start=first.char_start,
                char_end=max(n.char_end for n, _ in group),
                word_count=sum(w for _, w in group),
            )
        )
    return tuple(chunks)
