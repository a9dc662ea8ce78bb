"""Whether a saved answer cites a version that is now taken down or expired (issue 38).

A saved answer keeps the excerpts it quoted; once a cited version is withheld, exporting
it would hand that text out again. :func:`withheld_citation` finds the first such
citation (its document and reason, never its text) so the export refuses with WITHHELD.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from citewise.core.rights import withholding
from citewise.errors import NotFoundError, Withheld
from citewise.store.protocol import Store


def cited_ids(answer: Mapping[str, Any], pack: Mapping[str, Any] | None) -> list[str]:
    """Every citation id a saved answer carries: its citations and its evidence pack's
    fragments (duplicates once, in order)."""
    ids = [str(c.get("id", "")) for c in answer.get("citations") or ()]
    for key in ("direct_evidence", "document_augmentation", "graph_neighbor_evidence"):
        ids += [str(f.get("citation_id", "")) for f in (pack or {}).get(key) or ()]
    return [i for i in dict.fromkeys(ids) if i]


def withheld_citation(store: Store, ids: Iterable[str]) -> Withheld | None:
    """WITHHELD for the first of ``ids`` whose version is taken down or expired; None
    when every one is readable (an id this store no longer has is left to the caller)."""
    metas: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    for cid in ids:
        try:
            cited = store.resolve(cid)
        except NotFoundError:
            continue
        key = (cited.kb, cited.path)
        if key not in metas:
            metas[key] = store.version_metadata(cited.kb, cited.path)
        held = withholding(metas[key].get(cited.version_id, {}))
        if held is not None:
            return Withheld(cited.kb, cited.path, cited.version_id, held.kind, held.reason)
    return None
