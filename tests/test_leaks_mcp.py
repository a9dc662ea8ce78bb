"""The leak suite over MCP (``citewise mcp`` on stdio, official SDK client): bob's tool
results are the same whether the document he may not read exists, existed or never did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citewise.core.search import SearchFilters
from citewise.server.auth import KeyStore
from tests._leak_corpus import HIDDEN, QUERIES, TOKEN, build
from tests._leak_diff import NOTE_TOPICS, diff, normalise
from tests.backends import Backend
from tests.test_mcp import _data, _run

pytestmark = pytest.mark.usefixtures("dense_off")


def _result(result: Any) -> Any:
    if result.is_error:
        return {"error": [c.text for c in result.content]}
    return normalise(_data(result))


def _tools(home: Path, key: str, hidden_cid: str, store: str | None) -> dict[str, Any]:
    async def body(s: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}

        async def call(label: str, tool: str, args: dict[str, Any]) -> Any:
            out[label] = _result(await s.call_tool(tool, args))
            return out[label]

        for q in QUERIES:
            res = await call(f"recall {q}", "recall_knowledge", {"query": q, "top_k": 10})
            for hit in res.get("hits", [])[:1]:
                cid = hit["citation_id"]
                await call(f"cite {cid}", "resolve_citation", {"citation_id": cid})
            await call(f"ask {q}", "ask", {"question": q})
        await call("cite hidden", "resolve_citation", {"citation_id": hidden_cid})
        await call("list", "list_documents", {})
        await call("list prefix", "list_documents", {"prefix": "secret/"})
        await call("list query", "list_documents", {"query": "vault"})
        await call("list page", "list_documents", {"limit": 1, "offset": 2})
        for topic in NOTE_TOPICS:
            await call(f"note {topic}", "get_note", {"topic": topic})
        note = "# Field notes\n\nThe vault rotation drill runs on Fridays.\n"
        await call("add", "add_source", {"name": "notes/new.md", "content": note})
        await call("recall after add", "recall_knowledge", {"query": "vault drill"})
        return out

    result: dict[str, Any] = _run(home, key, body, store=store)
    return result


@pytest.mark.subprocess
def test_mcp_tools_are_the_same_for_a_principal_who_may_not_read_it(
    backend: Backend, tmp_path: Path
) -> None:
    outs: dict[str, dict[str, Any]] = {}
    cid = ""
    for variant in ("with", "without"):
        store = backend.store(tmp_path / variant)
        home = build(tmp_path / variant, variant, store)
        if variant == "with":
            with backend.open(home) as h:
                res = h.kb().search(TOKEN, filters=SearchFilters(principal="alice"))
            cid = next(hit.citation_id for hit in res.hits if hit.path == HIDDEN)
        key = KeyStore(home).add("bob", "bob", ["default"])
        outs[variant] = _tools(home, key, cid, store)
    assert len(outs["without"]) > 12
    assert outs["without"]["add"]["revision"] == 2
    leaks = diff(outs["with"], outs["without"])
    assert not leaks, "\n".join(leaks[:40])
