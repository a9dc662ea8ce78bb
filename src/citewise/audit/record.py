"""Recording what the knowledge base did: answers (saved whole, with their ledger event),
searches, evidence packs, access decisions, route changes and feedback.

Nothing here changes an answer; it only writes after the work is done. The principal of an
event is the reader (``filters.principal``), else the ledger context's, else the local user.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from citewise.core.access import may_read
from citewise.core.ledger_entries import current_context, default_principal
from citewise.core.search import SearchFilters, SearchResult, filters_json
from citewise.core.stored import StoredChunk
from citewise.errors import UsageError
from citewise.evidence.models import EvidenceConfig, EvidencePack
from citewise.recall.search import RecallSettings, search, search_summary
from citewise.store.protocol import Store

if TYPE_CHECKING:
    from citewise.answer.models import Answer
    from citewise.context import StageContext

Verdict = Literal["good", "bad"]
ANONYMOUS = "anonymous"


def reader_of(filters: SearchFilters | None) -> str:
    """The principal a ledger entry is recorded under for a reader with ``filters``."""
    return _reader(filters) or current_context().principal or default_principal()


def _reader(filters: SearchFilters | None) -> str | None:
    if filters is not None and filters.principal:
        return filters.principal
    return current_context().principal


def conditions(kb: StageContext, filters: SearchFilters | None) -> dict[str, Any]:
    """What an answer depended on besides the corpus: scope, principal, routes' settings."""
    s = kb.settings
    return {
        "kb": kb.name,
        "filters": filters_json(filters),
        "settings": {"dense": s.dense, "encoder": s.encoder},
    }


def filters_from(cond: dict[str, Any]) -> SearchFilters:
    f = cond.get("filters") or {}
    return SearchFilters(
        tuple(f.get("path_prefixes") or ()),
        tuple(f.get("tags") or ()),
        tuple((str(m[0]), str(m[1])) for m in f.get("metadata") or ()),
        f.get("principal"),
        f.get("current_only"),
        f.get("as_of"),
    )


def retrieval_snapshot(
    kb: StageContext, question: str, filters: SearchFilters | None, pack: dict[str, Any]
) -> dict[str, Any]:
    """The recall an answer's pack was built from (same query, scope and settings as the
    evidence stage used): ranked chunk ids, routes, diagnostics and criterion."""
    cfg = (pack.get("config") or {}).get("evidence") or {}
    top_k = int(cfg.get("top_k", EvidenceConfig().top_k))
    rse = bool((pack.get("config") or {}).get("rse", True))
    per_doc = int(cfg.get("per_doc_cap", EvidenceConfig().per_doc_cap))
    settings = RecallSettings(per_doc_cap=per_doc) if rse else RecallSettings()
    result = search(kb.index, question, filters=filters, top_k=top_k, settings=settings)
    return search_summary(result)


def _pack_paths(pack: dict[str, Any]) -> set[str]:
    paths: set[str] = set()
    for key in ("direct_evidence", "document_augmentation", "graph_neighbor_evidence"):
        paths.update(str(f["path"]) for f in pack.get(key) or ())
    return paths


def access_decisions(
    kb: StageContext, filters: SearchFilters | None, read_paths: Iterable[str], query: str = ""
) -> dict[str, Any] | None:
    """Restricted documents (front-matter ``access:``) read for the caller (allowed) and
    withheld from it before ranking (denied). None when the KB restricts nothing.
    ``redacted``: the documents shown to the caller as withheld (title, reason, owner;
    policy ``redaction: metadata``, governance/redaction.py), each path and reason."""
    index = kb.index
    restricted = index.memo("restricted-paths", lambda: _restricted(index.chunks.values()))
    if not restricted:
        return None
    principal = filters.principal if filters else None
    denied = index.memo(
        ("restricted-denied", principal),
        lambda: tuple(sorted(p for p, m in restricted if not may_read(m, principal))),
    )
    read = set(read_paths)
    return {
        "principal": principal,
        "allowed": sorted(p for p, _ in restricted if p in read),
        "denied": list(denied),
        "redacted": [
            {"path": p, "reason": why} for p, why in (kb.redacted(query, filters) if query else [])
        ],
    }


def _restricted(chunks: Iterable[StoredChunk]) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """(path, metadata) of every restricted document (front-matter ``access:``), first
    chunk's metadata per path: a walk over every chunk, so the caller keeps it with the
    index state (it depends on the chunks' metadata alone)."""
    restricted: dict[str, Mapping[str, Any]] = {}
    for c in chunks:
        if c.metadata.get("access") and c.path not in restricted:
            restricted[c.path] = c.metadata
    return tuple(restricted.items())


def _withheld(
    kb: StageContext, answer: Answer, filters: SearchFilters | None, denied: list[str]
) -> dict[str, Any]:
    """The ``access`` event's fields for an answer that found nothing: when documents
    withheld from the caller would have matched, ``failure_stage: permission_scope`` and
    their paths. Operator-only (the ledger): the caller's answer reads as if they did not
    exist (docs/security.md)."""
    out: dict[str, Any] = {"kb": kb.name, "action": "ask"}
    if answer.outcome != "insufficient_evidence" or answer.failure_stage != "retrieval":
        return out
    from citewise.analysis.question import analyse
    from citewise.answer.failure import withheld_matches

    question = analyse(str(answer.trace.get("question", "")))  # the text as asked, read once
    found = withheld_matches(kb, question, filters, denied)
    if found:
        out |= {"failure_stage": "permission_scope", "withheld_matches": found}
    return out


