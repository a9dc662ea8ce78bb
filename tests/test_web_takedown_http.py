"""A web address's takedown, its lifting and web retention through the CLI and HTTP
(issue 38), and the leak check: a withheld snapshot's text is in no response.

The snapshot is stored as the verifier stores one (``SnapshotStore.put`` of a parsed
page), so these tests need no web host; the verification path is in test_web_takedown.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from citewise.errors import SnapshotWithheld
from citewise.server.auth import KeyStore
from citewise.web.fetcher import FetchedPage
from citewise.web.snapshot import SnapshotStore, snapshot_of
from tests._server import key_client as _client
from tests._server import running_server
from tests.conftest import run_cli
from tests.test_review import set_policy

pytestmark = pytest.mark.usefixtures("dense_off")

#: Text only the fetched page holds; it must never leave once the page is withheld.
PAGE_TEXT = "Quarterly tariff schedule zebracorn seventeen"
ASKED = "https://regs.test/part-9"
FINAL = "https://www.regs.test/title-12/part-9"


def _seed(home: Path, *, days_ago: int = 0) -> str:
    """One snapshot of ``ASKED`` (redirected to ``FINAL``) in ``home``; its sha256."""
    when = datetime.now(UTC) - timedelta(days=days_ago)
    body = f"<html><head><title>Part 9</title></head><body><p>{PAGE_TEXT}</p></body></html>"
    page = FetchedPage(ASKED, FINAL, 200, "text/html", "utf-8", body.encode(),
                       when.isoformat(timespec="seconds"), "203.0.113.9")  # fmt: skip
    snap = snapshot_of(page)
    SnapshotStore(home / "web" / "snapshots").put(snap, page.body)
    return snap.sha256


def _text(home: Path, sha: str) -> str:
    """The snapshot's text, or the SNAPSHOT_WITHHELD message."""
    try:
        return SnapshotStore(home / "web" / "snapshots").get(sha).text
    except SnapshotWithheld as exc:
        return f"error: {exc}"


def _events(home: Path, kind: str) -> list[dict[str, object]]:
    from citewise.kb import Home

    with Home.open(home) as h:
        return [dict(e.payload) | {"by": e.principal}
                for e in h.store.ledger.iter_ledger() if e.type == kind]  # fmt: skip


