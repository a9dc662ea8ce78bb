"""Export a saved answer as a self-contained JSON bundle, and replay a bundle.

A bundle holds the question, the conditions (scope, principal, route settings), the pinned
revision and its hash, the evidence pack with its decisions, citations with excerpts and
hashes, the sufficiency review, the retrieval routes and diagnostics, and the ledger
inclusion proof of the answer's event. It holds no keys and no source file locations.

Replay re-runs ``ask`` against the knowledge base *as it is*: that is the pinned revision
only when the head still has the pinned revision's documents (same revision hash). Replay
against an older revision whose documents have since changed is not supported, and
``replay`` says so instead of answering from different text.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citewise.answer.pipeline import ask
from citewise.audit import checkpoint as cp
from citewise.audit.entries import canonical_json
from citewise.audit.record import filters_from, retrieval_snapshot
from citewise.audit.sqlite_ledger import require_ledger

if TYPE_CHECKING:
    from citewise.kb import Home

FORMAT = "citewise-answer-bundle/1"
STAGES = ("retrieval", "evidence", "sufficiency", "answer")


def export_bundle(home: Home, answer_id: str) -> dict[str, Any]:
    store = require_ledger(home.store)
    saved = store.get_answer(answer_id)
    answer = saved["answer"]
    trace = answer.get("trace") or {}
    cond = dict(saved["conditions"])
    retrieval = cond.pop("retrieval", None)
    proof = cp.inclusion(store, int(saved["ledger_seq"]))
    checkpoints = [c for c in store.list_checkpoints() if c["tree_size"] > saved["ledger_seq"]]
    return {
        "format": FORMAT,
        "exported_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "answer_id": answer_id,
        "question": trace.get("question", ""),
        "kb": saved["kb"],
        "revision": saved["revision"],
        "revision_hash": saved["revision_hash"],
        "conditions": cond,
        "answer": {k: v for k, v in answer.items() if k != "trace"},
        "answer_sha256": saved["answer_sha256"],
        "citations": answer.get("citations", []),
        "evidence_pack": trace.get("pack"),
        "sufficiency": trace.get("sufficiency"),
        "recovery": trace.get("recovery"),
        "conflicts": trace.get("conflicts", []),
        "claims": trace.get("claims", []),
        "retrieval": retrieval,
        "ledger": {
            "seq": saved["ledger_seq"],
            "inclusion_proof": proof,
            "checkpoint": checkpoints[-1] if checkpoints else None,
        },
    }


def _evidence(pack: dict[str, Any] | None) -> dict[str, Any]:
    pack = pack or {}
    frags = []
    for key in ("direct_evidence", "document_augmentation", "graph_neighbor_evidence"):
        for f in pack.get(key) or ():
            digest = hashlib.sha256(str(f["text"]).encode("utf-8")).hexdigest()
            frags.append([f["citation_id"], f["role"], digest])
    return {"replay_id": pack.get("replay_id"), "fragments": frags}


def _suff(s: dict[str, Any] | None) -> dict[str, Any]:
    s = s or {}
    return {k: s.get(k) for k in ("status", "degradation", "reasons")}


def _answer(a: dict[str, Any]) -> dict[str, Any]:
    return {
        "outcome": a.get("outcome"),
        "answer": a.get("answer"),
        "replay_id": a.get("replay_id"),
        "citations": [[c["id"], c["sha256"]] for c in a.get("citations") or ()],
    }


def _retrieval(r: dict[str, Any] | None) -> dict[str, Any]:
    r = r or {}
    return {k: r.get(k) for k in ("hits", "routes", "criterion", "outcome")}


def replay(home: Home, bundle: dict[str, Any]) -> dict[str, Any]:
    """Re-run the bundle's question under its conditions and compare stage by stage."""
    if bundle.get("format") != FORMAT:
        return {"status": "unsupported", "message": "Not a citewise answer bundle."}
    kb = home.kb(str(bundle["kb"]))
    head = kb.revisions()[-1] if kb.revisions() else None
    pinned_rev, pinned_hash = int(bundle["revision"]), str(bundle["revision_hash"])
    base: dict[str, Any] = {
        "answer_id": bundle["answer_id"],
        "pinned_revision": pinned_rev,
        "head_revision": head.revision if head else 0,
    }
    if head is None or head.hash != pinned_hash:
        return base | {
            "status": "unsupported",
            "message": (
                f"The knowledge base moved on from revision {pinned_rev} to "
                f"{head.revision if head else 0} and its documents differ, so the pinned "
                "revision cannot be replayed: replay against an old revision is only "
                "supported while its documents are unchanged. The bundle's citations still "
                "resolve to the pinned text (citewise cite check)."
            ),
        }
    note = (
        "the pinned revision is the current head"
        if head.revision == pinned_rev
        else f"revision {head.revision} holds the same documents as pinned revision "
        f"{pinned_rev} (same revision hash); replay ids include the revision number"
    )
    cond = bundle.get("conditions") or {}
    wanted = cond.get("settings") or {}
    settings = dataclasses.replace(
        home.settings,
        dense=bool(wanted.get("dense", home.settings.dense)),
        encoder=str(wanted.get("encoder", home.settings.encoder)),
    )
    from citewise.kb import Home as HomeCls

    h2 = HomeCls(settings, home.store)
    kb2 = h2.kb(kb.name)
    filters = filters_from(cond)
    question = str(bundle["question"])
    fresh = ask(kb2, question, filters=filters)
    trace = fresh.trace
    pack = trace.get("pack") or {}
    got = {
        "retrieval": _retrieval(retrieval_snapshot(kb2, question, filters, pack) if pack else None),
        "evidence": _evidence(trace.get("pack")),
        "sufficiency": _suff(trace.get("sufficiency")),
        "answer": _answer(fresh.to_json()),
    }
    want = {
        "retrieval": _retrieval(bundle.get("retrieval")),
        "evidence": _evidence(bundle.get("evidence_pack")),
        "sufficiency": _suff(bundle.get("sufficiency")),
        "answer": _answer(bundle.get("answer") or {}),
    }
    # Compare as JSON values (tuples in a fresh trace are lists in a saved one).
    got = json.loads(canonical_json(got))
    want = json.loads(canonical_json(want))
    differs = [s for s in STAGES if got[s] != want[s]]
    same = not differs
    return base | {
        "status": "reproduced" if same else "differs",
        "note": note,
        "same_replay_id": fresh.replay_id == want["answer"]["replay_id"],
        "same_answer": got["answer"] == want["answer"],
        "replay_id": fresh.replay_id,
        "expected_replay_id": want["answer"]["replay_id"],
        "first_differing_stage": differs[0] if differs else None,
        "differing_stages": differs,
        "details": {s: {"expected": want[s], "got": got[s]} for s in differs},
    }
