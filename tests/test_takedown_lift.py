"""Lifting a takedown and applying retention as state changes (issue 38), through the
library, the real CLI in a fresh process and a real HTTP server: a lifted takedown makes
every version readable again and writes an ``untakedown`` event (no text); an expiry is
not lifted; the retention sweep runs over HTTP for admins only."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from citewise.errors import DocumentNotFound, UsageError
from citewise.governance.withhold import expire, lift_takedown, take_down
from citewise.kb import Home, KnowledgeBase
from citewise.server.auth import KeyStore
from tests._server import key_client as _client
from tests._server import lexical_finds, running_server
from tests._server import upload_markdown as _upload
from tests.conftest import run_cli
from tests.test_review import set_policy, write
from tests.test_takedown import HELD, PUBLIC, SECRET, SECRET_V2, TOKEN, _seen, _vault_ids
from tests.test_takedown import kb as kb  # the fixture

pytestmark = pytest.mark.usefixtures("dense_off")


def test_a_lifted_takedown_reads_again_with_its_own_event(kb: KnowledgeBase) -> None:
    ids = _vault_ids(kb)
    hashes = [r.hash for r in kb.revisions()]
    take_down(kb.store, kb.name, "vault.md", "court order 12", by="legal")
    assert not _seen(kb)
    done = lift_takedown(kb.store, kb.name, "vault.md", "order set aside", by="legal")
    assert done.versions == (1, 2) and done.kind == "lifted"
    assert _seen(kb) and all(TOKEN in kb.resolve(cid).text for cid in ids)
    assert [r.hash for r in kb.revisions()] == hashes
    (event,) = kb.store.ledger.query_ledger(types=("untakedown",), kb=kb.name)
    assert event.principal == "legal" and event.payload["versions"] == [1, 2]
    assert event.payload["reason"] == "order set aside" and TOKEN not in json.dumps(event.payload)
    again = lift_takedown(kb.store, kb.name, "vault.md", "twice", by="legal")
    assert again.versions == ()  # nothing left to lift: no second event
    assert len(kb.store.ledger.query_ledger(types=("untakedown",), kb=kb.name)) == 1
    with pytest.raises(UsageError):
        lift_takedown(kb.store, kb.name, "vault.md", "  ", by="legal")
    with pytest.raises(DocumentNotFound):
        lift_takedown(kb.store, kb.name, "nope.md", "x", by="legal")


def test_lifting_leaves_an_expiry_and_a_front_matter_takedown(tmp_path: Path) -> None:
    marked = "---\ntakedown: true\ntakedown_reason: withdrawn\n---\n" + SECRET
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        docs = write(tmp_path / "docs", {"guide.md": PUBLIC, "vault.md": marked})
        assert kb.add([docs]).ok
        assert lift_takedown(kb.store, kb.name, "vault.md", "x", by="a").versions == ()
        assert not _seen(kb)  # the ingested version's own takedown stays
        set_policy(h.settings.home, "retention:\n  default_days: 1\n")
        assert expire(kb.store, h.settings.home, kb.name, date(2999, 1, 1))
        assert lift_takedown(kb.store, kb.name, "guide.md", "x", by="a").versions == ()
        assert not kb.search("rotate", mode="lexical").hits  # the expiry stays


def test_http_untakedown_and_retention_are_admin_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = KeyStore(home)
    ada = keys.add("ada", "ada", ["*"], "admin")
    ed = keys.add("ed", "ed", ["*"], "editor")
    with running_server(home) as url, _client(url, ada) as a, _client(url, ed) as e:
        assert _upload(a, {"guide.md": PUBLIC, "vault.md": SECRET_V2}).status_code == 201
        body = {"path": "vault.md", "reason": "licence withdrawn"}
        assert a.post("/kb/default/takedown", json=body).status_code == 200
        assert not lexical_finds(e, TOKEN)
        lift = {"path": "vault.md", "reason": "licence renewed"}
        refused = e.post("/kb/default/untakedown", json=lift)
        assert refused.status_code == 403 and "admin role" in refused.json()["error"]["message"]
        missing = a.post("/kb/default/untakedown", json={"path": "nope.md", "reason": "x"})
        assert missing.status_code == 404
        done = a.post("/kb/default/untakedown", json=lift)
        assert done.status_code == 200, done.text
        assert done.json()["versions"] == [1] and done.json()["by"] == "ada"
        assert lexical_finds(e, TOKEN)

        set_policy(home, "retention:\n  default_days: 5\n")
        day = {"today": "2999-01-01"}
        assert e.post("/kb/default/retention/apply", json=day).status_code == 403
        bad = a.post("/kb/default/retention/apply", json={"today": "soon"})
        assert bad.status_code in (400, 422) and "today" in bad.text
        swept = a.post("/kb/default/retention/apply", json=day)
        assert swept.status_code == 200, swept.text
        got = swept.json()
        assert got["today"] == "2999-01-01" and got["withheld"] == 0
        assert {d["path"] for d in got["expired"]} == {"guide.md", "vault.md"}
        assert "5 days" in got["expired"][0]["reason"] and HELD not in swept.text
        assert not lexical_finds(e, TOKEN)


@pytest.mark.subprocess
def test_cli_untakedown(tmp_path: Path) -> None:
    home = tmp_path / "home"
    docs = write(tmp_path / "docs", {"guide.md": PUBLIC, "vault.md": SECRET})
    run_cli("add", str(docs), home=home, check=True)
    run_cli("takedown", "vault.md", "--reason", "DMCA 7", home=home, check=True)
    bad = run_cli("untakedown", "vault.md", "--reason", " ", home=home)
    assert bad.returncode == 2 and "needs a reason" in bad.stderr
    missing = run_cli("untakedown", "nope.md", "--reason", "x", home=home)
    assert missing.returncode == 3 and "nope.md" in missing.stderr
    done = run_cli(
        "untakedown", "vault.md", "--reason", "counter-notice", "--as", "legal", home=home
    )
    assert done.returncode == 0, done.stderr
    assert "takedown lifted (versions 1): counter-notice" in done.stdout
    found = run_cli("search", TOKEN, "--mode", "lexical", "--json", home=home, check=True)
    assert HELD in found.stdout
    again = run_cli("untakedown", "vault.md", "--reason", "x", "--json", home=home, check=True)
    assert json.loads(again.stdout)["versions"] == []
