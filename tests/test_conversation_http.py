"""Conversations and lineage over a real HTTP server (issue 22)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from citewise.errors import UsageError
from citewise.kb import Home
from tests._server import running_server

# These tests are about turns and rewrites, not the dense route (kept out of the model)
pytestmark = pytest.mark.usefixtures("dense_off")


DOC = b"""# Agent

## Log location

On Windows, the agent writes its log to `C:\\Agent\\agent.log`.
On Linux, the agent writes its log to `/var/log/agent.log`.
"""


def test_conversation_turns_and_lineage_over_http(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_server(home) as url, httpx.Client(base_url=url, timeout=60) as c:
        r = c.post("/kb/default/documents", files=[("files", ("agent.md", DOC, "text/markdown"))])
        assert r.status_code == 201, r.text
        r = c.post(
            "/kb/default/conversations",
            json={"question": "Where does the agent write its log on Windows?"},
        )
        assert r.status_code == 200, r.text
        cid = r.json()["conversation"]["id"]
        assert "C:\\Agent" in r.json()["answer"]["answer"]
        r = c.post(
            f"/kb/default/conversations/{cid}/turns",
            json={"question": "And on Linux?", "trace": True, "lineage": {"task": "t-1"}},
        )
        assert r.status_code == 200, r.text
        body = r.json()
        assert "/var/log/agent.log" in body["answer"]["answer"]
        assert "C:\\Agent" not in body["answer"]["answer"]
        assert body["answer"]["trace"]["rewrite"]["standalone"] == (
            "Where does the agent write its log on Linux?"
        )
        assert [t["number"] for t in body["conversation"]["turns"]] == [1, 2]
        r = c.post("/kb/default/conversations/c-0123456789abcdef/turns", json={"question": "And?"})
        assert r.status_code == 400 and "No conversation" in r.text
        # a plain ask takes conditions and lineage in its body
        r = c.post(
            "/kb/default/ask",
            json={
                "question": "Where does the agent write its log?",
                "conditions": {"os": "Linux"},
                "lineage": {"task": "t-2", "parent": "p-1"},
            },
        )
        assert r.status_code == 200, r.text
        assert "C:\\Agent" not in r.json()["answer"]
        r = c.post("/kb/default/ask", json={"question": "Where is the log?", "lineage": {"x": "1"}})
        assert r.status_code == 400 and "lineage" in r.text
    with Home.open(home) as h:
        event = h.store.ledger.last_event("answer", "default")
        assert event is not None
        assert event.lineage == {"parent": "p-1", "task": "t-2"}
        assert event.payload["conditions"]["stated"][0]["source"] == "caller"


def test_a_conversation_belongs_to_its_principal(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "agent.md").write_bytes(DOC)
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        kb.add([docs])
        chat = kb.conversation(owner="alice")
        chat.ask("Where does the agent write its log on Linux?")
        assert len(kb.conversation(chat.id, owner="alice").turns) == 1
        with pytest.raises(UsageError, match="No conversation"):
            kb.conversation(chat.id, owner="bob")
