"""Pinned revisions (issue 38): search, evidence and ask over the documents as they were at
an earlier revision, through the library, the CLI, HTTP and MCP; replay of a saved answer
after the corpus moved on; a clear error naming the valid range.

Real homes (SQLite; the store reads also on PostgreSQL), dense route off. The history: r1
adds ``alpha.md`` and ``beta.md``, r2 changes ``alpha.md``, r3 deletes ``beta.md``, r4 adds
``gamma.md``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from citewise.audit.bundle import export_bundle, replay
from citewise.cli.root import app
from citewise.core.access import RevisionView
from citewise.errors import CitewiseError, RevisionNotFound, UsageError
from citewise.facade import pinning
from citewise.index.pinned_revision import PinnedIndexes
from citewise.kb import Home
from citewise.store.revision_view import RevisionStore
from tests._server import running_server
from tests.backends import Backend
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.usefixtures("dense_off")

ALPHA_1 = "# Alpha\n\nThe heron feeder is refilled every Monday with barley.\n"
ALPHA_2 = "# Alpha\n\nThe heron feeder is refilled every Thursday with millet.\n"
BETA = "# Beta\n\nThe lantern drill covers the copper gate at dusk.\n"
GAMMA = "# Gamma\n\nThe walnut ledger lists every quarry permit.\n"


def _history(home: Home, docs: Path) -> None:
    """Four revisions: add alpha+beta, change alpha, delete beta, add gamma."""
    kb = home.kb()
    docs.mkdir()
    (docs / "alpha.md").write_text(ALPHA_1, encoding="utf-8")
    (docs / "beta.md").write_text(BETA, encoding="utf-8")
    kb.add([docs])
    (docs / "alpha.md").write_text(ALPHA_2, encoding="utf-8")
    kb.add([docs])
    kb.delete("beta.md")
    (docs / "gamma.md").write_text(GAMMA, encoding="utf-8")
    kb.add([docs / "gamma.md"])
    assert [r.revision for r in kb.revisions()] == [1, 2, 3, 4]


@pytest.fixture
def home(tmp_path: Path) -> Any:
    h = Home.open(tmp_path / "home")
    _history(h, tmp_path / "docs")
    yield h
    h.close()


def _paths(home: Home, query: str, revision: int | None) -> set[str]:
    result = home.kb().search(query, revision=revision, mode="lexical")
    return {h.path for h in result.hits}


# -- the store reads of a revision, on both backends ----------------------------------------
def test_store_reads_each_revision_as_it_was(backend: Backend, tmp_path: Path) -> None:
    with backend.open(tmp_path / "home") as h:
        _history(h, tmp_path / "docs")
        reads: Any = h.store
        members = {
            n: {d.path: d.version_id for d in reads.documents_at("default", n)}
            for n in (1, 2, 3, 4)
        }
        assert members == {
            1: {"alpha.md": 1, "beta.md": 1},
            2: {"alpha.md": 2, "beta.md": 1},
            3: {"alpha.md": 2},
            4: {"alpha.md": 2, "gamma.md": 1},
        }
        chunks = {c.path: c.version_id for c in reads.chunks_at("default", 1)}
        assert chunks == {"alpha.md": 1, "beta.md": 1}
        # the view's counts and hashes are those the store recorded for each revision
        for info in h.kb().revisions():
            view = RevisionStore(h.store, "default", info.revision)
            assert view.get_kb("default").document_count == info.document_count
            assert len(view.list_documents("default")) == info.document_count
            assert view.list_revisions("default")[-1] == info


def test_view_refuses_writes_and_keeps_history_as_it_was(home: Home) -> None:
    view = RevisionStore(home.store, "default", 1)
    with pytest.raises(UsageError, match="read-only"):
        view.delete_document("default", "alpha.md")
    assert [v.version_id for v in view.list_versions("default", "alpha.md")] == [1]
    assert view.get_document("default", "beta.md").version_id == 1
    assert view.generation("default") == view.generation("default")
    assert view.generation("default") != RevisionStore(home.store, "default", 2).generation(
        "default"
    )


# -- the library --------------------------------------------------------------------------
def test_search_runs_over_the_revision_asked_for(home: Home) -> None:
    assert _paths(home, "heron feeder barley Monday", 1) == {"alpha.md"}
    hits = home.kb().search("heron feeder", revision=1, mode="lexical").hits
    assert "barley" in hits[0].excerpt and hits[0].version_id == 1
    head = home.kb().search("heron feeder", mode="lexical").hits
    assert "millet" in head[0].excerpt and head[0].version_id == 2
    # deleted after r2: present at r2, absent from r3 and the head
    assert "beta.md" in _paths(home, "lantern drill copper gate", 2)
    assert "beta.md" not in _paths(home, "lantern drill copper gate", 3)
    assert "beta.md" not in _paths(home, "lantern drill copper gate", None)
    # added at r4: absent before
    assert "gamma.md" not in _paths(home, "walnut ledger quarry permit", 3)
    assert "gamma.md" in _paths(home, "walnut ledger quarry permit", 4)


def test_the_head_index_is_never_rebuilt_and_revision_indexes_are_bounded(home: Home) -> None:
    head = home.index("default")
    head.sync()
    state = head.state
    for n in (1, 2, 3):
        home.kb().search("heron", revision=n, mode="lexical")
    assert head.state is state  # the head's published state is the same object
    assert len(home.pinned) == 3
    small = PinnedIndexes(limit=2)
    first = small.get(head, 1)
    assert small.get(head, 1) is first  # cached
    small.get(head, 2)
    small.get(head, 3)
    assert len(small) == 2 and small.get(head, 1) is not first  # 1 was dropped


@pytest.mark.parametrize("bad", [0, -1, 5, 99])
def test_a_revision_out_of_range_names_the_valid_range(home: Home, bad: int) -> None:
    for call in (
        lambda: home.kb().search("heron", revision=bad),
        lambda: home.kb().evidence("heron", revision=bad),
        lambda: home.kb().ask("When is the heron feeder refilled?", revision=bad),
    ):
        with pytest.raises(RevisionNotFound, match="valid revisions: 1 to 4"):
            call()


def test_an_empty_base_says_it_has_no_revision_yet(tmp_path: Path) -> None:
    with Home.open(tmp_path / "h") as h, pytest.raises(RevisionNotFound, match="none yet"):
        h.kb().search("anything", revision=1)


def test_evidence_and_ask_at_a_revision_record_it(home: Home) -> None:
    pack = home.kb().evidence("When is the heron feeder refilled?", revision=1)
    assert any("barley" in f.text for f in pack.fragments)
    assert all("millet" not in f.text for f in pack.fragments)
    answer = home.kb().ask("When is the heron feeder refilled?", revision=1)
    assert answer.trace.get("pinned_revision") == 1
    assert all(c.version_id == 1 for c in answer.citations if c.path == "alpha.md")
    saved = home.store.ledger.get_answer(answer.trace_id)
    assert saved["revision"] == 1
    assert saved["revision_hash"] == home.kb().revisions()[0].hash
    events = home.store.ledger.query_ledger(types=("answer", "evidence"), kb="default")
    assert [e.payload.get("pinned_revision") for e in events[-2:]] == [1, 1]


def test_caller_numbers_map_to_the_kb_revision_of_their_change() -> None:
    view = RevisionView((1, 3, 4))  # this caller saw changes at KB revisions 1, 3 and 4
    assert [pinning.kb_revision(view, n, 5, "kb") for n in (1, 2, 3)] == [1, 3, 4]
    with pytest.raises(RevisionNotFound, match="valid revisions: 1 to 3"):
        pinning.kb_revision(view, 4, 5, "kb")
    with pytest.raises(RevisionNotFound, match="none yet"):
        pinning.kb_revision(RevisionView(()), 1, 5, "kb")


# -- replay of a saved answer after the corpus moved on -------------------------------------
def test_replay_reasks_at_the_saved_revision_and_a_plain_ask_sees_the_change(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLES, docs)
    question = "How long are audit logs retained?"
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        kb.add([docs])
        first = kb.ask(question)
        assert first.outcome == "answered" and first.citations
        bundle = export_bundle(h, first.trace_id)
        (docs / "data-retention-policy.md").write_text(
            "# Retention\n\nAudit logs are retained for three days only.\n", encoding="utf-8"
        )
        kb.add([docs])
        report = replay(h, bundle)
        assert report["status"] == "reproduced", report
        assert report["same_answer"] and report["same_replay_id"]
        assert report["replayed_at"] == 1 and report["head_revision"] == 2
        again = kb.ask(question)
        assert "three days" in again.answer and again.answer != first.answer
        pinned = kb.ask(question, revision=1)
        assert pinned.answer == first.answer and pinned.replay_id == first.replay_id
        assert [c.sha256 for c in pinned.citations] == [c.sha256 for c in first.citations]


def test_replay_of_a_bundle_from_another_home_is_unsupported(home: Home) -> None:
    answer = home.kb().ask("When is the heron feeder refilled?")
    bundle = export_bundle(home, answer.trace_id)
    bundle["revision_hash"] = "0" * 64
    report = replay(home, bundle)
    assert report["status"] == "unsupported" and "another home" in report["message"]


# -- the interfaces: CLI, HTTP, MCP ------------------------------------------------------------
def _cli(home: Path, *args: str) -> tuple[int, str]:
    """Exit code and output, a citewise error as ``main`` reports it (code and message)."""
    result = CliRunner().invoke(app, [*args, "--home", str(home)])
    if isinstance(result.exception, CitewiseError):
        return result.exception.exit_code, f"error [{result.exception.code}]: {result.exception}"
    return result.exit_code, result.output


def test_cli_revision_option(home: Home) -> None:
    where = home.settings.home
    code, out = _cli(where, "search", "heron feeder", "--revision", "1", "--json")
    assert code == 0, out
    assert "barley" in json.loads(out)["hits"][0]["excerpt"]
    code, out = _cli(where, "evidence", "heron feeder", "--revision", "1", "--json")
    assert code == 0 and "barley" in out and "millet" not in out
    code, out = _cli(where, "ask", "When is the heron feeder refilled?", "--revision", "7")
    assert code == 3 and "REVISION_NOT_FOUND" in out and "valid revisions: 1 to 4" in out


def test_http_revision_field(tmp_path: Path) -> None:
    where = tmp_path / "home"
    with Home.open(where) as h:
        _history(h, tmp_path / "docs")
    with running_server(where) as url, httpx.Client(base_url=url, timeout=60) as c:
        body = {"query": "heron feeder", "mode": "lexical", "revision": 1}
        r = c.post("/kb/default/search", json=body)
        assert r.status_code == 200, r.text
        assert "barley" in r.json()["hits"][0]["excerpt"]
        r = c.post("/kb/default/evidence", json={"query": "heron feeder", "revision": 1})
        assert r.status_code == 200 and "barley" in r.text and "millet" not in r.text
        q = {"question": "When is the heron feeder refilled?", "revision": 1, "trace": True}
        r = c.post("/kb/default/ask", json=q)
        assert r.status_code == 200 and r.json()["trace"]["pinned_revision"] == 1
        r = c.post("/kb/default/search", json={"query": "heron", "revision": 9})
        assert r.status_code == 404
        err = r.json()["error"]
        assert err["code"] == "REVISION_NOT_FOUND" and "1 to 4" in err["message"]
        for bad in (True, "2", 1.5):  # a JSON integer only
            r = c.post("/kb/default/ask", json={"question": "heron?", "revision": bad})
            assert r.status_code == 400 and "revision" in r.json()["error"]["message"], r.text


def test_mcp_revision_argument(home: Home) -> None:
    from citewise.facade.caller import LOCAL
    from citewise.facade.service import Service
    from citewise.mcp_server import build_server

    server = build_server(Service(home), LOCAL)

    async def calls() -> tuple[Any, Any]:
        ok = await server.call_tool("recall_knowledge", {"query": "heron feeder", "revision": 1})
        try:
            await server.call_tool("ask", {"question": "heron?", "revision": 8})
        except Exception as exc:  # the SDK's ToolError
            return ok, str(exc)
        return ok, None

    ok, refused = asyncio.run(calls())
    assert "barley" in json.dumps(ok, default=str)
    assert refused is not None and "REVISION_NOT_FOUND" in refused and "1 to 4" in refused


def test_cite_check_reasks_at_the_saved_revision(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLES, docs)
    where = tmp_path / "home"
    with Home.open(where) as h:
        h.kb().add([docs])
        answer = h.kb().ask("How long are audit logs retained?")
        (docs / "data-retention-policy.md").write_text("# Retention\n\nKept a week.\n")
        h.kb().add([docs])
    code, out = _cli(where, "cite", "check", answer.trace_id, "--reask", "--json")
    report = json.loads(out)
    assert code == 1 and report["stale"]  # the cited text changed in the head...
    assert report["reask"]["status"] == "reproduced"  # ...and revision 1 still answers so
    assert report["reask"]["replayed_at"] == 1 and report["reask"]["same_answer"]


def test_a_reader_pins_in_its_own_numbering_and_never_sees_hidden_text(tmp_path: Path) -> None:
    """bob may not read ``vault.md``: its changes never move his numbers, his range names
    only revisions he saw, and a pinned search never shows its text."""
    from citewise.facade.caller import Caller
    from citewise.facade.service import Service

    docs = tmp_path / "docs"
    docs.mkdir()
    vault = "---\naccess: [alice]\n---\n# Vault\n\nThe heron vault code is {}.\n"
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        (docs / "alpha.md").write_text(ALPHA_1, encoding="utf-8")
        kb.add([docs])  # r1: alpha (bob's 1)
        (docs / "vault.md").write_text(vault.format("tern"), encoding="utf-8")
        kb.add([docs])  # r2: vault, hidden from bob
        (docs / "alpha.md").write_text(ALPHA_2, encoding="utf-8")
        kb.add([docs])  # r3: alpha changed (bob's 2)
        (docs / "vault.md").write_text(vault.format("plover"), encoding="utf-8")
        kb.add([docs])  # r4: hidden again
        service = Service(h)
        bob = Caller("bob", "bob", frozenset({"*"}), "reader")
        alice = Caller("alice", "alice", frozenset({"*"}), "reader")
        first = service.search(bob, "default", "heron feeder", revision=1)
        assert "barley" in first.hits[0].excerpt
        second = service.search(bob, "default", "heron vault feeder", revision=2)
        assert {hit.path for hit in second.hits} == {"alpha.md"}
        assert "millet" in second.hits[0].excerpt
        with pytest.raises(RevisionNotFound, match="valid revisions: 1 to 2"):
            service.search(bob, "default", "heron", revision=3)
        # alice sees every change: her revision 2 is the KB's, with the first vault text
        hits = service.search(alice, "default", "heron vault code", revision=2).hits
        assert any("tern" in hit.excerpt for hit in hits)
        assert all("plover" not in hit.excerpt for hit in hits)
