"""Build ParsedDocument objects for store tests without the real parser.

The text is the paragraphs joined by blank lines; one ``document`` node spans it
all and one ``paragraph`` node per paragraph slices it exactly. Node ids depend
on (kb, path, content, ordinal) like real content-addressed ids; chunks group
paragraphs in pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citewise.core.records import Chunk, Node, ParsedDocument, sha256_text, stable_id


def make_doc(
    kb: str,
    path: str,
    paragraphs: Sequence[str],
    *,
    title: str = "",
    meta: dict[str, Any] | None = None,
) -> tuple[bytes, ParsedDocument]:
    """Return (raw bytes, parsed document) for ``paragraphs``."""
    text = "\n\n".join(paragraphs) + "\n"
    content = sha256_text(text)
    doc_node_id = stable_id("n", kb, path, content, "0")
    nodes = [
        Node(
            id=doc_node_id,
            kind="document",
            parent_id=None,
            heading_path=(),
            ordinal=0,
            line_start=1,
            line_end=max(1, text.count("\n")),
            char_start=0,
            char_end=len(text),
            text=text,
            search_text=text,
            sha256=content,
        )
    ]
    pos = 0
    for i, para in enumerate(paragraphs, start=1):
        start = text.index(para, pos)
        end = start + len(para)
        pos = end
        nodes.append(
            Node(
                id=stable_id("n", kb, path, content, str(i)),
                kind="paragraph",
                parent_id=doc_node_id,
                heading_path=(title,) if title else (),
                ordinal=i,
                line_start=text.count("\n", 0, start) + 1,
                line_end=text.count("\n", 0, max(start, end - 1)) + 1,
                char_start=start,
                char_end=end,
                text=para,
                search_text=para,
                sha256=sha256_text(para),
                clause_path=f"{i}",
            )
        )
    paras = nodes[1:]
    chunks = []
    for ordinal, k in enumerate(range(0, len(paras), 2)):
        group = paras[k : k + 2]
        chunks.append(
            Chunk(
                id=stable_id("c", kb, path, content, str(ordinal)),
                ordinal=ordinal,
                node_ids=tuple(n.id for n in group),
                heading_path=group[0].heading_path,
                breadcrumb=title or path,
                search_text=" ".join(n.search_text for n in group),
                line_start=group[0].line_start,
                line_end=group[-1].line_end,
                char_start=group[0].char_start,
                char_end=group[-1].char_end,
                word_count=sum(len(n.text.split()) for n in group),
            )
        )
    parsed = ParsedDocument(
        format="markdown",
        text=text,
        title=title or path,
        metadata=dict(meta or {}),
        nodes=tuple(nodes),
        chunks=tuple(chunks),
    )
    return text.encode("utf-8"), parsed
