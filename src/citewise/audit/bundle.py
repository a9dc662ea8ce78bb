"""Export a saved answer as a self-contained JSON bundle, and replay a bundle.

A bundle holds the question, the conditions (scope, principal, route settings), the pinned
revision and its hash, the evidence pack with its decisions, citations with excerpts and
hashes, the sufficiency review, the retrieval routes and diagnostics, and the ledger
inclusion proof of the answer's event. It holds no keys and no source file locations.

Replay re-runs ``ask`` on the head while the head is the saved revision, and otherwise
pinned to the saved revision (issue 38: the documents as they were then, through a
revision view), so the same answer, citations and replay id come back after the corpus
moved on. A home without that revision, or whose revision has another hash (a bundle from
elsewhere), is reported ``unsupported`` instead of answering from different text.

An answer that went through an LLM route is replayed from its record without calling any
model (``llm_replay.py``): the frozen payload is rebuilt and compared (stage
``llm_payload``) and the model's recorded sentences are re-cited and re-reviewed. Stages
the record cannot support make the status ``partial``, never ``reproduced``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from citewise.analysis.conditions import Condition, ConditionSet
from citewise.answer.pipeline import ask
from citewise.answer.wording import saved_language, worded
from citewise.audit import checkpoint as cp
from citewise.audit.llm_replay import RecordedLLM, uses_llm
from citewise.audit.record import filters_from, retrieval_snapshot
from citewise.audit.withheld import cited_ids, withheld_citation
from citewise.core.ledger_entries import canonical_json
from citewise.errors import CitewiseError

if TYPE_CHECKING:
    from citewise.context import ContextSource

FORMAT = "citewise-answer-bundle/1"
#: What a replay found: every checked stage the same (some left unchecked: ``partial``),
#: a stage that differs, or a file that is not a citewise answer bundle.
ReplayStatus = Literal["reproduced", "partial", "differs", "unsupported"]
STAGES = ("retrieval", "evidence", "sufficiency", "answer")
LLM_STAGES = ("retrieval", "evidence", "sufficiency", "llm_payload", "answer")


def export_bundle(home: ContextSource, answer_id: str) -> dict[str, Any]:
    """The bundle of a saved answer, with every secret the home knows of masked (a record
    written before a secret was known, or by an older version, is scrubbed here too)."""
    from citewise.core.secrets import redact_obj
    from citewise.llm.routes import known_secrets
    from citewise.web.withheld import load_marks, withhold_refs

    bundle = _bundle(home, answer_id)
    scrubbed: dict[str, Any] = redact_obj(bundle, known_secrets(home.settings.home))
    # A withheld web snapshot's quoted text and snippets leave with its mark (issue 38).
    held: dict[str, Any] = withhold_refs(scrubbed, load_marks(_snapshot_root(home)))
    return held


def _snapshot_root(home: ContextSource) -> Path:
    return home.settings.home / "web" / "snapshots"


def _bundle(home: ContextSource, answer_id: str) -> dict[str, Any]:
    store = home.store.ledger
    saved = store.get_answer(answer_id)
    answer = saved["answer"]
    trace = answer.get("trace") or {}
    held = withheld_citation(home.store, cited_ids(answer, trace.get("pack")))
    if held is not None:  # its excerpts are withheld text now (issue 38)
        raise held
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
        # The web second source's record (searches, fetches, comparisons), when it ran.
        "web_verification": trace.get("web_verification"),
        "sufficiency": trace.get("sufficiency"),
        "recovery": trace.get("recovery"),
        "conflicts": trace.get("conflicts", []),
        "claims": trace.get("claims", []),
        "retrieval": retrieval,
        # An LLM route's record (already redacted): limits, payload, attempts, the model's
        # sentences, and the judge's verdict. Absent for extractive answers.
        "llm": trace.get("llm"),
        "llm_judge": trace.get("llm_judge"),
        # Issue 22: the query condition set, a conversation's rewrite, lineage ids.
        "query_conditions": (trace.get("conditions") or {}).get("stated", []),
        "rewrite": trace.get("rewrite"),
        "lineage": trace.get("lineage"),
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


def _suff(s: Mapping[str, Any] | None) -> dict[str, Any]:
    got: Mapping[str, Any] = s or {}
    return {k: got.get(k) for k in ("status", "degradation", "reasons")}


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


def replay(home: ContextSource, bundle: dict[str, Any]) -> dict[str, Any]:
    """Re-run the bundle's question under its conditions and compare stage by stage."""
    if bundle.get("format") != FORMAT:
        return {"status": "unsupported", "message": "Not a citewise answer bundle."}
    kb = home.context(str(bundle["kb"]))
    revisions = kb.store.list_revisions(kb.name)
    head = revisions[-1] if revisions else None
    pinned_rev, pinned_hash = int(bundle["revision"]), str(bundle["revision_hash"])
    base: dict[str, Any] = {
        "answer_id": bundle["answer_id"],
        "pinned_revision": pinned_rev,
        "head_revision": head.revision if head else 0,
    }
    saved = next((r for r in revisions if r.revision == pinned_rev), None)
    if saved is None or saved.hash != pinned_hash:
        return base | {
            "status": "unsupported",
            "message": (
                f"This knowledge base has no revision {pinned_rev} with the bundle's revision "
                "hash (the bundle comes from another home), so it cannot be replayed here. "
                "The bundle's citations carry their excerpts and hashes."
            ),
        }
    head_no = head.revision if head else 0
    # At the head while it is the pinned revision, else pinned to it (issue 38).
    at = None if head_no == pinned_rev else pinned_rev
    base["replayed_at"] = "head" if at is None else at
    note = (
        "the pinned revision is the current head"
        if at is None
        else f"re-asked at pinned revision {pinned_rev} (the head is revision {head_no})"
    )
    cond = bundle.get("conditions") or {}
    wanted = cond.get("settings") or {}
    settings = dataclasses.replace(
        home.settings,
        dense=bool(wanted.get("dense", home.settings.dense)),
        encoder=str(wanted.get("encoder", home.settings.encoder)),
    )
    kb2 = home.context(kb.name, settings, revision=at)
    filters = filters_from(cond)
    question = str(bundle["question"])
    rec = RecordedLLM(bundle) if uses_llm(bundle) else None
    given = ConditionSet(  # the caller's and inherited ones; the question's are re-read
        tuple(
            Condition(c["kind"], c["value"], c["text"], c["source"])
            for c in bundle.get("query_conditions") or ()
            if c.get("source") != "question"
        )
    )
    fresh = ask(kb2, question, filters=filters, llm=rec, conditions=given)  # no model call
    fresh = worded(fresh, saved_language(bundle.get("answer") or {}))  # as it was shown
    trace = fresh.trace
    pack: dict[str, Any] = dict(trace.get("pack") or {})
    got = {
        "retrieval": _retrieval(retrieval_snapshot(kb2, question, filters, pack) if pack else None),
        "evidence": _evidence(pack),
        "sufficiency": _suff(trace.get("sufficiency")),
        "answer": _answer(fresh.to_json()),
    }
    want = {
        "retrieval": _retrieval(bundle.get("retrieval")),
        "evidence": _evidence(bundle.get("evidence_pack")),
        "sufficiency": _suff(bundle.get("sufficiency")),
        "answer": _answer(bundle.get("answer") or {}),
    }
    stages: list[str] = list(STAGES)
    unchecked: list[str] = []
    if rec is not None:
        stages, unchecked = _llm_stages(rec, want, got)
    if bundle.get("web_verification"):  # the second source, from its record: no network
        from citewise.web.replay import replayed_states
        from citewise.web.snapshot import SnapshotStore

        cites = (bundle.get("answer") or {}).get("citations") or ()
        states = [[c["id"], (c.get("verification") or {}).get("state")] for c in cites]
        want["second_source"] = {"states": states}
        snaps = SnapshotStore(_snapshot_root(home))
        record = bundle["web_verification"]
        stages.append("second_source")
        try:
            got["second_source"] = {
                "states": replayed_states(kb2.store, kb2.name, snaps, record, fresh)
            }
        except CitewiseError as exc:  # e.g. the snapshots are not in this home
            got["second_source"] = {"not_replayed": str(exc)}
            unchecked.append("second_source")
    # Compare as JSON values (tuples in a fresh trace are lists in a saved one).
    got = json.loads(canonical_json(got))
    want = json.loads(canonical_json(want))
    differs = [s for s in stages if s not in unchecked and got[s] != want[s]]
    status: ReplayStatus = "differs" if differs else "partial" if unchecked else "reproduced"
    report = base | {
        "status": status,
        "note": note,
        "same_replay_id": fresh.replay_id == want["answer"]["replay_id"],
        "same_answer": None if "answer" in unchecked else got["answer"] == want["answer"],
        "replay_id": fresh.replay_id,
        "expected_replay_id": want["answer"]["replay_id"],
        "first_differing_stage": differs[0] if differs else None,
        "differing_stages": differs,
        "checked_stages": [s for s in stages if s not in unchecked],
        "unchecked_stages": [s for s in stages if s in unchecked],
        "details": {s: {"expected": want[s], "got": got[s]} for s in differs},
    }
    if "not_replayed" in got.get("second_source", {}):  # why, e.g. a withheld snapshot
        report["second_source_note"] = got["second_source"]["not_replayed"]
    if rec is not None:
        report["answer_source"] = rec.source or None
        report["model_calls"] = 0
        report["message"] = _llm_message(rec, unchecked)
    return report


