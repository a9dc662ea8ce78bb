"""Takedown and retention over HTTP and the CLI (issue 38): a real server over a real home
(``POST /kb/{kb}/takedown``, admin only; resolve answers WITHHELD with the path and the
reason), and the real ``citewise`` command in a fresh process (``takedown``, ``retention
apply --today``, ``cite resolve``)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from citewise.server.auth import KeyStore
from tests._server import key_client as _client
from tests._server import lexical_finds, running_server
from tests._server import upload_markdown as _upload
from tests.conftest import run_cli
from tests.test_review import set_policy, write
from tests.test_takedown import HELD, PUBLIC, SECRET, TOKEN

pytestmark = pytest.mark.usefixtures("dense_off")


def _found(c: httpx.Client) -> bool:
    return lexical_finds(c, TOKEN)


def test_http_takedown_is_admin_only_and_withholds_every_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = KeyStore(home)
    ada = keys.add("ada", "ada", ["*"], "admin")
    ed = keys.add("ed", "ed", ["*"], "editor")
    with running_server(home) as url, _client(url, ada) as a, _client(url, ed) as e:
        assert _upload(a, {"guide.md": PUBLIC, "vault.md": SECRET}).status_code == 201
        assert _found(e)
        body = {"path": "vault.md", "reason": "licence withdrawn"}
        refused = e.post("/kb/default/takedown", json=body)
        assert refused.status_code == 403 and "admin role" in refused.json()["error"]["message"]
        assert _found(e)
        missing = a.post("/kb/default/takedown", json={"path": "nope.md", "reason": "x"})
        assert missing.status_code == 404
        done = a.post("/kb/default/takedown", json=body)
        assert done.status_code == 200, done.text
        assert done.json()["versions"] == [1] and done.json()["by"] == "ada"

        assert not _found(e)
        ev = e.post("/kb/default/evidence", json={"query": f"What is the {TOKEN} vault?"})
        assert HELD not in ev.text
        ask = e.post("/kb/default/ask", json={"question": f"What is the {TOKEN} vault?"})
        assert HELD not in ask.text
        docs = e.get("/kb/default/documents").json()
        assert "vault.md" not in json.dumps(docs)
        assert e.get("/kb/default/documents/vault.md").status_code == 404


def test_http_resolve_of_a_taken_down_citation_names_path_and_reason(tmp_path: Path) -> None:
    from citewise.kb import Home

    home = tmp_path / "home"
    with Home.open(home) as h:
        kb = h.kb()
        assert kb.add([write(tmp_path / "docs", {"guide.md": PUBLIC, "vault.md": SECRET})]).ok
        cid = next(n.id for n in kb.nodes("vault.md") if HELD in n.text)
    keys = KeyStore(home)
    ada = keys.add("ada", "ada", ["*"], "admin")
    with running_server(home) as url, _client(url, ada) as a:
        resolve = _resolve_route(a, cid)
        assert resolve.status_code == 200 and HELD in resolve.text
        a.post("/kb/default/takedown", json={"path": "vault.md", "reason": "licence withdrawn"})
        gone = _resolve_route(a, cid)
        assert gone.status_code == 410, gone.text
        error = gone.json()["error"]
        assert error["code"] == "WITHHELD"
        assert "taken down" in error["message"] and "vault.md" in error["message"]
        assert "licence withdrawn" in error["message"] and HELD not in gone.text


def _resolve_route(c: httpx.Client, cid: str) -> httpx.Response:
    return c.get(f"/citations/{cid}")


def _node_of(home: Path) -> str:
    from citewise.kb import Home

    with Home.open(home) as h:
        return next(n.id for n in h.kb().nodes("vault.md") if HELD in n.text)


@pytest.mark.subprocess
def test_cli_takedown_retention_and_resolve(tmp_path: Path) -> None:
    home = tmp_path / "home"
    docs = write(tmp_path / "docs", {"guide.md": PUBLIC, "vault.md": SECRET})
    run_cli("add", str(docs), home=home, check=True)
    found = run_cli("search", TOKEN, "--mode", "lexical", "--json", home=home, check=True)
    assert HELD in found.stdout
    cid = _node_of(home)

    bad = run_cli("takedown", "vault.md", "--reason", " ", home=home)
    assert bad.returncode == 2 and "needs a reason" in bad.stderr
    done = run_cli("takedown", "vault.md", "--reason", "DMCA notice 7", "--as", "legal", home=home)
    assert done.returncode == 0, done.stderr
    assert "taken down (versions 1): DMCA notice 7" in done.stdout
    gone = run_cli("search", TOKEN, "--mode", "lexical", "--json", home=home)
    assert gone.returncode == 3 and json.loads(gone.stdout)["hits"] == []  # 3: nothing found
    resolved = run_cli("cite", "resolve", cid, home=home)
    assert resolved.returncode == 3 and HELD not in resolved.stdout + resolved.stderr
    assert "withheld: taken down: vault.md" in resolved.stderr
    assert "DMCA notice 7" in resolved.stderr

    set_policy(home, "retention:\n  default_days: 10\n")
    none = run_cli("retention", "apply", "--today", "2000-01-01", home=home, check=True)
    assert "nothing expired" in none.stdout
    later = run_cli("retention", "apply", "--today", "2999-01-01", "--json", home=home, check=True)
    (expired,) = json.loads(later.stdout)
    assert expired["path"] == "guide.md" and expired["kind"] == "expired"
    assert "10 days" in expired["reason"]
    rotate = run_cli("search", "rotate", "--json", home=home)
    assert rotate.returncode == 3 and json.loads(rotate.stdout)["hits"] == []
    bad_day = run_cli("retention", "apply", "--today", "soon", home=home)
    assert bad_day.returncode == 2 and "YYYY-MM-DD" in bad_day.stderr
