"""``citewise mcp``: the knowledge base as MCP tools over stdio (official ``mcp`` SDK).

Each tool is a thin wrapper over one public library function (``LIBRARY_FUNCTIONS``); the
tests compare the two so they cannot drift. Scope is the same as the HTTP API's: the API
key (``--key`` / ``CITEWISE_API_KEY``) names a principal and the knowledge bases it may
use; with no keys configured in the home the caller is the anonymous local user.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from citewise.config import DEFAULT_KB
from citewise.errors import CitewiseError
from citewise.jsonable import to_jsonable
from citewise.kb import Home
from citewise.server.auth import Caller, KeyStore
from citewise.server.service import Scope, Service, Upload

#: Tool name -> the library function it exposes (``Class.method``).
LIBRARY_FUNCTIONS: dict[str, str] = {
    "recall_knowledge": "KnowledgeBase.search",
    "ask": "KnowledgeBase.ask",
    "add_source": "KnowledgeBase.add",
    "list_documents": "KnowledgeBase.documents",
    "resolve_citation": "Home.resolve",
}

SCOPE = (
    "Scope: only knowledge bases this server's API key may use, and only documents whose "
    "front-matter 'access:' list names the key's principal (or that have no access list), "
    "are searched; the filtering happens before ranking, so hidden documents never appear in "
    "results, counts or diagnostics. A knowledge base or document outside that scope is "
    "reported as not found."
)

DESCRIPTIONS: dict[str, str] = {
    "recall_knowledge": "Search a knowledge base and return ranked passages, each with its "
    "exact citation (document, revision, lines, characters, excerpt, sha256) and every "
    "route's diagnostics; returns outcome 'insufficient_evidence' instead of weak matches. "
    "Optional path_prefixes and tags narrow the scope further. " + SCOPE,
    "ask": "Answer a question from a knowledge base: one of answered, insufficient_evidence, "
    "non_kb_reply or generation_unavailable; every answer sentence cites an exact source span "
    "and degradations (partial coverage, conflict, stale evidence) are stated. " + SCOPE,
    "add_source": "Add one document to a knowledge base, given its document path (name, e.g. "
    "'runbooks/keys.md') and its text (content); Markdown, text, HTML or XML, with the same "
    "checks as 'citewise add'. Returns the per-file report and the new revision. A path that "
    "holds a document the key may not read is refused. " + SCOPE,
    "list_documents": "List documents in the current revision of a knowledge base (path, "
    "title, version, counts, metadata), optionally filtered by path prefix, tag or a "
    "substring of path or title, with limit and offset; total counts only visible "
    "documents. " + SCOPE,
    "resolve_citation": "Return the exact text and provenance (document, version, revisions, "
    "lines, characters, sha256) of a node, chunk or span citation id from search or answer "
    "results. Citations into knowledge bases or documents outside the key's scope are "
    "reported as not found. " + SCOPE,
}


def build_server(service: Service, caller: Caller) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        name="citewise",
        instructions="Evidence-grounded knowledge base: every result carries exact citations.",
    )

    def guard(fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CitewiseError as exc:
            raise ToolError(f"{exc.code}: {exc}") from None

    @server.tool(description=DESCRIPTIONS["recall_knowledge"])
    def recall_knowledge(
        query: str,
        kb: str = DEFAULT_KB,
        top_k: int = 5,
        path_prefixes: list[str] | None = None,
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        scope = Scope(tuple(path_prefixes or ()), tuple(tags or ()))
        result = guard(service.search, caller, kb, query, scope=scope, top_k=top_k)
        data: dict[str, Any] = to_jsonable(result)
        return data

    @server.tool(description=DESCRIPTIONS["ask"])
    def ask(question: str, kb: str = DEFAULT_KB) -> dict[str, Any]:
        answer = guard(service.ask, caller, kb, question)
        data: dict[str, Any] = answer.to_json()
        return data

    @server.tool(description=DESCRIPTIONS["add_source"])
    def add_source(name: str, content: str, kb: str = DEFAULT_KB) -> dict[str, Any]:
        upload = Upload(name, io.BytesIO(content.encode("utf-8")))
        report = guard(service.upload, caller, kb, [upload])
        data: dict[str, Any] = to_jsonable(report)
        data["ok"] = report.ok
        return data

    @server.tool(description=DESCRIPTIONS["list_documents"])
    def list_documents(
        kb: str = DEFAULT_KB,
        prefix: str = "",
        tag: str = "",
        query: str = "",
        limit: int | None = None,
        offset: int = 0,
    ) -> dict[str, Any]:
        data: dict[str, Any] = guard(
            service.documents,
            caller,
            kb,
            prefix=prefix,
            tag=tag,
            query=query,
            limit=limit,
            offset=offset,
        )
        return data

    @server.tool(description=DESCRIPTIONS["resolve_citation"])
    def resolve_citation(citation_id: str) -> dict[str, Any]:
        data: dict[str, Any] = to_jsonable(guard(service.resolve, caller, citation_id))
        return data

    return server


def run_stdio(home: Path | None, key: str | None, *, store: str | None = None) -> None:
    """Serve over stdio until the client disconnects (on ``store`` when given, else the
    home's own database)."""
    with Home.open(home, store=store) as h:
        try:
            caller = KeyStore(h.settings.home).authenticate(key)
        except CitewiseError as exc:
            raise SystemExit(f"error [{exc.code}]: {exc}") from None
        build_server(Service(h), caller).run("stdio")