def _llm_stages(
    rec: RecordedLLM, want: dict[str, Any], got: dict[str, Any]
) -> tuple[list[str], list[str]]:
    """Add the ``llm_payload`` stage; say which stages the record cannot check."""
    unchecked: list[str] = []
    expected = rec.expected_payload()
    want["llm_payload"] = expected
    got["llm_payload"] = rec.rebuilt
    if expected is None:
        unchecked.append("llm_payload")
    if rec.unchecked_answer() is not None:
        unchecked.append("answer")
    elif rec.written and not rec.wrote:
        why = "the recorded model output was not re-applied (no payload, or no LLM stage ran)"
        got["answer"] = {"not_rebuilt": why, **got["answer"]}
    return list(LLM_STAGES), unchecked


def _llm_message(rec: RecordedLLM, unchecked: list[str]) -> str:
    source = rec.source or "none"
    head = f"LLM route answer (source {source}) replayed from its record; no model was called"
    why = []
    if "llm_payload" in unchecked:
        why.append(
            "the bundle holds no LLM payload record (exported before citewise recorded it), "
            "so only retrieval, evidence and sufficiency were checked"
        )
    reason = rec.unchecked_answer()
    if reason is not None:
        why.append(reason)
    return head + (": " + "; ".join(why) if why else "") + "."
