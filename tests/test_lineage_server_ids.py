"""A conversation's lineage ids are the server's: the conversation id, the turn number and
the previous turn's answer win over what a caller sends, whose differing ids are kept apart
under ``caller_lineage`` in the answer's ledger event (issue 32)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from citewise.conversation import turn_lineage
from citewise.kb import Home
from tests._server import running_server

DOC = b"""# Agent

## Log location

On Windows, the agent writes its log to `C:\\Agent\\agent.log`.
On Linux, the agent writes its log to `/var/log/agent.log`.
"""


def test_server_ids_win_and_the_callers_are_kept_apart() -> None:
    given = {"conversation": "c-forged", "turn": "2", "parent": "a-x", "task": "t-1"}
    ids, apart = turn_lineage("c-0123456789abcdef", 2, "a-real", given)
    assert ids == {
        "conversation": "c-0123456789abcdef",
        "turn": "2",
        "parent": "a-real",
        "task": "t-1",
    }
    assert apart == {"conversation": "c-forged", "parent": "a-x"}  # turn 2 agreed
    ids, apart = turn_lineage("c-0123456789abcdef", 1, None, {"parent": "a-up"})
    assert ids["parent"] == "a-up" and apart == {}  # a first turn's parent is the caller's


def test_caller_lineage_does_not_override_the_ledgers_ids_over_http(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    home = tmp_path / "home"
    forged = {"conversation": "c-ffffffffffffffff", "turn": "7", "parent": "a-forged"}
    with running_server(home) as url, httpx.Client(base_url=url, timeout=60) as c:
        r = c.post("/kb/default/documents", files=[("files", ("agent.md", DOC, "text/markdown"))])
        assert r.status_code == 201, r.text
        r = c.post(
            "/kb/default/conversations",
            json={"question": "Where does the agent write its log on Windows?", "lineage": forged},
        )
        assert r.status_code == 200, r.text
        cid = r.json()["conversation"]["id"]
        first = r.json()["conversation"]["turns"][0]["answer_id"]
        r = c.post(
            f"/kb/default/conversations/{cid}/turns",
            json={"question": "And on Linux?", "lineage": forged | {"task": "t-1"}},
        )
        assert r.status_code == 200, r.text
    with Home.open(home) as h:
        answers = [e for e in h.store.ledger.iter_ledger() if e.type == "answer"]
    assert [e.lineage for e in answers] == [
        {"conversation": cid, "turn": "1", "parent": "a-forged"},
        {"conversation": cid, "turn": "2", "parent": first, "task": "t-1"},
    ]
    assert answers[0].payload["caller_lineage"] == {
        "conversation": "c-ffffffffffffffff",
        "turn": "7",
    }
    assert answers[1].payload["caller_lineage"] == forged
