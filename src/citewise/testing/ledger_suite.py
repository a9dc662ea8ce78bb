"""The backend-agnostic Ledger test suite.

A backend module subclasses :class:`LedgerSuite` and overrides ``make_store`` (as for
:class:`citewise.testing.store_suite.StoreSuite`); the suite reaches the ledger only as
``store.ledger``.
It checks what the audit stage relies on: the store's changes are recorded in their own
transaction, explicit transactions are atomic, entries read back exactly (so leaves and
checkpoints verify), and saved answers are bound to their ``answer`` entry.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.audit import checkpoint as cp
from citewise.core.ledger_entries import canonical_json, ledger_context
from citewise.errors import CitationNotFound, CitewiseError, DocumentNotFound
from citewise.store.protocol import Ledger, Store
from citewise.testing.docs import make_doc
from citewise.testing.store_suite import P1, P2, P3, StoreFactory


def _add(store: Store, path: str, paras: list[str], **kw: Any) -> None:
    raw, parsed = make_doc("default", path, paras)
    store.ingest_document("default", path, raw, parsed, **kw)


def _types(ledger: Ledger) -> list[str]:
    return [e.type for e in ledger.iter_ledger()]


class LedgerSuite:
    @pytest.fixture
    def make_store(self) -> Iterator[StoreFactory]:
        raise NotImplementedError("backend test modules override make_store")

    @pytest.fixture
    def store(self, make_store: StoreFactory) -> Store:
        return make_store()

    # -- entries the store writes with its changes ------------------------------------
    def test_changes_are_recorded_in_order(self, store: Store) -> None:
        led = store.ledger
        assert led.ledger_size() == 0 and _types(led) == []
        with ledger_context("alice", {"session": "s1", "run": "r9"}):
            store.begin_batch("default")
            _add(store, "a.md", P1)
            _add(store, "b.md", P2)
            store.end_batch("default")
        _add(store, "a.md", P1)  # unchanged: no entry
        _add(store, "a.md", P3)
        store.delete_document("default", "b.md")
        _add(store, "a.md", P1, restored_from=1)
        store.create_kb("old")
        store.delete_kb("old")
        expected = ["revision", "ingest", "ingest"]  # the batch: one revision
        expected += ["revision", "ingest", "revision", "delete", "revision", "revert"]
        assert _types(led) == [*expected, "kb_delete"]
        first = led.ledger_entry(1)
        assert first.principal == "alice" and first.lineage == {"session": "s1", "run": "r9"}
        assert first.kb == "default" and first.payload["path"] == "a.md"
        raw, parsed = make_doc("default", "a.md", P1)
        assert first.payload["raw_sha256"] == hashlib.sha256(raw).hexdigest()
        assert first.payload["content_sha256"] == parsed.content_sha256
        revs = store.list_revisions("default")
        assert led.ledger_entry(0).payload == {
            "kb": "default",
            "revision": 1,
            "parent_hash": "0" * 64,
        }
        assert led.ledger_entry(2).payload["revision_hash"] == revs[0].hash
        removed = led.ledger_entry(6).payload["removed_content_sha256"]
        assert removed == store.list_versions("default", "b.md")[1].content_sha256
        revert = led.ledger_entry(8).payload
        assert revert["restored_from"] == 1 and revert["revision_hash"] == revs[-1].hash
        assert led.ledger_entry(9).payload == {"kb": "old", "documents": 0}
        assert led.ledger_entry(9).principal != "alice"  # the context ended

    def test_refused_change_leaves_no_entry(self, store: Store) -> None:
        _add(store, "a.md", P1)
        before = store.ledger.ledger_size()
        with pytest.raises(DocumentNotFound):
            store.delete_document("default", "missing.md")
        with pytest.raises(CitewiseError):
            _add(store, "a.md", P2, restored_from=7)
        with pytest.raises(CitewiseError):
            store.create_kb("default")
        assert store.ledger.ledger_size() == before

    # -- explicit transactions --------------------------------------------------------
    def test_transaction_commits_together(self, store: Store) -> None:
        with store.ledger.transaction() as tx:
            first = tx.append("search", {"kb": "default", "query": "q"}, kb="default")
            second = tx.append("access", {"event": first.seq}, kb="default", principal="bob")
        assert (first.seq, second.seq) == (0, 1)
        assert store.ledger.ledger_entry(1) == second
        assert store.ledger.ledger_entry(1).payload == {"event": 0}

    def test_transaction_that_raises_appends_nothing(self, store: Store) -> None:
        store.ledger.append_event("feedback", {"verdict": "good"})
        with pytest.raises(RuntimeError), store.ledger.transaction() as tx:
            tx.append("search", {"query": "q"})
            tx.append("access", {"event": 1})
            raise RuntimeError("fails before the end of the block")
        assert store.ledger.ledger_size() == 1
        with pytest.raises(TypeError), store.ledger.transaction() as tx:
            tx.append("search", {"query": "q"})
            tx.append("search", {"query": object()})  # not JSON
        assert _types(store.ledger) == ["feedback"]
        assert store.ledger.append_event("search", {}).seq == 1  # no gap left behind

    # -- reading back ---------------------------------------------------------------
    def test_entries_read_back_exactly(self, store: Store) -> None:
        led = store.ledger
        e = led.append_event(
            "search",
            {"query": "naïve ünïcode", "hits": ("n_1", "n_2"), "n": 3},
            kb="default",
            principal="carol",
            lineage={"trace": "t_1", "turn": 2},
        )
        assert e.payload == {"query": "naïve ünïcode", "hits": ["n_1", "n_2"], "n": 3}
        assert e.lineage == {"trace": "t_1", "turn": "2"}
        assert led.ledger_entry(0) == e and list(led.iter_ledger()) == [e]
        assert e.entry_hash == e.leaf().hex()
        with pytest.raises(CitationNotFound):
            led.ledger_entry(1)
        with pytest.raises(CitationNotFound):
            led.ledger_entry(-1)

    def test_leaves_recompute_the_stored_hashes(self, store: Store) -> None:
        _add(store, "a.md", P1)
        store.ledger.append_event("feedback", {"note": 'a "quoted" note', "x": None})
        leaves = list(store.ledger.iter_leaves(batch=2))
        entries = list(store.ledger.iter_ledger(batch=2))
        assert [s for s, *_ in leaves] == list(range(len(entries))) == [e.seq for e in entries]
        for (_, leaf, stored, type_, payload), e in zip(leaves, entries, strict=True):
            assert leaf == e.leaf() and stored == e.entry_hash and type_ == e.type
            assert payload == canonical_json(e.payload)
        assert store.ledger.stored_leaves() == [e.leaf() for e in entries]

    def test_query_and_last_event(self, store: Store) -> None:
        led = store.ledger
        store.create_kb("other")
        a = led.append_event("search", {"i": 0}, kb="default", principal="ann")
        b = led.append_event("route", {"i": 1}, kb="default", principal="ben")
        c = led.append_event("search", {"i": 2}, kb="other", principal="ann")
        d = led.append_event("key", {"i": 3}, principal="ann")
        assert led.query_ledger() == [a, b, c, d]
        assert led.query_ledger(types=("search",)) == [a, c]
        assert led.query_ledger(types=("search", "key"), principal="ann", limit=2) == [a, c]
        assert led.query_ledger(kb="other") == [c]
        assert led.query_ledger(since=c.ts) == [e for e in (a, b, c, d) if e.ts >= c.ts]
        assert led.query_ledger(principal="nobody") == []
        assert led.last_event("search", "default") == a
        assert led.last_event("search", "other") == c
        assert led.last_event("key") == d and led.last_event("search") is None
        assert led.last_event("answer", "default") is None

    # -- checkpoints and proofs (the audit stage over the protocol) ---------------------
    def test_checkpoints_sign_and_verify(self, store: Store, tmp_path: Path) -> None:
        led = store.ledger
        assert led.list_checkpoints() == []
        _add(store, "a.md", P1)
        key = tmp_path / "keys" / "audit_ed25519"
        c1 = cp.make_checkpoint(led, key)
        assert _types(led)[-1] == "key"
        _add(store, "b.md", P2)
        c2 = cp.make_checkpoint(led, key)
        assert led.list_checkpoints() == [c1, c2]
        for seq in range(c2["tree_size"]):
            assert cp.check_inclusion(cp.inclusion(led, seq))
        assert cp.check_consistency(cp.consistency(led, c1["tree_size"]))
        report = cp.verify(led, key)
        assert report.ok, report.problems
        with pytest.raises(KeyError):
            led.save_checkpoint({"tree_size": 1})
        assert len(led.list_checkpoints()) == 2

    # -- saved answers --------------------------------------------------------------
    def _save(self, store: Store, answer_id: str, **kw: Any) -> Any:
        answer = {"revision": 1, "replay_id": "r_1", "outcome": "answered", "text": "Yes."}
        event = {"kb": "default", "question": "Is it?", "outcome": "answered"}
        return store.ledger.save_answer(
            answer_id, "default", answer, {"kb": "default"}, event, **kw
        )

    def test_saved_answer_is_bound_to_its_entry(self, store: Store) -> None:
        _add(store, "a.md", P1)
        entry = self._save(
            store,
            "t_1",
            principal="dana",
            extra_events=(("access", {"allowed": ["a.md"]}), ("route", {"routes": ["lexical"]})),
        )
        led = store.ledger
        saved = led.get_answer("t_1")
        body = canonical_json(saved["answer"])
        assert saved["answer_sha256"] == hashlib.sha256(body.encode()).hexdigest()
        assert entry.payload["answer_sha256"] == saved["answer_sha256"]
        assert entry.payload["revision_hash"] == store.list_revisions("default")[0].hash
        assert saved["revision_hash"] == entry.payload["revision_hash"]
        assert (saved["kb"], saved["revision"], saved["ledger_seq"]) == ("default", 1, entry.seq)
        assert saved["conditions"] == {"kb": "default"} and saved["created_at"] == entry.ts
        assert saved["answer"]["text"] == "Yes." and entry.principal == "dana"
        assert _types(led)[-3:] == ["answer", "access", "route"]
        assert all(e.payload["answer_id"] == "t_1" for e in led.query_ledger()[-3:])
        assert led.list_answer_bindings() == [("t_1", entry.seq, saved["answer_sha256"])]
        unknown_revision = self._save(store, "t_2", principal="dana")
        assert unknown_revision.payload["revision_hash"] != ""
        with pytest.raises(CitationNotFound):
            led.get_answer("t_missing")

    def test_saved_answer_pins_the_store_revision(self, store: Store) -> None:
        """The answer shows its principal's revision number; the saved row pins the KB
        revision given as ``store_revision`` (replay and cite check compare KB revisions)."""
        _add(store, "a.md", P1)
        _add(store, "b.md", P2)
        answer = {"revision": 1, "replay_id": "r_1", "outcome": "answered", "text": "Yes."}
        event = {"kb": "default", "question": "Is it?", "store_revision": 2}
        entry = store.ledger.save_answer("t_9", "default", answer, {}, event)
        saved = store.ledger.get_answer("t_9")
        assert saved["revision"] == 2 and saved["answer"]["revision"] == 1
        assert entry.payload["revision_hash"] == store.list_revisions("default")[1].hash

    def test_failed_answer_save_writes_nothing(self, store: Store) -> None:
        self._save(store, "t_1")
        before = (store.ledger.ledger_size(), store.ledger.list_answer_bindings())
        with pytest.raises(TypeError):  # the extra event is written last, and fails
            self._save(store, "t_2", extra_events=(("access", {"bad": object()}),))
        with pytest.raises(CitewiseError):  # answers are never rewritten
            self._save(store, "t_1")
        assert (store.ledger.ledger_size(), store.ledger.list_answer_bindings()) == before
        with pytest.raises(CitationNotFound):
            store.ledger.get_answer("t_2")

    def test_suite_calls_every_protocol_method(self) -> None:
        source = Path(__file__).read_text("utf-8")
        members = [
            n for n in Ledger.__dict__ if not n.startswith("_") and callable(getattr(Ledger, n))
        ]
        assert len(members) >= 13
        assert [m for m in members if re.search(rf"\.{m}\(", source) is None] == []