@pytest.mark.subprocess
def test_cli_takedown_url_lift_and_web_retention(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_cli("kb", "list", home=home, check=True)  # the home exists
    sha = _seed(home, days_ago=30)

    neither = run_cli("takedown", "--reason", "R", home=home)
    assert neither.returncode == 2 and "--url" in neither.stderr
    both = run_cli("takedown", "a.md", "--url", ASKED, "--reason", "R", home=home)
    assert both.returncode == 2 and "one thing" in both.stderr
    not_web = run_cli("takedown", "--url", "ftp://x/y", "--reason", "R", home=home)
    assert not_web.returncode == 2 and "not a web address" in not_web.stderr

    # The final address, spelled with another host case and a fragment, finds it.
    done = run_cli("takedown", "--url", "https://WWW.regs.test/title-12/part-9#s1",
                   "--reason", "court order 12", "--as", "legal", home=home)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "taken down (1 web snapshots): court order 12" in done.stdout
    assert "withheld" in _text(home, sha) and PAGE_TEXT not in _text(home, sha)
    again = run_cli("takedown", "--url", FINAL, "--reason", "x", home=home, check=True)
    assert "already taken down" in again.stdout
    (event,) = _events(home, "web_takedown")
    assert event["by"] == "legal" and event["reason"] == "court order 12"
    assert PAGE_TEXT not in json.dumps(event)

    # A takedown is lifted by the address taken down (another address lifts nothing).
    other = run_cli("untakedown", "--url", ASKED, "--reason", "x", home=home, check=True)
    assert "no takedown to lift" in other.stdout
    lifted = run_cli("untakedown", "--url", FINAL, "--reason", "order set aside", "--json",
                     home=home, check=True)  # fmt: skip
    assert json.loads(lifted.stdout)["changed"] is True
    assert PAGE_TEXT in _text(home, sha)

    today = datetime.now(UTC).date().isoformat()
    kept = run_cli("retention", "apply", "--today", today, home=home, check=True)
    assert "nothing expired" in kept.stdout  # no retention.web_days: snapshots are kept
    set_policy(home, "retention:\n  web_days: 10\n")
    swept = run_cli("retention", "apply", "--today", today, home=home, check=True)
    assert "web: 1 snapshots expired" in swept.stdout and "web_days" in swept.stdout
    assert PAGE_TEXT not in _text(home, sha)
    assert [e["by"] for e in _events(home, "web_expired")] == ["retention policy"]


def test_http_web_takedown_is_home_admin_only_and_leaks_no_text(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = KeyStore(home)
    ada = keys.add("ada", "ada", ["*"], "admin")
    kim = keys.add("kim", "kim", ["default"], "admin")  # admin of one base only
    ed = keys.add("ed", "ed", ["*"], "editor")
    sha = _seed(home, days_ago=30)
    body = {"url": ASKED, "reason": "publisher request 4"}
    seen: list[httpx.Response] = []
    with running_server(home) as url, _client(url, ada) as a, _client(url, kim) as k, \
            _client(url, ed) as e:  # fmt: skip
        refused = e.post("/web/takedown", json=body)
        assert refused.status_code == 403 and "admin role" in refused.json()["error"]["message"]
        scoped = k.post("/web/takedown", json=body)
        assert scoped.status_code == 403 and "every knowledge base" in scoped.text
        bad = a.post("/web/takedown", json={"url": "docs/a.md", "reason": "x"})
        assert bad.status_code == 400 and "not a web address" in bad.text
        done = a.post("/web/takedown", json=body)
        assert done.status_code == 200, done.text
        got = done.json()
        assert got["changed"] and got["by"] == "ada" and got["kind"] == "taken down"
        (ref,) = got["snapshots"]
        assert ref["sha256"] == sha and ref["final_url"] == FINAL and ref["fetched_at"]
        assert "publisher request 4" in _text(home, sha)
        lift = a.post("/web/untakedown", json=body | {"reason": "withdrawn"})
        assert lift.status_code == 200 and lift.json()["kind"] == "lifted"
        assert PAGE_TEXT in _text(home, sha)

        set_policy(home, "retention:\n  web_days: 7\n")
        swept = a.post("/kb/default/retention/apply", json={})
        assert swept.status_code == 200, swept.text
        # Expired once: by the day's sweep when the route opened the base, else by the call.
        web = swept.json()["web_expired"]
        assert web is None or [s["sha256"] for s in web["snapshots"]] == [sha]
        assert "expired" in _text(home, sha)
        again = a.post("/kb/default/retention/apply", json={}).json()
        assert again["web_expired"] is None
        seen += [refused, scoped, bad, done, lift, swept]
        seen += [e.post("/kb/default/ask", json={"question": "What is the tariff schedule?"})]
        seen += [e.post("/kb/default/search", json={"query": "zebracorn tariff"})]
    assert PAGE_TEXT not in _text(home, sha)
    assert len(_events(home, "web_expired")) == 1
    for r in seen:  # the page's words never come back (a query may echo its own words)
        assert PAGE_TEXT not in r.text and "seventeen" not in r.text, r.request.url


def test_opening_a_base_sweeps_web_retention_once_a_day(tmp_path: Path) -> None:
    from citewise.kb import Home

    home = tmp_path / "home"
    with Home.open(home) as h:
        h.kb()
    sha = _seed(home, days_ago=3)
    set_policy(home, "retention:\n  web_days: 5\n")
    with Home.open(home) as h:
        h.kb()  # today: fetched 3 days ago, kept
        assert PAGE_TEXT in _text(home, sha)
        h.retention.clock = lambda: datetime.now(UTC).date() + timedelta(days=3)
        h.kb()  # 6 days after the fetch: expired by the sweep of the open
        assert "expired" in _text(home, sha)
    assert len(_events(home, "web_expired")) == 1
