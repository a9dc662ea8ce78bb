"""Pinned answers: a saved answer's citations resolve to its revision's text forever, and
``cite check`` says which of them the current revision changed or removed.

The saved answer is only read here, never rewritten.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from citewise.core.records import sha256_text
from citewise.errors import CitewiseError

if TYPE_CHECKING:
    from citewise.store.protocol import Store


#: A pinned citation against the current revision: same version, the document changed but
#: the cited text is still there, or the cited text changed or was removed.
CitationState = Literal["current", "unchanged", "stale"]
#: What happened to a stale citation's text: its document was deleted, or the span changed.
StaleChange = Literal["changed", "deleted"]


class CurrentState(TypedDict, total=False):
    status: CitationState
    change: StaleChange  # stale citations only
    reason: str
    new_text: str | None
    new_version_id: int


def check_citations(store: Store, answer_id: str) -> dict[str, Any]:
    """For each citation: does it still resolve to the pinned text and hash (``pinned``), and
    is it ``current`` (same version), ``unchanged`` (the document changed, the cited text is
    still there) or ``stale`` (changed or removed), with old and new text."""
    saved = store.ledger.get_answer(answer_id)
    answer = saved["answer"]
    kb = str(saved["kb"])
    store.get_kb(kb)  # raises KBNotFound with a hint
    out: list[dict[str, Any]] = []
    for c in answer.get("citations") or ():
        item: dict[str, Any] = {
            "number": c["number"],
            "id": c["id"],
            "path": c["path"],
            "version_id": c["version_id"],
            "line_start": c.get("line_start"),
            "line_end": c.get("line_end"),
            "old_text": c["excerpt"],
            "sha256": c["sha256"],
        }
        try:
            r = store.resolve(str(c["id"]))
            item["pinned"] = r.text == c["excerpt"] and sha256_text(r.text) == c["sha256"]
            item["pinned_problem"] = "" if item["pinned"] else "resolved text differs"
        except CitewiseError as exc:
            item["pinned"] = False
            item["pinned_problem"] = f"{exc.code}: {exc}"
            r = None
        item.update(_current(store, kb, c, r.heading_path if r else ()))
        out.append(item)
    stale = [i for i in out if i["status"] == "stale"]
    return {
        "answer_id": answer_id,
        "kb": saved["kb"],
        "revision": saved["revision"],
        "current_revision": store.get_kb(kb).revision,
        "citations": out,
        "stale": len(stale),
        "all_pinned": all(i["pinned"] for i in out),
    }


def _current(store: Store, kb: str, c: dict[str, Any], heading: tuple[str, ...]) -> CurrentState:
    try:
        doc = store.get_document(kb, str(c["path"]))
    except CitewiseError:
        doc = None
    if doc is None or doc.deleted:
        return {
            "status": "stale",
            "change": "deleted",
            "reason": "document removed",
            "new_text": None,
        }
    if doc.version_id == c["version_id"]:
        return {"status": "current", "reason": "", "new_text": c["excerpt"]}
    text = store.get_document_text(kb, doc.doc_id, doc.version_id)
    if c["excerpt"] in text:
        return {
            "status": "unchanged",
            "reason": f"document changed (version {doc.version_id}); cited text still present",
            "new_text": c["excerpt"],
            "new_version_id": doc.version_id,
        }
    head = store.get_document(kb, str(c["path"])).version_id
    nodes = [n for n in store.nodes_of_version(kb, str(c["path"]), head) if n.kind != "document"]
    same = [n for n in nodes if tuple(n.heading_path) == tuple(heading)] or nodes
    best = max(
        same,
        key=lambda n: difflib.SequenceMatcher(None, c["excerpt"], n.text).ratio(),
        default=None,
    )
    return {
        "status": "stale",
        "change": "changed",
        "reason": f"cited span changed in version {doc.version_id}",
        "new_text": best.text if best else None,
        "new_version_id": doc.version_id,
    }
