"""``citewise mcp`` over stdio, driven by the official MCP SDK client; tools vs library."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

# CLI subprocesses in these tests run without the dense route (for speed)
pytestmark = pytest.mark.usefixtures("dense_off")


GUIDE = "# Key rotation\n\nTo rotate keys, run `citewise rotate` every 90 days.\n"
SECRET = "---\naccess: [alice]\n---\n# Vault\n\nThe ZEBRAQUARTZ vault rotates keys hourly.\n"


async def _session(home: Path, key: str | None, body: Any, store: str | None = None) -> Any:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = dict(os.environ, CITEWISE_HOME=str(home), CITEWISE_DENSE="off", PYTHONUTF8="1")
    if key:
        env["CITEWISE_API_KEY"] = key
    if store:
        env["CITEWISE_STORE"] = store
    params = StdioServerParameters(
        command=sys.executable, args=["-c", "from citewise.cli import main; main()", "mcp"], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await body(session)


def _run(home: Path, key: str | None, body: Any, *, store: str | None = None) -> Any:
    return asyncio.run(asyncio.wait_for(_session(home, key, body, store), timeout=120))


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data: dict[str, Any] = result.structured_content
        return data.get("result", data) if set(data) == {"result"} else data
    loaded: dict[str, Any] = json.loads(result.content[0].text)
    return loaded


@pytest.mark.subprocess
def test_every_tool_over_stdio(tmp_path: Path) -> None:
    home = tmp_path / "home"

    async def body(s: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        out: dict[str, Any] = {"tools": tools}
        out["add"] = _data(
            await s.call_tool("add_source", {"name": "ops/guide.md", "content": GUIDE})
        )
        out["add_secret"] = _data(
            await s.call_tool("add_source", {"name": "vault.md", "content": SECRET})
        )
        out["bad"] = await s.call_tool("add_source", {"name": "../x.md", "content": "x"})
        out["list"] = _data(await s.call_tool("list_documents", {"prefix": "ops/"}))
        out["recall"] = _data(await s.call_tool("recall_knowledge", {"query": "rotate keys"}))
        out["ask"] = _data(await s.call_tool("ask", {"question": "How do I rotate keys?"}))
        cid = out["ask"]["citations"][0]["id"]
        out["cite"] = _data(await s.call_tool("resolve_citation", {"citation_id": cid}))
        out["missing"] = await s.call_tool("list_documents", {"kb": "nope"})
        return out

    out = _run(home, None, body)
    assert set(out["tools"]) == {
        "recall_knowledge",
        "ask",
        "add_source",
        "list_documents",
        "resolve_citation",
        "get_recall",
        "get_note",
    }
    assert out["add"]["files"][0]["status"] == "added" and out["add"]["ok"]
    assert out["bad"].is_error and "BAD_REQUEST" in out["bad"].content[0].text
    assert [d["path"] for d in out["list"]["documents"]] == ["ops/guide.md"]
    assert out["recall"]["hits"][0]["path"] == "ops/guide.md"
    assert "ZEBRAQUARTZ" not in json.dumps(out["recall"])  # anonymous: no access list match
    assert out["ask"]["outcome"] == "answered"
    assert out["cite"]["text"] == out["ask"]["citations"][0]["excerpt"]
    assert out["missing"].is_error and "BASE_NOT_FOUND" in out["missing"].content[0].text


@pytest.mark.subprocess
def test_key_scopes_the_tools(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_cli("kb", "create", "other", home=home, check=True)
    src = tmp_path / "src"
    src.mkdir()
    (src / "vault.md").write_text(SECRET)
    (src / "guide.md").write_text(GUIDE)
    run_cli("add", str(src), home=home, check=True)
    key = run_cli("keys", "add", "a", "--principal", "alice", "--kbs", "default", home=home)
    token = key.stdout.strip()

    async def body(s: Any) -> dict[str, Any]:
        return {
            "list": _data(await s.call_tool("list_documents", {})),
            "recall": _data(await s.call_tool("recall_knowledge", {"query": "vault hourly"})),
            "other": await s.call_tool("list_documents", {"kb": "other"}),
        }

    out = _run(home, token, body)
    assert out["list"]["total"] == 2
    assert any("ZEBRAQUARTZ" in h["excerpt"] for h in out["recall"]["hits"])
    assert out["other"].is_error and "BASE_NOT_FOUND" in out["other"].content[0].text


def test_tools_match_library_functions() -> None:
    """Every tool wraps a public library function and exposes its scope-relevant arguments;
    every public KnowledgeBase method is either a tool or deliberately not one."""
    from citewise.facade.caller import LOCAL
    from citewise.facade.service import Service
    from citewise.kb import Home, KnowledgeBase
    from citewise.mcp_server import DESCRIPTIONS, LIBRARY_FUNCTIONS, build_server

    classes = {"KnowledgeBase": KnowledgeBase, "Home": Home}
    for tool, target in LIBRARY_FUNCTIONS.items():
        cls, meth = target.split(".")
        assert callable(getattr(classes[cls], meth, None)), target
        assert "Scope:" in DESCRIPTIONS[tool]
    not_tools = {
        "evidence",  # the HTTP API serves packs; agents get them through recall/ask
        "versions",
        "revert",
        "delete",
        "info",
        "document",
        "nodes",
        "revisions",
        "stats",
        "resolve",  # KnowledgeBase.resolve == Home.resolve (resolve_citation)
        "store",
        "prepare",  # the two halves of add (the tool), split so the server parses
        "commit",  # uploads outside its write lock
        "parse_version",  # a stored version parsed again, for revert (outside the lock)
        "sync",  # names a folder on the server's machine: HTTP only, under --sync-root
        "stale_answers",  # an operator's check after a sync (cite stale, sync report)
        "conversation",  # agents keep their own history; they pass lineage ids to ask
        "write_summary",  # summaries of regulations: library only (never evidence)
        "notes",  # the list of topic notes: HTTP and CLI (get_note takes a topic or title)
        "build_notes",  # an operator's step; add and sync keep built notes current
        "conflicts",  # the conflict review queue: a person's decision, CLI and HTTP only
        "resolve_conflict",
    }
    public = {n for n in dir(KnowledgeBase) if not n.startswith("_")}
    exposed = {t.split(".")[1] for t in LIBRARY_FUNCTIONS.values() if t.startswith("Know")}
    assert public == exposed | not_tools, "a new public method needs a tool or an exemption"

    server = build_server(Service.__new__(Service), LOCAL)
    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    assert set(tools) == set(LIBRARY_FUNCTIONS)
    search_params = set(inspect.signature(KnowledgeBase.search).parameters)
    recall = set(tools["recall_knowledge"].input_schema["properties"])
    assert {"query", "top_k"} <= recall and {"query", "top_k"} <= search_params
    assert {"path_prefixes", "tags"} <= recall  # SearchFilters' narrowing fields
    # issue 22: top_n, mode, filters, conditions, lineage; the recall id is read back
    assert {"top_n", "mode", "filters", "conditions", "lineage"} <= recall
    assert {"mode", "conditions", "lineage"} <= search_params
    assert {"conditions", "lineage"} <= set(tools["ask"].input_schema["properties"])
    assert {"conditions", "lineage"} <= set(inspect.signature(KnowledgeBase.ask).parameters)
    assert "recall_id" in tools["get_recall"].input_schema["properties"]
    assert "recall_id" in inspect.signature(KnowledgeBase.recall).parameters
    ask_params = set(inspect.signature(KnowledgeBase.ask).parameters)
    assert "question" in ask_params and "question" in tools["ask"].input_schema["properties"]
    doc_params = set(inspect.signature(KnowledgeBase.documents).parameters) - {"self"}
    assert doc_params <= set(tools["list_documents"].input_schema["properties"])
    assert "citation_id" in inspect.signature(Home.resolve).parameters
    assert "citation_id" in tools["resolve_citation"].input_schema["properties"]
    assert "topic" in tools["get_note"].input_schema["properties"]
    assert "topic" in inspect.signature(KnowledgeBase.note).parameters
    for t in tools.values():
        assert t.description == DESCRIPTIONS[t.name]


@pytest.mark.parametrize("key", ["cw_bad"])
@pytest.mark.subprocess
def test_bad_key_refuses_to_start(tmp_path: Path, key: str) -> None:
    run_cli(
        "keys", "add", "a", "--principal", "alice", "--kbs", "*", home=tmp_path / "h", check=True
    )
    import subprocess

    env = dict(os.environ, CITEWISE_HOME=str(tmp_path / "h"), CITEWISE_API_KEY=key)
    proc = subprocess.run(
        [sys.executable, "-c", "from citewise.cli import main; main()", "mcp"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode != 0 and "UNAUTHORIZED" in proc.stderr


def test_the_readme_lists_every_tool() -> None:
    """The docs name every MCP tool (the manifest and the docs do not drift)."""
    from citewise.mcp_server import LIBRARY_FUNCTIONS

    readme = (Path(__file__).parents[1] / "README.md").read_text("utf-8")
    for tool in LIBRARY_FUNCTIONS:
        assert f"`{tool}`" in readme, tool


LOGS = (
    "# Agent\n\n## Agent log on Windows\n\n"
    "The agent writes its log to `C:\\Agent\\agent.log` on this platform.\n\n"
    "## Agent log on Linux\n\n"
    "The agent writes its log to `/var/log/agent.log` on this platform.\n\n"
    "## Agent log rotation\n\n"
    "The agent writes its log to a new file when the log reaches 50 MB.\n"
)


@pytest.mark.subprocess
def test_recall_takes_conditions_and_returns_a_recall_id(tmp_path: Path) -> None:
    home = tmp_path / "home"

    async def body(s: Any) -> dict[str, Any]:
        _data(await s.call_tool("add_source", {"name": "agent.md", "content": LOGS}))
        args = {
            "query": "agent log",
            "top_n": 3,
            "mode": "lexical",
            "conditions": {"os": "linux"},
            "lineage": {"task": "t-5"},
        }
        out = {"recall": _data(await s.call_tool("recall_knowledge", args))}
        rid = out["recall"]["recall_id"]
        out["again"] = _data(await s.call_tool("get_recall", {"recall_id": rid}))
        out["missing"] = await s.call_tool("get_recall", {"recall_id": "r_nope"})
        out["ask"] = _data(
            await s.call_tool(
                "ask",
                {"question": "Where does the agent write its log?", "conditions": {"os": "linux"},
                 "lineage": {"task": "t-6"}},
            )
        )  # fmt: skip
        return out

    out = _run(home, None, body)
    hits = out["recall"]["hits"]
    assert out["recall"]["mode"] == "lexical"
    assert hits and "C:\\\\Agent" not in json.dumps(hits)  # a contradicting passage left out
    assert "/var/log/agent.log" in hits[0]["excerpt"]  # the matching passage first
    again = out["again"]
    assert again["recall_id"] == out["recall"]["recall_id"]
    assert [h["citation_id"] for h in again["hit_details"]] == [h["citation_id"] for h in hits]
    assert again["lineage"] == {"task": "t-5"}
    assert again["conditions"][0]["value"] == "linux"
    assert out["missing"].is_error and "No recall" in out["missing"].content[0].text
    assert "C:\\Agent" not in out["ask"]["answer"]
