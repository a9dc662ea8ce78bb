"""A whole node as one evidence fragment (exact text, span citation inside that node)."""

from __future__ import annotations

from typing import Any

from citewise.core.records import Node
from citewise.evidence.models import Fragment, Role
from citewise.evidence.tokens import estimate_tokens


def node_fragment(
    node: Node,
    *,
    role: Role,
    doc_id: str,
    path: str,
    revision: int,
    version_id: int,
    reason: str,
    **extra: Any,
) -> Fragment:
    return Fragment(
        role=role,
        doc_id=doc_id,
        path=path,
        revision=revision,
        version_id=version_id,
        node_ids=(node.id,),
        line_start=node.line_start,
        line_end=node.line_end,
        char_start=node.char_start,
        char_end=node.char_end,
        heading_path=node.heading_path,
        text=node.text,
        tokens=estimate_tokens(node.text),
        truncated=False,
        citation_id=f"{node.id}:{node.char_start}-{node.char_end}",
        reason=reason,
        kind=node.kind,
        **extra,
    )
