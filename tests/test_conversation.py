"""Conversations (issue 22): follow-ups rewritten into standalone questions with the
condition set inherited and overridable; turns stored so another process continues them;
the rewrite, conditions and lineage ids recorded in the answer's ledger entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.analysis.conditions import conditions_in
from citewise.analysis.followup import rewrite
from citewise.errors import UsageError
from citewise.kb import Home

# These tests are about turns and rewrites, not the dense route (kept out of the model)
pytestmark = pytest.mark.usefixtures("dense_off")


@pytest.mark.parametrize(
    ("previous", "follow_up", "rule", "standalone"),
    [
        ("Where is the log on Windows?", "And on Linux?", "condition_switch",
         "Where is the log on Linux?"),
        ("Where is the log on Windows?", "What about Linux?", "condition_switch",
         "Where is the log on Linux?"),
        ("Which port does the API use?", "And in staging?", "condition_switch",
         "Which port does the API use in staging?"),
        ("How do I install the fleet agent?", "What about the firmware?", "subject_switch",
         "How do I install the firmware?"),
        ("What is the fleet agent?", "Where does it write its log?", "pronoun",
         "Where does the fleet agent write its log?"),
        ("生产环境中网关的监听端口是多少？", "那测试环境呢？", "condition_switch",
         "测试环境中网关的监听端口是多少？"),
        ("网关的监听端口是多少？", "那生产环境呢？", "condition_switch",
         "在生产环境中，网关的监听端口是多少？"),
        ("什么是校准周期？", "它是多少天？", "pronoun", "校准周期是多少天？"),
        ("What is drift?", "How do I calibrate the S400?", "none",
         "How do I calibrate the S400?"),
    ],
)  # fmt: skip
def test_follow_ups_become_standalone(
    previous: str, follow_up: str, rule: str, standalone: str
) -> None:
    r = rewrite(previous, conditions_in(previous), follow_up)
    assert (r.rule, r.standalone) == (rule, standalone)
    assert rewrite(previous, conditions_in(previous), follow_up) == r  # deterministic


def test_conditions_are_inherited_and_overridden() -> None:
    prev = conditions_in("Where is the log on Linux in production?")
    r = rewrite("Where is the log on Linux in production?", prev, "How do I install it?")
    assert {(c.kind, c.value, c.source) for c in r.conditions.conditions} == {
        ("platform", "linux", "inherited"),
        ("environment", "production", "inherited"),
    }
    r = rewrite("Where is the log on Linux in production?", prev, "And on Windows?")
    assert r.conditions.value("platform") == "windows"
    assert r.conditions.value("environment") == "production"


CORPUS = """# Agent

## Install on Windows

1. Run `agent-setup.msi` as an administrator.

## Install on Linux

1. Run `sudo apt install agent` on the host.

## Log location

On Windows, the agent writes its log to `C:\\Agent\\agent.log`.
On Linux, the agent writes its log to `/var/log/agent.log`.
"""


def test_a_conversation_is_stored_continued_and_recorded(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "agent.md").write_text(CORPUS, "utf-8")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        kb.add([docs])
        chat = kb.conversation()
        first = chat.ask("Where does the agent write its log on Windows?")
        assert "C:\\Agent" in first.answer and "/var/log" not in first.answer
        cid = chat.id
    with Home.open(tmp_path / "home") as h:  # another process continues it by id
        chat = h.kb().conversation(cid)
        assert [t.question for t in chat.turns] == [
            "Where does the agent write its log on Windows?"
        ]
        second = chat.ask("And on Linux?", lineage={"task": "t-7"})
        assert "/var/log/agent.log" in second.answer and "C:\\Agent" not in second.answer
        assert second.trace["rewrite"]["standalone"] == (
            "Where does the agent write its log on Linux?"
        )
        event = h.store.ledger.last_event("answer", "default")
        assert event is not None
        assert event.payload["rewrite"]["rule"] == "condition_switch"
        assert event.lineage == {
            "conversation": cid,
            "parent": first.trace_id,
            "task": "t-7",
            "turn": "2",
        }
        assert event.payload["conditions"]["stated"][0]["value"] == "linux"
        assert len(h.kb().conversation(cid).turns) == 2
        with pytest.raises(UsageError, match="No conversation"):
            h.kb().conversation("c-0000000000000000")
        with pytest.raises(UsageError, match="lineage"):
            h.kb().ask("Where is the log?", lineage={"tsk": "x"})
        with pytest.raises(UsageError, match="not a valid id"):
            h.kb().ask("Where is the log?", lineage={"task": "a b"})


def test_questions_without_conditions_record_no_condition_fields(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "agent.md").write_text(CORPUS, "utf-8")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        kb.add([docs])
        kb.ask("How does the agent rotate?")
        event = h.store.ledger.last_event("answer", "default")
        assert event is not None
        assert not {"conditions", "rewrite", "lineage"} & set(event.payload)
