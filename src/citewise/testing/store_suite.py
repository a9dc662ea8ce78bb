"""The backend-agnostic Store test suite.

A backend module subclasses :class:`StoreSuite` and overrides the ``make_store``
fixture (a factory returning a fresh, empty store each call). Tests needing raw
access to the backend (tampering) call :meth:`StoreSuite.tamper_node_text`,
which a backend overrides; by default those tests are skipped. Every method of the
:class:`~citewise.store.protocol.Store` protocol is called here (a test checks that);
the ledger has its own suite, ``src/citewise/testing/ledger_suite.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.core.stored import ClauseMatch, NoteRecord
from citewise.errors import (
    CitationNotFound,
    CorruptContent,
    DocumentNotFound,
    KBExists,
    KBInUse,
    KBIsDefault,
    KBNotFound,
    StoreError,
    UsageError,
    VersionNotFound,
)
from citewise.store import adhash
from citewise.store.protocol import Store
from citewise.testing.docs import make_doc

StoreFactory = Callable[[], Store]

P1 = ["Alpha paragraph one.", "Beta paragraph two.", "Gamma three."]
P2 = ["Alpha paragraph one, edited.", "Beta paragraph two.", "Delta four."]
P3 = ["Completely new text.", "With two paragraphs."]


def _add(store: Store, kb: str, path: str, paras: list[str], **kw: object):  # type: ignore[no-untyped-def]
    raw, parsed = make_doc(kb, path, paras)
    return store.ingest_document(kb, path, raw, parsed, **kw)  # type: ignore[arg-type]


def _current_hash(store: Store, kb: str) -> str:
    return adhash.multiset_hash((d.path, d.content_sha256) for d in store.list_documents(kb))


class StoreSuite:
    @pytest.fixture
    def make_store(self) -> Iterator[StoreFactory]:
        raise NotImplementedError("backend test modules override make_store")

    @pytest.fixture
    def store(self, make_store: StoreFactory) -> Store:
        return make_store()

    def tamper_node_text(self, store: Store, node_id: str, text: str) -> None:
        pytest.skip("backend offers no raw tampering hook")

    def tamper_document_text(self, store: Store, doc_id: str, text: str) -> None:
        pytest.skip("backend offers no raw tampering hook")

    # -- knowledge bases -------------------------------------------------------
    def test_default_kb_exists_and_is_protected(self, store: Store) -> None:
        assert [k.name for k in store.list_kbs()] == ["default"]
        info = store.get_kb("default")
        assert info.revision == 0 and info.document_count == 0
        with pytest.raises(KBIsDefault):
            store.delete_kb("default")
        with pytest.raises(KBIsDefault):
            store.delete_kb("default", force=True)

    def test_kb_lifecycle_and_errors(self, store: Store) -> None:
        info = store.create_kb("team-docs", "Team docs")
        assert info.name == "team-docs" and info.description == "Team docs"
        assert [k.name for k in store.list_kbs()] == ["default", "team-docs"]
        with pytest.raises(KBExists) as exc:
            store.create_kb("team-docs")
        assert exc.value.code == "BASE_EXISTS"
        for bad in ["", "Upper", "-lead", "has space", "x" * 64, "a/b"]:
            with pytest.raises(UsageError) as uexc:
                store.create_kb(bad)
            assert "lowercase" in str(uexc.value)
        with pytest.raises(KBNotFound) as nexc:
            store.get_kb("nope")
        assert nexc.value.code == "BASE_NOT_FOUND"
        with pytest.raises(KBNotFound):
            store.delete_kb("nope")
        with pytest.raises(KBNotFound):
            _add(store, "nope", "a.md", P1)
        store.delete_kb("team-docs")
        assert [k.name for k in store.list_kbs()] == ["default"]

    def test_delete_kb_in_use_needs_force(self, store: Store) -> None:
        store.create_kb("busy")
        out = _add(store, "busy", "a.md", P1)
        node_id = make_doc("busy", "a.md", P1)[1].nodes[1].id
        with pytest.raises(KBInUse) as exc:
            store.delete_kb("busy")
        assert exc.value.code == "BASE_IN_USE"
        assert store.get_document("busy", "a.md").version_id == out.version_id
        store.delete_kb("busy", force=True)
        with pytest.raises(KBNotFound):
            store.get_kb("busy")
        with pytest.raises(CitationNotFound):
            store.resolve(node_id)
        # The name is free again, with a fresh history.
        store.create_kb("busy")
        assert store.get_kb("busy").revision == 0
        assert _add(store, "busy", "a.md", P1).version_id == 1

    def test_delete_kb_with_only_deleted_documents(self, store: Store) -> None:
        store.create_kb("old")
        _add(store, "old", "a.md", P1)
        store.delete_document("old", "a.md")
        store.delete_kb("old")
        assert "old" not in [k.name for k in store.list_kbs()]

    def test_kbs_are_isolated(self, store: Store) -> None:
        store.create_kb("other")
        _add(store, "default", "a.md", P1)
        _add(store, "other", "a.md", P2)
        assert (
            store.get_document("default", "a.md").doc_id
            != store.get_document("other", "a.md").doc_id
        )
        assert [d.path for d in store.list_documents("other")] == ["a.md"]
        assert store.get_kb("other").revision == 1

    # -- ingest, versions, revert ----------------------------------------------
    def test_add_then_unchanged_is_noop(self, store: Store) -> None:
        first = _add(store, "default", "a.md", P1, source="/src/a.md")
        assert (first.action, first.version_id, first.revision) == ("added", 1, 1)
        assert first.node_count == 4 and first.chunk_count == 2
        again = _add(store, "default", "a.md", P1)
        assert (again.action, again.version_id, again.revision) == ("unchanged", 1, 1)
        assert len(store.list_revisions("default")) == 1
        assert len(store.list_versions("default", "a.md")) == 1
        doc = store.get_document("default", "a.md")
        assert doc.title == "a.md" and doc.format == "markdown" and doc.node_count == 4
        assert store.get_version_content("default", "a.md", 1)[1] == "/src/a.md"

    def test_same_text_different_bytes_is_a_change(self, store: Store) -> None:
        raw, parsed = make_doc("default", "a.md", P1)
        store.ingest_document("default", "a.md", raw, parsed)
        out = store.ingest_document("default", "a.md", b"\xef\xbb\xbf" + raw, parsed)
        assert out.action == "changed"
        assert store.get_version_content("default", "a.md", 2)[0] == b"\xef\xbb\xbf" + raw
        revs = store.list_revisions("default")
        assert revs[0].hash == revs[1].hash  # membership (path, text sha) is equal

    def test_change_twice_revert_twice_keeps_everything(self, store: Store) -> None:
        kb, path = "default", "doc.md"
        contents = {1: P1, 2: P2, 3: P3}
        for paras in (P1, P2, P3):
            _add(store, kb, path, paras)
        r1 = _add(store, kb, path, P1, restored_from=1)
        assert (r1.action, r1.version_id) == ("reverted", 4)
        contents[4] = P1
        r2 = _add(store, kb, path, P3, restored_from=3)  # revert the revert
        assert (r2.action, r2.version_id) == ("reverted", 5)
        contents[5] = P3
        versions = store.list_versions(kb, path)
        assert [v.version_id for v in versions] == [5, 4, 3, 2, 1]
        assert [v.action for v in versions] == [
            "reverted",
            "reverted",
            "changed",
            "changed",
            "added",
        ]
        assert [v.is_head for v in versions] == [True, False, False, False, False]
        assert versions[0].restored_from == 3 and versions[1].restored_from == 1
        for vid, paras in contents.items():
            raw, parsed = make_doc(kb, path, paras)
            assert store.get_version_content(kb, path, vid)[0] == raw
            doc_id = store.get_document(kb, path).doc_id
            assert store.get_document_text(kb, doc_id, vid) == parsed.text
        # Reverting to version 1 again when version 4 is identical content reuses node ids.
        n1 = make_doc(kb, path, P1)[1].nodes[1].id
        resolved = store.resolve(n1)
        assert resolved.text == P1[0] and not resolved.current
        assert resolved.version_id == 4  # the newest version carrying this content
        assert resolved.revisions == (1, 4)
        with pytest.raises(VersionNotFound):
            store.get_version_content(kb, path, 99)
        with pytest.raises(VersionNotFound):
            _add(store, kb, path, P2, restored_from=42)

    def test_old_node_ids_resolve_after_change_and_delete(self, store: Store) -> None:
        kb, path = "default", "a.md"
        _add(store, kb, path, P1)
        old = make_doc(kb, path, P1)[1]
        _add(store, kb, path, P2)
        for node in old.nodes:
            r = store.resolve(node.id)
            assert r.text == node.text and r.sha256 == node.sha256
            assert r.version_id == 1 and r.revisions == (1,) and not r.current
            assert r.path == path and r.kb == kb and r.kind == "node"
        new = make_doc(kb, path, P2)[1]
        assert store.resolve(new.nodes[1].id).current
        store.delete_document(kb, path)
        for node in (*old.nodes, *new.nodes):
            r = store.resolve(node.id)
            assert r.text == node.text and not r.current
        assert store.resolve(new.nodes[1].id).revisions == (2,)

    def test_delete_document(self, store: Store) -> None:
        kb = "default"
        _add(store, kb, "a.md", P1)
        _add(store, kb, "b.md", P2)
        out = store.delete_document(kb, "a.md")
        assert (out.action, out.version_id, out.revision) == ("deleted", 2, 3)
        assert [d.path for d in store.list_documents(kb)] == ["b.md"]
        assert {c.path for c in store.iter_chunks(kb)} == {"b.md"}
        with pytest.raises(DocumentNotFound) as exc:
            store.get_document(kb, "a.md")
        assert exc.value.code == "DOC_NOT_FOUND"
        with pytest.raises(DocumentNotFound):
            store.delete_document(kb, "a.md")
        with pytest.raises(DocumentNotFound):
            store.delete_document(kb, "never.md")
        with pytest.raises(DocumentNotFound):
            store.list_versions(kb, "never.md")
        versions = store.list_versions(kb, "a.md")
        assert [(v.action, v.is_head) for v in versions] == [("deleted", True), ("added", False)]
        with pytest.raises(VersionNotFound):
            store.get_version_content(kb, "a.md", 2)
        assert store.get_version_content(kb, "a.md", 1)[0] == make_doc(kb, "a.md", P1)[0]
        assert store.get_kb(kb).document_count == 1
        again = _add(store, kb, "a.md", P1)
        assert (again.action, again.version_id) == ("added", 3)
        assert [d.path for d in store.list_documents(kb)] == ["a.md", "b.md"]
        assert store.resolve(make_doc(kb, "a.md", P1)[1].nodes[1].id).current

    def test_bad_paths_rejected(self, store: Store) -> None:
        for bad in ["", "/abs.md", "../up.md", "a//b.md", "a/./b.md", "a\\b.md"]:
            with pytest.raises(UsageError):
                _add(store, "default", bad, P1)

    # -- revisions and batches ------------------------------------------------
    def test_revision_hash_tracks_membership(self, store: Store) -> None:
        kb = "default"
        _add(store, kb, "a.md", P1)
        h1 = store.list_revisions(kb)[-1]
        assert h1.hash == _current_hash(store, kb) and h1.document_count == 1
        _add(store, kb, "b.md", P2)
        assert store.list_revisions(kb)[-1].hash == _current_hash(store, kb)
        _add(store, kb, "b.md", P3)
        store.delete_document(kb, "b.md")
        latest = store.list_revisions(kb)[-1]
        assert latest.revision == 4 and latest.document_count == 1
        assert latest.hash == h1.hash  # same membership, same hash
        assert latest.hash == adhash.multiset_hash(
            [("a.md", make_doc(kb, "a.md", P1)[1].content_sha256)]
        )
        store.delete_document(kb, "a.md")
        assert store.list_revisions(kb)[-1].hash == adhash.EMPTY_HASH
        assert [r.revision for r in store.list_revisions(kb)] == [1, 2, 3, 4, 5]
        assert all(r.sealed for r in store.list_revisions(kb))

    def test_batch_makes_one_revision(self, store: Store) -> None:
        kb = "default"
        store.begin_batch(kb)
        _add(store, kb, "a.md", P1)
        _add(store, kb, "b.md", P2)
        _add(store, kb, "b.md", P3)  # changed twice within the batch
        assert store.list_revisions(kb)[-1].sealed is False
        rev = store.end_batch(kb)
        assert rev is not None and rev.revision == 1 and rev.sealed
        assert rev.document_count == 2 and rev.hash == _current_hash(store, kb)
        assert [r.revision for r in store.list_revisions(kb)] == [1]
        # An unchanged batch makes no revision.
        store.begin_batch(kb)
        assert _add(store, kb, "a.md", P1).action == "unchanged"
        assert store.end_batch(kb) is None
        assert len(store.list_revisions(kb)) == 1
        # A later batch opens revision 2 and deletes join it.
        store.begin_batch(kb)
        assert _add(store, kb, "c.md", P1).revision == 2
        assert store.delete_document(kb, "a.md").revision == 2
        rev2 = store.end_batch(kb)
        assert rev2 is not None and rev2.revision == 2 and rev2.document_count == 2
        assert store.end_batch(kb) is None

    def test_equal_membership_equal_hash_any_order(self, make_store: StoreFactory) -> None:
        one, two = make_store(), make_store()
        for p, paras in [("a.md", P1), ("b.md", P2), ("c.md", P3)]:
            _add(one, "default", p, paras)
        _add(two, "default", "c.md", P1)
        _add(two, "default", "b.md", P2)
        _add(two, "default", "c.md", P3)
        _add(two, "default", "a.md", P1)
        assert one.list_revisions("default")[-1].hash == two.list_revisions("default")[-1].hash
        assert one.list_revisions("default")[0].hash != two.list_revisions("default")[0].hash

    def test_versions_list_their_revision(self, store: Store) -> None:
        kb = "default"
        _add(store, kb, "a.md", P1)
        _add(store, kb, "b.md", P1)
        _add(store, kb, "a.md", P2)
        assert [v.revision for v in store.list_versions(kb, "a.md")] == [3, 1]

    def test_version_access_lists_each_content_version(self, store: Store) -> None:
        """Each version's own ``access`` value and interval; deletion markers left out."""
        kb = "default"
        _add(store, kb, "a.md", P1)
        raw, parsed = make_doc(kb, "a.md", P2, meta={"access": ["alice"]})
        store.ingest_document(kb, "a.md", raw, parsed)
        raw, parsed = make_doc(kb, "b.md", P3, meta={"access": "bob", "tags": ["x"]})
        store.ingest_document(kb, "b.md", raw, parsed)
        store.delete_document(kb, "b.md")
        assert sorted(store.version_access(kb), key=lambda t: t[0]) == [
            (1, 2, {}),
            (2, None, {"access": ["alice"]}),
            (3, 4, {"access": "bob"}),
        ]

    def test_version_metadata_is_what_each_content_version_stored(self, store: Store) -> None:
        """Access checks read this (never the stored bytes); deletion markers left out."""
        kb = "default"
        _add(store, kb, "a.md", P1)
        raw, parsed = make_doc(kb, "a.md", P2, meta={"access": ["alice"], "tags": ["x"]})
        store.ingest_document(kb, "a.md", raw, parsed)
        store.delete_document(kb, "a.md")
        assert store.version_metadata(kb, "a.md") == {
            1: {},
            2: {"access": ["alice"], "tags": ["x"]},
        }

    def test_withholding_marks_versions_keeps_hashes_and_moves_the_generation(
        self, store: Store
    ) -> None:
        """A takedown or expiry (issue 38): the mark joins each version's metadata, the
        content and revision hashes stay, the generation moves, the same bytes again are
        unchanged, and marked versions leave the sweep's input."""
        kb = "default"
        _add(store, kb, "a.md", P1)
        raw, parsed = make_doc(kb, "a.md", P2)
        store.ingest_document(kb, "a.md", raw, parsed)
        _add(store, kb, "b.md", P3)
        hashes = [r.hash for r in store.list_revisions(kb)]
        before = store.generation(kb)
        assert sorted((p, n) for p, n, _, _ in store.content_versions(kb)) == [
            ("a.md", 1),
            ("a.md", 2),
            ("b.md", 1),
        ]
        mark = {"kind": "expired", "reason": "r", "by": "x", "at": "2030-01-01"}
        assert store.mark_versions(kb, "a.md", mark, [1]) == [1]
        assert store.mark_withheld(kb, "a.md", mark | {"kind": "taken down"}) == [2]
        assert store.mark_withheld(kb, "a.md", mark) == []  # nothing left to mark
        assert store.generation(kb) != before
        metas = store.version_metadata(kb, "a.md")
        assert metas[1]["withheld"]["kind"] == "expired"
        assert metas[2]["withheld"]["kind"] == "taken down"
        assert [p for p, _, _, _ in store.content_versions(kb)] == ["b.md"]
        assert [r.hash for r in store.list_revisions(kb)] == hashes
        assert store.ingest_document(kb, "a.md", raw, parsed).action == "unchanged"
        assert {tuple(sorted(a)) for _, _, a in store.version_access(kb)} == {
            ("withheld",),
            (),
        }
        with pytest.raises(DocumentNotFound):
            store.mark_withheld(kb, "nope.md", mark)
        # A lifted takedown: only the takedown's mark leaves; the expiry stays.
        gen = store.generation(kb)
        assert store.unmark_withheld(kb, "a.md", "taken down") == [2]
        assert store.unmark_withheld(kb, "a.md", "taken down") == []
        assert store.generation(kb) != gen
        metas = store.version_metadata(kb, "a.md")
        assert "withheld" not in metas[2] and metas[1]["withheld"]["kind"] == "expired"
        assert [r.hash for r in store.list_revisions(kb)] == hashes

    def test_new_metadata_for_the_same_bytes_is_a_version_of_the_same_content(
        self, store: Store
    ) -> None:
        """A sidecar change: a new version (the history says so, the ledger names the
        metadata's hash), the same nodes (citations into either version resolve alike)."""
        kb = "default"
        raw, public = make_doc(kb, "a.md", P1)
        store.ingest_document(kb, "a.md", raw, public)
        restricted = dataclasses.replace(public, metadata={"access": ["alice"]})
        out = store.ingest_document(kb, "a.md", raw, restricted)
        assert (out.action, out.version_id) == ("changed", 2)
        assert store.ingest_document(kb, "a.md", raw, restricted).action == "unchanged"
        retitled = dataclasses.replace(restricted, title="Other title")
        assert store.ingest_document(kb, "a.md", raw, retitled).version_id == 3
        assert store.get_document(kb, "a.md").metadata == {"access": ["alice"]}
        assert store.nodes_of_version(kb, "a.md", 1) == store.nodes_of_version(kb, "a.md", 3)
        assert store.version_metadata(kb, "a.md")[1] == {}
        events = [e.payload for e in store.ledger.iter_ledger() if e.type == "ingest"]
        assert len({e["metadata_sha256"] for e in events}) == 2
        assert len({e["raw_sha256"] for e in events}) == 1

    # -- reads ------------------------------------------------------------------
    def test_list_documents_prefix_limit_offset(self, store: Store) -> None:
        kb = "default"
        for p in ["z.md", "guide/b.md", "guide/a.md", "api/x.md"]:
            _add(store, kb, p, P1)
        assert [d.path for d in store.list_documents(kb)] == [
            "api/x.md",
            "guide/a.md",
            "guide/b.md",
            "z.md",
        ]
        assert [d.path for d in store.list_documents(kb, prefix="guide/")] == [
            "guide/a.md",
            "guide/b.md",
        ]
        assert [d.path for d in store.list_documents(kb, limit=2, offset=1)] == [
            "guide/a.md",
            "guide/b.md",
        ]
        assert store.list_documents(kb, prefix="nothing") == []
        with pytest.raises(UsageError):
            store.list_documents(kb, limit=-1)

    def test_iter_chunks_carries_metadata(self, store: Store) -> None:
        kb = "default"
        raw, parsed = make_doc(kb, "a.md", P1, meta={"tags": ["x"]})
        store.ingest_document(kb, "a.md", raw, parsed)
        chunks = list(store.iter_chunks(kb))
        assert [c.chunk_id for c in chunks] == [k.id for k in parsed.chunks]
        assert all(c.metadata == {"tags": ["x"]} and c.version_id == 1 for c in chunks)
        assert chunks[0].node_ids == parsed.chunks[0].node_ids
        _add(store, kb, "a.md", P3)
        assert [c.search_text for c in store.iter_chunks(kb)] == [" ".join(P3)]
        _add(store, kb, "b.md", P3)
        nested = [(c.path, len(list(store.iter_chunks(kb)))) for c in store.iter_chunks(kb)]
        assert nested == [("a.md", 2), ("b.md", 2)]  # store reads while iterating

    def test_chunk_texts_of_any_version(self, store: Store) -> None:
        kb = "default"
        raw, parsed = make_doc(kb, "a.md", P1)
        store.ingest_document(kb, "a.md", raw, parsed)
        old = list(store.iter_chunks(kb))
        _add(store, kb, "a.md", P3)  # version 2 replaces the text
        new = list(store.iter_chunks(kb))
        keys = [(c.doc_id, c.version_id, c.chunk_id) for c in old + new]
        got = store.chunk_texts(kb, keys)
        assert got == {c.chunk_id: c.search_text for c in old + new}  # old ones still read
        assert [old[0].version_id, new[0].version_id] == [1, 2]
        assert old[0].search_text != new[0].search_text
        same_id = {c.chunk_id: c.search_text for c in new if c.chunk_id == old[0].chunk_id}
        assert store.chunk_texts(kb, [(old[0].doc_id, 2, old[0].chunk_id)]) == same_id
        assert store.chunk_texts(kb, [("d_none", 1, "c_none")]) == {}
        store.create_kb("other")
        assert store.chunk_texts("other", keys) == {}  # another base's chunks are not read

    def test_stats(self, store: Store) -> None:
        kb = "default"
        _add(store, kb, "a.md", P1)
        _add(store, kb, "a.md", P2)
        _add(store, kb, "b.md", P3)
        s = store.stats(kb)
        assert s["documents"] == 2 and s["versions"] == 3 and s["revisions"] == 3
        assert s["nodes"] == 4 + 3 and s["chunks"] == 2 + 1

    # -- citations ---------------------------------------------------------------
    def test_resolve_chunk_and_span(self, store: Store) -> None:
        kb = "default"
        raw, parsed = make_doc(kb, "a.md", P1)
        store.ingest_document(kb, "a.md", raw, parsed)
        chunk = parsed.chunks[0]
        rc = store.resolve(chunk.id)
        assert rc.kind == "chunk" and rc.text == parsed.text[chunk.char_start : chunk.char_end]
        assert (rc.line_start, rc.line_end) == (chunk.line_start, chunk.line_end)
        node = parsed.nodes[2]  # "Beta paragraph two." on line 3
        sid = f"{node.id}:{node.char_start + 5}-{node.char_end}"
        rs = store.resolve(sid)
        assert rs.kind == "span" and rs.text == "paragraph two." and rs.id == sid
        assert (rs.line_start, rs.line_end) == (3, 3) and rs.node_id == node.id
        whole = parsed.nodes[0]
        rw = store.resolve(f"{whole.id}:0-{len(parsed.text)}")
        assert rw.text == parsed.text and (rw.line_start, rw.line_end) == (1, 5)
        assert store.resolve(f" {node.id} ").text == node.text

    @pytest.mark.parametrize(
        "bad",
        ["", "xyz", "n_abc:5", "n_abc:7-3", "n_abc:3-3", "n_abc:a-b", "c_abc:1-2", "n_abc:-1-2"],
    )
    def test_bad_citation_ids(self, store: Store, bad: str) -> None:
        with pytest.raises(UsageError) as exc:
            store.resolve(bad)
        assert exc.value.code == "BAD_REQUEST"

    def test_span_outside_node_and_unknown_ids(self, store: Store) -> None:
        raw, parsed = make_doc("default", "a.md", P1)
        store.ingest_document("default", "a.md", raw, parsed)
        node = parsed.nodes[1]
        with pytest.raises(UsageError) as exc:
            store.resolve(f"{node.id}:{node.char_start}-{node.char_end + 1}")
        assert "<node_id>:<char_start>-<char_end>" in str(exc.value)
        with pytest.raises(CitationNotFound):
            store.resolve("n_000000000000000000000000")
        with pytest.raises(CitationNotFound):
            store.resolve("n_000000000000000000000000:1-2")
        with pytest.raises(CitationNotFound):
            store.resolve("c_000000000000000000000000")

    def test_tampered_node_text_is_detected(self, store: Store) -> None:
        raw, parsed = make_doc("default", "a.md", P1)
        store.ingest_document("default", "a.md", raw, parsed)
        node = parsed.nodes[1]
        self.tamper_node_text(store, node.id, "Alpha paragraph ONE.")
        for cid in (node.id, f"{node.id}:0-5", parsed.chunks[0].id):
            with pytest.raises(CorruptContent) as exc:
                store.resolve(cid)
            assert exc.value.code == "CORRUPT_CONTENT"
        assert store.resolve(parsed.nodes[3].id).text == P1[2]

    def test_tampered_document_text_is_detected(self, store: Store) -> None:
        raw, parsed = make_doc("default", "a.md", P1)
        out = store.ingest_document("default", "a.md", raw, parsed)
        self.tamper_document_text(store, out.doc_id, parsed.text.replace("Beta", "Bxta"))
        with pytest.raises(CorruptContent):
            store.resolve(parsed.nodes[2].id)
        with pytest.raises(CorruptContent):  # the slice still matches but the hash does not
            store.resolve(parsed.nodes[1].id)
        with pytest.raises(CorruptContent):
            store.get_document_text("default", out.doc_id, 1)
        with pytest.raises(CorruptContent):  # the bulk read checks the hash as well
            list(store.document_bodies("default", [store.get_document("default", "a.md")]))

    # -- lookups for recall and the graph --------------------------------------------
    def test_document_bodies_equal_the_single_reads_in_the_order_asked(self, store: Store) -> None:
        kb = "default"
        _add(store, kb, "a.md", P1)
        _add(store, kb, "b.md", P3)
        _add(store, kb, "a.md", P2)  # a.md's head is version 2; version 1 stays readable
        docs = store.list_documents(kb)
        old = dataclasses.replace(docs[0], version_id=1)
        asked = [docs[1], old, docs[0]]
        got = list(store.document_bodies(kb, asked))
        want = [
            (
                store.get_document_text(kb, d.doc_id, d.version_id),
                store.nodes_of_version(kb, d.path, d.version_id),
            )
            for d in asked
        ]
        assert got == want
        assert got[1][0] != got[2][0] and P3[0] in got[0][0]
        assert list(store.document_bodies(kb, [])) == []
        with pytest.raises(VersionNotFound):
            list(store.document_bodies(kb, [dataclasses.replace(docs[0], version_id=9)]))

    def test_nodes_of_version_in_document_order(self, store: Store) -> None:
        kb = "default"
        raw, parsed = make_doc(kb, "a.md", P1)
        shuffled = dataclasses.replace(parsed, nodes=tuple(reversed(parsed.nodes)))
        store.ingest_document(kb, "a.md", raw, shuffled)
        raw2, parsed2 = make_doc(kb, "a.md", P2)
        store.ingest_document(kb, "a.md", raw2, parsed2)
        store.delete_document(kb, "a.md")
        assert store.nodes_of_version(kb, "a.md", 1) == list(parsed.nodes)
        assert store.nodes_of_version(kb, "a.md", 2) == list(parsed2.nodes)
        for missing in (3, 9):  # the deletion has no nodes; version 9 does not exist
            with pytest.raises(VersionNotFound):
                store.nodes_of_version(kb, "a.md", missing)
        with pytest.raises(DocumentNotFound):
            store.nodes_of_version(kb, "never.md", 1)
        with pytest.raises(KBNotFound):
            store.nodes_of_version("nope", "a.md", 1)

    def test_nodes_near_a_small_version_are_all_of_them(self, store: Store) -> None:
        kb = "default"
        raw, parsed = make_doc(kb, "a.md", P1)
        store.ingest_document(kb, "a.md", raw, parsed)
        window = store.nodes_near(kb, "a.md", 1, [(0, 5)])
        assert window.complete and window.nodes == store.nodes_of_version(kb, "a.md", 1)
        with pytest.raises(VersionNotFound):
            store.nodes_near(kb, "a.md", 9, [(0, 5)])
        with pytest.raises(DocumentNotFound):
            store.nodes_near(kb, "never.md", 1, [(0, 5)])

    def test_generation_changes_with_the_document_set(self, store: Store) -> None:
        kb = "default"
        seen = [store.generation(kb)]
        assert store.generation(kb) == seen[0]
        _add(store, kb, "a.md", P1)
        seen.append(store.generation(kb))
        assert _add(store, kb, "a.md", P1).action == "unchanged"
        store.begin_batch(kb)
        assert store.end_batch(kb) is None
        store.resolve(make_doc(kb, "a.md", P1)[1].nodes[1].id)
        assert store.generation(kb) == seen[-1]  # no-ops and reads change nothing
        _add(store, kb, "a.md", P2)
        seen.append(store.generation(kb))
        store.delete_document(kb, "a.md")
        seen.append(store.generation(kb))
        _add(store, kb, "a.md", P1, restored_from=1)
        seen.append(store.generation(kb))
        assert len(set(seen)) == len(seen) == 5
        store.create_kb("other")
        _add(store, "other", "a.md", P1)
        assert store.generation(kb) == seen[-1]  # another base's change is not this one's
        with pytest.raises(KBNotFound):
            store.generation("nope")

    def test_find_clauses(self, store: Store) -> None:
        kb = "default"
        raw_b, b = make_doc(kb, "b.md", P1)
        store.ingest_document(kb, "b.md", raw_b, b)
        raw_a, a = make_doc(kb, "a.md", P3)
        store.ingest_document(kb, "a.md", raw_a, a)

        def match(doc: object, path: str, node: int, chunk: int) -> ClauseMatch:
            n, c = doc.nodes[node], doc.chunks[chunk]  # type: ignore[attr-defined]
            return ClauseMatch(n.clause_path, n.id, n.kind, c.id, path)

        assert store.find_clauses(kb, ["3", "1"]) == [
            match(a, "a.md", 1, 0),
            match(b, "b.md", 1, 0),
            match(b, "b.md", 3, 1),
        ]
        assert store.find_clauses(kb, []) == [] and store.find_clauses(kb, ["9"]) == []
        raw_b2, b2 = make_doc(kb, "b.md", P2)  # only current versions count
        store.ingest_document(kb, "b.md", raw_b2, b2)
        store.delete_document(kb, "a.md")
        assert store.find_clauses(kb, ["3"]) == [match(b2, "b.md", 3, 1)]
        with pytest.raises(KBNotFound):
            store.find_clauses("nope", ["1"])

    def test_update_kb_description(self, store: Store) -> None:
        store.create_kb("docs", "Old words")
        _add(store, "docs", "a.md", P1)
        info = store.update_kb("docs", "New words")
        assert (info.name, info.description, info.revision) == ("docs", "New words", 1)
        assert store.get_kb("docs").description == "New words"
        assert store.get_kb("default").description != "New words"
        assert store.list_revisions("docs")[-1].revision == 1  # not a corpus change
        with pytest.raises(KBNotFound):
            store.update_kb("nope", "x")

    def test_integrity_check_is_clean_after_every_kind_of_change(self, store: Store) -> None:
        kb = "default"
        assert store.integrity_check() == []
        store.create_kb("gone")
        _add(store, "gone", "a.md", P1)
        store.delete_kb("gone", force=True)
        store.begin_batch(kb)
        _add(store, kb, "a.md", P1)
        _add(store, kb, "b.md", P2)
        store.end_batch(kb)
        _add(store, kb, "a.md", P3)
        store.delete_document(kb, "b.md")
        _add(store, kb, "a.md", P1, restored_from=1)
        assert store.integrity_check() == []

    def test_integrity_check_reports_tampering(self, store: Store) -> None:
        raw, parsed = make_doc("default", "a.md", P1)
        store.ingest_document("default", "a.md", raw, parsed)
        node = parsed.nodes[2]
        self.tamper_node_text(store, node.id, "Beta paragraph TWO.")
        problems = store.integrity_check()
        assert len(problems) == 1 and node.id in problems[0]

    def test_failed_ingest_writes_nothing(self, store: Store) -> None:
        raw, parsed = make_doc("default", "a.md", P1)
        bad_node = dataclasses.replace(parsed.nodes[1], text="not the slice")
        bad = dataclasses.replace(parsed, nodes=(parsed.nodes[0], bad_node), chunks=())
        before = (store.generation("default"), store.ledger.ledger_size())
        with pytest.raises(StoreError):
            store.ingest_document("default", "a.md", raw, bad)
        assert store.stats("default")["versions"] == 0 and store.list_revisions("default") == []
        assert (store.generation("default"), store.ledger.ledger_size()) == before

    def test_group_keeps_each_change_whole(self, store: Store) -> None:
        """Group commit: the changes inside commit together; a failing one is left out
        alone (each change whole or absent) and the batch's revision counts the rest."""
        raw, parsed = make_doc("default", "b.md", P1)
        bad_node = dataclasses.replace(parsed.nodes[1], text="not the slice")
        bad = dataclasses.replace(parsed, nodes=(parsed.nodes[0], bad_node), chunks=())
        store.begin_batch("default")
        with store.group():
            _add(store, "default", "a.md", P1)
            with pytest.raises(StoreError):
                store.ingest_document("default", "b.md", raw, bad)
            _add(store, "default", "c.md", P2)
        rev = store.end_batch("default")
        assert [d.path for d in store.list_documents("default")] == ["a.md", "c.md"]
        assert rev is not None and rev.document_count == 2
        assert store.integrity_check() == []

    def test_vectors_by_encoder_fingerprint_and_text_key(self, store: Store) -> None:
        """Derived vectors: kept by (fingerprint, text key), first one wins, no revision,
        no ledger entry, no change of generation; bad ones refused whole."""
        _add(store, "default", "a.md", P1)
        gen, size = store.generation("default"), store.ledger.ledger_size()
        one = struct.pack("<4f", 0.5, 0.5, 0.5, 0.5)
        two = struct.pack("<4f", 1.0, 0.0, 0.0, 0.0)
        store.put_vectors("enc@1#a", {"k1": one, "k2": two})
        store.put_vectors("enc@1#a", {"k1": two, "k3": two})  # k1 keeps its first vector
        assert store.get_vectors("enc@1#a", ["k1", "k2", "k3", "k4", "k1"]) == {
            "k1": one,
            "k2": two,
            "k3": two,
        }
        assert store.get_vectors("enc@2#b", ["k1"]) == {}  # another encoder's are not these
        many = {f"m{i:04d}": struct.pack("<2f", i, -i) for i in range(1200)}  # > one group
        store.put_vectors("enc@1#a", many)
        assert store.get_vectors("enc@1#a", list(many)) == many
        assert store.generation("default") == gen
        assert store.ledger.ledger_size() == size
        assert store.get_kb("default").revision == 1
        for fingerprint, bad in (("", {"k9": one}), ("enc@1#a", {"k9": one, "k8": b"abc"})):
            with pytest.raises(UsageError):
                store.put_vectors(fingerprint, bad)
        assert store.get_vectors("enc@1#a", ["k9"]) == {}  # nothing written half-way

    def test_notes_keep_every_revision_per_view_and_go_with_their_base(self, store: Store) -> None:
        """Topic notes (store/_notes.py): revisions only added, each the head + 1 of its
        topic in its view; heads per view; a deleted base takes its notes with it."""
        assert store.note_heads("default", "") == []
        assert store.note_history("default", "", "t") == []
        store.create_kb("docs")

        def rec(topic: str, rev: int, view: str = "", n: int = 1) -> NoteRecord:
            return NoteRecord("docs", view, topic, rev, {"lines": ["x"] * n, "t": "中文"})

        store.save_notes("docs", [rec("a", 1), rec("b", 1), rec("a", 1, view="alice")])
        store.save_notes("docs", [rec("a", 2, n=2)])
        heads = store.note_heads("docs", "")
        assert [(r.topic, r.revision, len(r.body["lines"])) for r in heads] == [
            ("a", 2, 2),
            ("b", 1, 1),
        ]
        assert heads[0].body["t"] == "中文" and heads[0].view == "" and heads[0].kb == "docs"
        assert [r.revision for r in store.note_heads("docs", "alice")] == [1]
        assert [r.revision for r in store.note_history("docs", "", "a")] == [1, 2]
        assert store.note_heads("default", "") == []  # bases are apart
        with pytest.raises(UsageError):  # not the head + 1: refused, nothing stored
            store.save_notes("docs", [rec("b", 2), rec("a", 2)])
        assert [r.revision for r in store.note_history("docs", "", "b")] == [1]
        with pytest.raises(UsageError):
            store.save_notes("docs", [rec("", 1)])
        store.delete_kb("docs", force=True)
        store.create_kb("docs")
        assert store.note_heads("docs", "") == []

    def test_close_is_the_last_call(self, make_store: StoreFactory) -> None:
        store = make_store()
        _add(store, "default", "a.md", P1)
        store.close()

    def test_suite_calls_every_protocol_method(self) -> None:
        """Each method and property of the Store protocol is called somewhere in this suite."""
        source = Path(__file__).read_text("utf-8")
        members = [
            name
            for name, _ in inspect.getmembers(Store)
            if not name.startswith("_") and name in Store.__dict__
        ]
        assert len(members) >= 23
        missing = [m for m in members if re.search(rf"\.{m}\b", source) is None]
        assert missing == []

    # -- property test against an in-memory model --------------------------------
    @settings(
        max_examples=40,
        deadline=None,
        # One run per backend class (each example makes a fresh store): differing executors.
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.differing_executors,
        ],
    )
    @given(
        batches=st.lists(
            st.tuples(
                st.booleans(),  # run as a batch?
                st.lists(
                    st.tuples(
                        st.sampled_from(["add", "delete", "revert"]),
                        st.sampled_from(["a.md", "b.md", "d/c.md"]),
                        st.integers(0, 3),
                    ),
                    min_size=1,
                    max_size=4,
                ),
            ),
            min_size=1,
            max_size=8,
        )
    )
    def test_matches_model(
        self, make_store: StoreFactory, batches: list[tuple[bool, list[tuple[str, str, int]]]]
    ) -> None:
        kb = "default"
        store = make_store()
        texts = [P1, P2, P3, ["Fourth variant."]]
        current: dict[str, int] = {}  # path -> text index
        history: dict[str, list[int | None]] = {}  # path -> text index per version
        rev_hashes: dict[int, str] = {}
        revision = 0

        def model_hash() -> str:
            return adhash.multiset_hash(
                (p, make_doc(kb, p, texts[i])[1].content_sha256) for p, i in current.items()
            )

        for as_batch, ops in batches:
            if as_batch:
                store.begin_batch(kb)
            changed = False
            for op, path, idx in ops:
                if op == "delete":
                    if path not in current:
                        with pytest.raises(DocumentNotFound):
                            store.delete_document(kb, path)
                        continue
                    store.delete_document(kb, path)
                    del current[path]
                    history[path].append(None)
                    changed = True
                    if not as_batch:
                        revision += 1
                        rev_hashes[revision] = model_hash()
                    continue
                restored = None
                if op == "revert":
                    live = [i for i, t in enumerate(history.get(path, [])) if t is not None]
                    if not live:
                        continue
                    restored = live[idx % len(live)] + 1
                    idx = history[path][restored - 1]  # type: ignore[assignment]
                out = _add(store, kb, path, texts[idx], restored_from=restored)
                if current.get(path) == idx:
                    assert out.action == "unchanged"
                    continue
                expected = "reverted" if restored else "changed" if path in current else "added"
                assert out.action == expected
                current[path] = idx
                history.setdefault(path, []).append(idx)
                changed = True
                if not as_batch:
                    revision += 1
                    rev_hashes[revision] = model_hash()
            if as_batch:
                sealed = store.end_batch(kb)
                if changed:
                    revision += 1
                    rev_hashes[revision] = model_hash()
                    assert sealed is not None and sealed.revision == revision
                else:
                    assert sealed is None
            revs = store.list_revisions(kb)
            assert store.get_kb(kb).revision == revision
            assert [d.path for d in store.list_documents(kb)] == sorted(current)
            assert revs == [] or revs[-1].hash == model_hash()
            assert {r.revision: r.hash for r in revs} == rev_hashes
            assert [r.revision for r in revs] == list(range(1, revision + 1))
            for path, versions in history.items():
                assert len(store.list_versions(kb, path)) == len(versions)
        for path, versions in history.items():
            for number, slot in enumerate(versions, start=1):
                if slot is None:
                    continue
                raw, parsed = make_doc(kb, path, texts[slot])
                assert store.get_version_content(kb, path, number)[0] == raw
                for node in parsed.nodes:
                    assert store.resolve(node.id).text == node.text
