"""The conflict review queue (issue 38, docs/governance.md "Conflict review"): a conflict
an answer meets is recorded once per pair of spans; a resolution makes later answers cite
the governing side only and name the resolution; ``--until`` ends it (a fixed clock);
policy ``needs_review`` refuses an unresolved conflict with reason ``needs_review``."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from citewise.governance import conflicts as queue
from citewise.kb import Home, KnowledgeBase
from tests.test_slot_conflicts import GUIDE, REPORT

pytestmark = pytest.mark.usefixtures("dense_off")

# Two small documents stating different values for the same fact: an inspection date
# and who leads maintenance (the fixtures of tests/test_slot_conflicts.py).

WHEN = "When was the final inspection of the Kestrel Bridge completed?"


def make_kb(tmp_path: Path) -> KnowledgeBase:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "report.txt").write_text(REPORT, encoding="utf-8")
    (corpus / "guide.md").write_text(GUIDE, encoding="utf-8")
    kb = Home.open(tmp_path / "home").kb()
    assert kb.add([corpus]).ok
    return kb


def set_policy(kb: KnowledgeBase, text: str) -> None:
    path = kb.home.settings.home / "kbs" / kb.name / "policy.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def conflict_paths(answer: object) -> set[str]:
    return {c.path for c in getattr(answer, "citations") if c.role == "conflict"}  # noqa: B009


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    return make_kb(tmp_path)


def test_a_detected_conflict_is_recorded_once_per_pair(kb: KnowledgeBase) -> None:
    first = kb.ask(WHEN)
    assert first.degradation == "conflict" and conflict_paths(first) == {"report.txt", "guide.md"}
    kb.ask(WHEN)  # the same pair met again
    recorded = kb.conflicts()
    assert len(recorded) == 1
    rec = recorded[0]
    assert rec.state(date(2026, 1, 1)) == "open"
    assert {s["path"] for s in rec.sides} == {"report.txt", "guide.md"}
    assert {s["value"] for s in rec.sides} >= {"12 March 2024"} or any(
        "12 March" in s["value"] for s in rec.sides
    )


def test_a_resolution_makes_answers_cite_the_governing_side_only(kb: KnowledgeBase) -> None:
    before = kb.ask(WHEN)
    (rec,) = kb.conflicts()
    done = kb.resolve_conflict(rec.id, "report.txt", note="the report is the record")
    assert done.resolution is not None and done.resolution.governs_path == "report.txt"
    answer = kb.ask(WHEN)
    assert answer.outcome == "answered"
    assert answer.degradation != "conflict"
    assert {c.path for c in answer.citations} == {"report.txt"}
    assert "12 March 2024" in answer.answer and "19 April" not in answer.answer
    # other evidence, another replay id; the same again for the same resolution
    assert answer.replay_id != before.replay_id and kb.ask(WHEN).replay_id == answer.replay_id
    (applied,) = answer.trace["conflict_resolutions"]
    assert applied["id"] == rec.id and applied["overruled"] == ["guide.md"]
    assert any(rec.id in line and "report.txt" in line for line in answer.display["lines"])
    # signed into the ledger: an event naming the resolver and the governing side
    (event,) = [e.payload for e in kb.store.ledger.query_ledger(types=("conflict_resolved",))]
    assert event["governs"] == "report.txt" and event["resolver"] == "local"
    assert event["conflict"] == rec.id and event["note"] == "the report is the record"


def test_a_resolution_ends_after_its_until_day(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb.ask(WHEN)
    (rec,) = kb.conflicts()
    monkeypatch.setattr(queue, "today", lambda: date(2030, 5, 1))
    kb.resolve_conflict(
        rec.id, "b" if rec.sides[1]["path"] == "guide.md" else "a", until=date(2030, 5, 31)
    )
    held = kb.ask(WHEN)
    assert held.degradation != "conflict" and {c.path for c in held.citations} == {"guide.md"}
    monkeypatch.setattr(queue, "today", lambda: date(2030, 6, 1))  # the day after until
    again = kb.ask(WHEN)
    assert again.degradation == "conflict" and "conflict_resolutions" not in again.trace
    assert kb.conflicts()[0].state(date(2030, 6, 1)) == "expired"


def test_needs_review_refuses_an_unresolved_conflict(kb: KnowledgeBase) -> None:
    set_policy(kb, "conflicts: needs_review\n")
    refused = kb.ask(WHEN)
    assert refused.outcome == "insufficient_evidence"
    assert refused.sufficiency.reasons[0].kind == "needs_review"
    assert refused.citations == () or all(c.role != "answer" for c in refused.citations)
    (rec,) = kb.conflicts()  # recorded for a person to decide
    assert rec.id in str(refused.sufficiency.reasons[0])
    kb.resolve_conflict(rec.id, "report.txt")
    answered = kb.ask(WHEN)
    assert answered.outcome == "answered" and "12 March 2024" in answered.answer


def test_the_evidence_pack_holds_both_sides_of_a_conflict(kb: KnowledgeBase) -> None:
    pack = kb.evidence(WHEN)
    sides = pack.to_json()["conflicts_and_limitations"]["conflicts"]
    assert {f["path"] for f in sides} == {"report.txt", "guide.md"}
    assert all(f["role"] == "conflict" for f in sides)


def test_documents_that_agree_record_nothing(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "report.txt").write_text(REPORT, encoding="utf-8")
    kb = Home.open(tmp_path / "home").kb()
    assert kb.add([corpus]).ok
    set_policy(kb, "conflicts: needs_review\n")
    assert kb.ask(WHEN).outcome == "answered"
    assert kb.conflicts() == []
    assert kb.evidence(WHEN).conflicts == ()


def test_a_resolution_of_a_name_conflict_is_honoured_too(kb: KnowledgeBase) -> None:
    # another kind of value (a person's name, not a date): the same pair-id mechanism
    who = "Who leads maintenance of the Kestrel Bridge?"
    first = kb.ask(who)
    if first.degradation != "conflict":
        pytest.skip("the detector did not flag this pair here")
    (rec,) = [r for r in kb.conflicts() if any("Tomas Lind" in s["text"] for s in r.sides)]
    kb.resolve_conflict(rec.id, "guide.md")
    answer = kb.ask(who)
    assert "Tomas Lind" in answer.answer and "Hanna Berg" not in answer.answer
    assert {c.path for c in answer.citations} == {"guide.md"}


def test_bad_resolutions_are_refused_with_the_fix(kb: KnowledgeBase) -> None:
    from citewise.errors import ConflictNotFound, Forbidden, UsageError

    kb.ask(WHEN)
    (rec,) = kb.conflicts()
    with pytest.raises(UsageError, match="names no single side") as side:
        kb.resolve_conflict(rec.id, "other.md")
    assert "report.txt" in (side.value.hint or "")
    with pytest.raises(UsageError, match="in the past"):
        kb.resolve_conflict(rec.id, "a", until=date(2000, 1, 1))
    with pytest.raises(UsageError, match="not a conflict id"):
        kb.resolve_conflict("../../etc", "a")
    with pytest.raises(ConflictNotFound):
        kb.resolve_conflict("k_0123456789abcdef", "a")
    with pytest.raises(Forbidden):
        kb.resolve_conflict(rec.id, "a", principal="bob", admin=False)
    assert kb.conflicts()[0].resolution is None
