"""Edition semantics of document metadata: which documents are superseded editions.

Front matter says it in two ways: a stale ``status`` (superseded, obsolete, withdrawn,
repealed, archived) or an edition relation from a newer document (``relations:`` with
``supersedes``, ``replaces``, ``repeals`` or ``obsoletes`` and a ``target`` path).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

STALE_STATUS = frozenset({"superseded", "obsolete", "withdrawn", "repealed", "archived"})
SUPERSEDING = frozenset({"supersedes", "replaces", "repeals", "obsoletes"})


def superseded_paths(docs: Iterable[tuple[str, Mapping[str, Any]]]) -> frozenset[str]:
    """Paths of superseded editions while a current one exists: documents with a stale
    ``status``, and targets of a ``supersedes``/``replaces``/``repeals`` relation."""
    docs = list(docs)
    targets = {
        str(rel.get("target", "")).lstrip("./")
        for _, meta in docs
        for rel in meta.get("relations") or ()
        if isinstance(rel, dict) and str(rel.get("type", "")).lower() in SUPERSEDING
    }
    status = {path: str(meta.get("status", "")).lower() for path, meta in docs}
    current = any(st not in STALE_STATUS for st in status.values())
    return frozenset(
        path for path in status if path in targets or (status[path] in STALE_STATUS and current)
    )
