"""The publication gate and quarantine through the library (issue 38): candidate ->
published, candidate -> rejected, quarantine -> released, each with its ledger event;
held text is never searchable before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.errors import CandidateNotFound, Forbidden, UsageError
from citewise.governance import review
from citewise.governance.policy import policy_path
from citewise.governance.review import Reviewer
from citewise.kb import Home, KnowledgeBase

pytestmark = pytest.mark.usefixtures("dense_off")

TOKEN = "QUOKKAMARBLE"
GUIDE = "# Key rotation\n\nRotate keys every 90 days with the rotate command.\n"
GUIDE_V2 = GUIDE.replace("90 days", f"30 days ({TOKEN} schedule)")
EXTRA = f"# Vault\n\nThe {TOKEN} vault keeps rotation keys.\n"
ALICE = Reviewer("alice", admin=False)


def set_policy(home: Path, text: str, kb: str = "default") -> None:
    path = policy_path(home, kb)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return root


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    """A published guide, then the base switched to review mode (alice publishes)."""
    with Home.open(tmp_path / "home") as h:
        base = h.kb()
        assert base.add([write(tmp_path / "docs", {"guide.md": GUIDE})]).ok
        set_policy(h.settings.home, "publication: review\npublishers: [alice]\n")
        yield base


def _seen(kb: KnowledgeBase) -> bool:
    return any(TOKEN in h.excerpt for h in kb.search(TOKEN, mode="lexical").hits)


def _events(kb: KnowledgeBase, type_: str) -> list[dict[str, object]]:
    return [e.payload for e in kb.store.ledger.query_ledger(types=(type_,), kb=kb.name)]


def test_an_add_in_review_mode_is_a_candidate_until_approved(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    docs = write(tmp_path / "docs", {"guide.md": GUIDE_V2, "vault.md": EXTRA})
    revisions = len(kb.revisions())
    report = kb.add([docs])
    held = {f.path: f for f in report.files}
    assert report.revision is None and len(kb.revisions()) == revisions
    assert {f.status for f in held.values()} == {"skipped"}
    assert {f.code for f in held.values()} == {"HELD_FOR_REVIEW"}
    (candidate,) = review.queue(kb.context)
    assert candidate.kind == "candidate" and candidate.id in held["vault.md"].message
    assert not _seen(kb)  # nothing held reaches search
    assert [e["held"] for e in _events(kb, "review_candidate")] == [candidate.id]

    shown = review.show(kb.context, candidate.id)
    files = {f["path"]: f for f in shown["files"]}
    assert files["vault.md"]["change"] == "added"
    assert files["guide.md"]["change"] == "changed"
    assert "-Rotate keys every 90 days with the rotate command." in files["guide.md"]["diff"]
    assert (
        f"+Rotate keys every 30 days ({TOKEN} schedule) with the rotate command."
        in (files["guide.md"]["diff"])
    )
    assert files["guide.md"]["provenance"]["source"].endswith("docs/guide.md")

    with pytest.raises(Forbidden, match="alice"):
        review.approve(kb.context, candidate.id, Reviewer("bob", admin=True))
    assert not _seen(kb)
    published = review.approve(kb.context, candidate.id, ALICE)
    assert published.revision == revisions + 1 and len(kb.revisions()) == revisions + 1
    assert _seen(kb)
    assert review.queue(kb.context) == []
    (event,) = _events(kb, "review_approved")
    assert event["reviewer"] == "alice" and event["revision"] == published.revision
    assert {f["path"] for f in event["files"]} == {"guide.md", "vault.md"}  # type: ignore[union-attr]


def test_rejecting_discards_the_candidate(kb: KnowledgeBase, tmp_path: Path) -> None:
    kb.add([write(tmp_path / "more", {"vault.md": EXTRA})])
    (candidate,) = review.queue(kb.context)
    review.reject(kb.context, candidate.id, ALICE, reason="not ours")
    assert review.queue(kb.context) == [] and not _seen(kb)
    (event,) = _events(kb, "review_rejected")
    assert event["reviewer"] == "alice" and event["reason"] == "not ours"
    with pytest.raises(CandidateNotFound, match="review list"):
        review.approve(kb.context, candidate.id, ALICE)


def test_a_sync_holds_its_changes_and_deletions_and_again_holds_nothing_new(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    write(docs, {"new.md": EXTRA})
    (docs / "guide.md").unlink()
    report = kb.sync(docs)
    rows = {f.path: f for f in report.files}
    assert rows["new.md"].code == rows["guide.md"].code == "HELD_FOR_REVIEW"
    assert report.revision is None and kb.document("guide.md")  # still published
    again = kb.sync(docs)  # the same changes are already held: nothing new is staged
    assert "already held" in {f.path: f for f in again.files}["new.md"].message
    (candidate,) = review.queue(kb.context)
    files = {f["path"]: f for f in review.show(kb.context, candidate.id)["files"]}
    assert files["guide.md"]["change"] == "deleted"
    assert files["guide.md"]["diff"] == ["@@ -1,3 +0,0 @@ (the whole document)"]
    review.approve(kb.context, candidate.id, ALICE)
    assert [d.path for d in kb.documents()] == ["new.md"]


def test_without_publishers_only_an_admin_decides(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as h:
        set_policy(h.settings.home, "publication: review\n")
        kb = h.kb()
        kb.add([write(tmp_path / "d", {"vault.md": EXTRA})])
        (candidate,) = review.queue(kb.context)
        with pytest.raises(Forbidden, match="admin role"):
            review.approve(kb.context, candidate.id, Reviewer("carol", admin=False))
        review.approve(kb.context, candidate.id, Reviewer(None))  # the local user
        assert _seen(kb)


def test_open_mode_quarantines_only_the_files_its_rules_name(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as h:
        set_policy(h.settings.home, "quarantine: {max_bytes: 80}\npublishers: [alice]\n")
        kb = h.kb()
        big = EXTRA + "Padding. " * 20
        report = kb.add([write(tmp_path / "d", {"guide.md": GUIDE, "big.md": big})])
        rows = {f.path: f for f in report.files}
        assert rows["guide.md"].status == "added" and report.revision is not None
        assert rows["big.md"].code == "QUARANTINED" and "byte limit" in rows["big.md"].message
        assert not _seen(kb)
        (held,) = review.queue(kb.context)
        assert held.kind == "quarantine" and [r.kind for r in held.reasons] == ["max_bytes"]
        with pytest.raises(UsageError, match="release"):
            review.approve(kb.context, held.id, ALICE)
        review.release(kb.context, "big.md", ALICE)  # by path as well as by id
        assert _seen(kb) and review.queue(kb.context) == []
        (event,) = _events(kb, "quarantine_released")
        assert event["reviewer"] == "alice" and event["reasons"] == ["max_bytes"]
        assert [e["held"] for e in _events(kb, "quarantine_held")] == [held.id]


def test_a_pdf_with_parse_warnings_is_quarantined(tmp_path: Path) -> None:
    from tests.test_pdf_glyphs import broken_pdf

    with Home.open(tmp_path / "home") as h:
        set_policy(h.settings.home, "quarantine: {parse_warnings: true}\n")
        kb = h.kb()
        src = tmp_path / "d"
        src.mkdir()
        (src / "broken.pdf").write_bytes(broken_pdf())
        (src / "guide.md").write_text(GUIDE, "utf-8")
        rows = {f.path: f for f in kb.add([src]).files}
        assert rows["broken.pdf"].code == "QUARANTINED"
        assert "looks mis-mapped" in rows["broken.pdf"].message
        assert rows["guide.md"].status == "added"
        assert [d.path for d in kb.documents()] == ["guide.md"]


def test_adding_an_unchanged_folder_again_holds_nothing(kb: KnowledgeBase, tmp_path: Path) -> None:
    report = kb.add([tmp_path / "docs"])
    assert [(f.path, f.status, f.code) for f in report.files] == [("guide.md", "unchanged", "")]
    assert review.queue(kb.context) == []


def test_a_watched_folder_holds_its_changes_in_review_mode(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    """``sync --watch`` runs each batch through ``KnowledgeBase.sync``: the policy holds."""
    import threading
    import time

    from citewise.sync.folder import SyncReport
    from citewise.sync.watch import watch_folder

    folder = tmp_path / "docs"
    reports: list[SyncReport] = []
    stop = threading.Event()
    worker = threading.Thread(
        target=watch_folder,
        args=(kb.context, folder, reports.append),
        kwargs={"stop": stop, "run": lambda _ctx, root: kb.sync(root)},
    )
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while not reports and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        (folder / "vault.md").write_text(EXTRA, "utf-8")
        while time.monotonic() < deadline and not review.queue(kb.context):
            time.sleep(0.05)
    finally:
        stop.set()
        worker.join(timeout=10)
    (candidate,) = review.queue(kb.context)
    assert [f.path for f in candidate.files] == ["vault.md"] and candidate.origin == "sync"
    assert not _seen(kb)


def test_deleting_a_base_removes_its_policy_and_queue(tmp_path: Path) -> None:
    with Home.open(tmp_path / "home") as h:
        h.create_kb("legal")
        set_policy(h.settings.home, "publication: review\n", kb="legal")
        h.kb("legal").add([write(tmp_path / "d", {"vault.md": EXTRA})])
        assert len(review.queue(h.kb("legal").context)) == 1
        h.delete_kb("legal", force=True)
        h.create_kb("legal")
        assert review.queue(h.kb("legal").context) == []
        assert h.kb("legal").add([tmp_path / "d"]).revision is not None  # open again


def test_a_damaged_manifest_is_named_not_skipped(kb: KnowledgeBase, tmp_path: Path) -> None:
    from citewise.errors import CorruptContent
    from citewise.governance.queue import review_dir

    kb.add([write(tmp_path / "more", {"vault.md": EXTRA})])
    (candidate,) = review.queue(kb.context)
    manifest = review_dir(kb.home.settings.home, kb.name) / candidate.id / "manifest.json"
    manifest.write_text("{not json", "utf-8")
    with pytest.raises(CorruptContent, match=candidate.id):
        review.queue(kb.context)


@pytest.mark.parametrize(
    ("rules", "held"),
    [("{repaired_extraction: true}", True), ("{parse_warnings: true, ocr_degraded: true}", False)],
)
def test_a_repaired_pdf_is_held_only_by_the_rule_that_names_repairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: str, held: bool
) -> None:
    """A page the glyph check re-read with the second extractor (clean once repaired):
    ``repaired_extraction`` holds it; the other rules do not."""
    from citewise.ingest import pdf_recheck
    from tests.test_pdf_glyphs import BROKEN, GOOD, broken_pdf

    truth = "\n".join(GOOD + BROKEN)
    monkeypatch.setattr(pdf_recheck, "second_page_text", lambda raw, index: truth)
    with Home.open(tmp_path / "home") as h:
        set_policy(h.settings.home, f"quarantine: {rules}\n")
        src = tmp_path / "d"
        src.mkdir()
        (src / "repaired.pdf").write_bytes(broken_pdf())
        (row,) = h.kb().add([src]).files
        assert (row.code == "QUARANTINED") is held
        if held:
            assert "read again by a second extractor" in row.message