def record_answer(kb: StageContext, answer: Answer, filters: SearchFilters | None) -> str:
    """Save the answer whole (keyed by its trace id) and its ``answer`` ledger event, plus
    access and route-change events, in one transaction. Returns the answer id."""
    ledger = kb.store.ledger
    answer_id = answer.trace_id
    full = answer.to_json(with_trace=True)
    pack: dict[str, Any] = dict(answer.trace.get("pack") or {})
    question = str(answer.trace.get("question", ""))
    cond = conditions(kb, filters)
    # The answer's own recall when it recorded one (no second search), else re-run it.
    cond["retrieval"] = answer.trace.get("retrieval") or (
        retrieval_snapshot(kb, question, filters, pack) if pack else None
    )
    event = {
        "kb": kb.name,
        "question": question,
        "revision": answer.revision,
        # The answer's revision is numbered as its principal sees the KB; the saved row
        # pins the KB revision itself (replay and cite check compare KB revisions).
        "store_revision": kb.index.revision,
        "replay_id": answer.replay_id,
        "outcome": answer.outcome,
        "degradation": answer.degradation,
        "citations": [[c.id, c.sha256] for c in answer.citations],
    }
    if kb.revision is not None:  # asked at a pinned revision (issue 38)
        event["pinned_revision"] = kb.revision
    for key in ("conditions", "rewrite", "caller_lineage"):  # issue 22: only when present
        if answer.trace.get(key):
            event[key] = answer.trace[key]
    extra: list[tuple[str, dict[str, Any]]] = []
    access = access_decisions(kb, filters, _pack_paths(pack), question)
    if access is not None:
        extra.append(("access", access | _withheld(kb, answer, filters, access["denied"])))
    route = dict(cond["settings"]) | {"routes": (cond["retrieval"] or {}).get("routes", [])}
    last = ledger.last_event("route", kb.name)
    if last is None or {k: last.payload.get(k) for k in route} != route:
        extra.append(("route", route | {"kb": kb.name}))
    ledger.save_answer(
        answer_id,
        kb.name,
        full,
        cond,
        event,
        principal=_reader(filters),
        extra_events=tuple(extra),
        lineage=answer.trace.get("lineage") or None,  # the entry's lineage ids (issue 22)
    )
    return answer_id


def record_search(
    kb: StageContext,
    query: str,
    result: SearchResult,
    filters: SearchFilters | None,
    *,
    recall_id: str | None = None,
    conditions: list[dict[str, Any]] | None = None,
    lineage: Mapping[str, str] | None = None,
) -> None:
    """The search's ledger event; a ``recall_id`` (an MCP recall, issue 22) also records
    each hit's excerpt hash and score and the conditions, so the recall can be read back."""
    payload: dict[str, Any] = {
        "kb": kb.name,
        "query": query,
        "mode": result.mode,
        "revision": result.revision,
        "outcome": result.outcome,
        "routes": list(result.routes),
        "hits": [h.citation_id for h in result.hits],
    }
    if recall_id:
        payload["recall_id"] = recall_id
        payload["hit_details"] = [
            {"citation_id": h.citation_id, "sha256": h.sha256, "score": round(h.score, 6),
             "path": h.path, "rank": h.rank}
            for h in result.hits
        ]  # fmt: skip
        payload["conditions"] = conditions or []
    if kb.revision is not None:  # searched at a pinned revision (issue 38)
        payload["pinned_revision"] = kb.revision
    paths = {h.path for h in result.hits}
    _append_with_access(kb, "search", payload, filters, paths, lineage, query)


def record_evidence(
    kb: StageContext, query: str, pack: EvidencePack, filters: SearchFilters | None
) -> None:
    payload = {
        "kb": kb.name,
        "query": query,
        "revision": pack.revision,
        "replay_id": pack.replay_id,
        "outcome": pack.outcome,
        "fragments": [
            [f.citation_id, f.role, hashlib.sha256(f.text.encode("utf-8")).hexdigest()]
            for f in pack.fragments
        ],
    }
    if kb.revision is not None:  # gathered at a pinned revision (issue 38)
        payload["pinned_revision"] = kb.revision
    paths = {f.path for f in pack.fragments}
    _append_with_access(kb, "evidence", payload, filters, paths, None, query)


def _append_with_access(
    kb: StageContext,
    type_: str,
    payload: dict[str, Any],
    filters: SearchFilters | None,
    paths: set[str],
    lineage: Mapping[str, str] | None = None,
    query: str = "",
) -> None:
    access = access_decisions(kb, filters, paths, query)
    who = _reader(filters)
    with kb.store.ledger.transaction() as tx:
        entry = tx.append(type_, payload, kb=kb.name, principal=who, lineage=lineage or None)
        if access is not None:
            decision = access | {"kb": kb.name, "action": type_, "event": entry.seq}
            tx.append("access", decision, kb=kb.name, principal=who)


def record_feedback(
    store: Store, answer_id: str, verdict: str, note: str = "", principal: str | None = None
) -> dict[str, Any]:
    if verdict not in ("good", "bad"):
        raise UsageError(f"Feedback must be good or bad, not {verdict!r}.")
    ledger = store.ledger
    saved = ledger.get_answer(answer_id)  # raises when unknown
    entry = ledger.append_event(
        "feedback",
        {"answer_id": answer_id, "verdict": verdict, "note": note},
        kb=str(saved["kb"]),
        principal=principal,
    )
    return entry.to_json()
