"""``citewise mcp``: the knowledge base as MCP tools over stdio (official ``mcp`` SDK).

Each tool is a thin wrapper over one public library function (``LIBRARY_FUNCTIONS``); the
tests compare the two so they cannot drift. Scope is the same as the HTTP API's: the API
key (``--key`` / ``CITEWISE_API_KEY``) names a principal and the knowledge bases it may
use; with no keys configured in the home the caller is the anonymous local user.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from citewise import installed_version
from citewise.config import DEFAULT_KB
from citewise.errors import CitewiseError
from citewise.facade.caller import Caller
from citewise.facade.service import Scope, Service, Upload
from citewise.jsonable import to_jsonable
from citewise.kb import Home
from citewise.server.auth import KeyStore

#: Tool name -> the library function it exposes (``Class.method``).
LIBRARY_FUNCTIONS: dict[str, str] = {
    "recall_knowledge": "KnowledgeBase.search",
    "ask": "KnowledgeBase.ask",
    "add_source": "KnowledgeBase.add",
    "list_documents": "KnowledgeBase.documents",
    "resolve_citation": "Home.resolve",
    "get_recall": "KnowledgeBase.recall",
    "get_note": "KnowledgeBase.note",
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
    "top_n (1-100) sets how many passages; mode is lexical, vector or hybrid; filters "
    "({'path': prefix, 'tag': tag, or any metadata key: value}) narrow the scope; conditions "
    "({'platform': 'linux', 'env': 'production', 'version': '2.x', 'as_of': '2024-01-01', "
    "'region': 'EU'}, with those the query states) put passages stating a matching condition "
    "first and leave out those that contradict it; lineage ids (conversation, turn, task, "
    "parent) are recorded; revision (a number a result returned) searches the documents as "
    "they were at that revision. Returns a recall_id: get_recall reads the recall back as "
    "recorded in the ledger. " + SCOPE,
    "ask": "Answer a question from a knowledge base: one of answered, insufficient_evidence, "
    "non_kb_reply or generation_unavailable; every answer sentence cites an exact source span "
    "and degradations (partial coverage, conflict, stale evidence) are stated. Optional "
    "conditions ({'platform': 'linux'}; the question's own win) select the evidence, and "
    "sufficiency.reasons says 'condition_missing: <kind>' when the answer depends on a "
    "condition not given; lineage ids (conversation, turn, task, parent) are recorded in "
    "the answer's ledger entry; revision (a number an answer returned) answers from the "
    "documents as they were at that revision. lang ('en' or 'zh'; default: the question's "
    "language) sets the language of the status line, refusals and notes (display); "
    "quotations stay as written. " + SCOPE,
    "add_source": "Add one document to a knowledge base, given its document path (name, e.g. "
    "'runbooks/keys.md') and its text (content); Markdown, text, HTML or XML, with the same "
    "checks as 'citewise add'. Returns the per-file report and the new revision. A path "
    "whose documents the key may not read is written as for a new path (reported 'added', "
    "as a path that never held anything), never refused: a write reveals nothing hidden, and "
    "the hidden versions stay in the history for the principals who may read them. Optional "
    "metadata ({'access': ['finance'], 'tags': ['q3']}: access, tags, title, edition, "
    "status) is given to the document as an upload's metadata field gives it. " + SCOPE,
    "list_documents": "List documents in the current revision of a knowledge base (path, "
    "title, version, counts, metadata), optionally filtered by path prefix, tag or a "
    "substring of path or title, with limit and offset; total counts only visible "
    "documents. " + SCOPE,
    "resolve_citation": "Return the exact text and provenance (document, version, revisions, "
    "lines, characters, sha256) of a node, chunk or span citation id from search or answer "
    "results. Citations into knowledge bases or documents outside the key's scope are "
    "reported as not found. " + SCOPE,
    "get_recall": "Return a recall recorded by recall_knowledge, by its recall_id: the "
    "query, mode, conditions, lineage and every hit's citation id, excerpt sha256, score "
    "and rank, as the ledger holds them. A recall made under another key is not found. " + SCOPE,
    "get_note": "Return the topic note on a topic (its id or title) compiled from the "
    "knowledge base without an LLM: sections definition, relations, used, figures, "
    "conflicts and discussed, every line a verbatim quotation with its exact citation "
    "(document, revision, lines, characters, excerpt, sha256; resolve_citation checks it), "
    "the note's revision with the lines changed since the previous one, and links to "
    "related notes. Notes help find sources; cite the quoted spans, not the note. Only "
    "lines from documents the key may read are returned; a note without any is not "
    "found. " + SCOPE,
}


def build_server(service: Service, caller: Caller) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        name="citewise",
        version=installed_version(),
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
        top_n: int | None = None,
        mode: Literal["lexical", "vector", "hybrid"] = "hybrid",
        path_prefixes: list[str] | None = None,
        tags: list[str] | None = None,
        filters: dict[str, str] | None = None,
        conditions: dict[str, str] | None = None,
        lineage: dict[str, str] | None = None,
        revision: int | None = None,
    ) -> dict[str, Any]:
        scope = guard(_scope, path_prefixes, tags, filters)
        n = top_n if top_n is not None else top_k
        if not 1 <= n <= 100:
            raise ToolError(f"BAD_REQUEST: top_n must be 1 to 100, not {n}.")
        result = guard(
            service.search,
            caller,
            kb,
            query,
            scope=scope,
            top_k=n,
            mode=mode,
            conditions=conditions or {},
            lineage=lineage,
            keep=True,
            revision=revision,
        )
        data: dict[str, Any] = to_jsonable(result)
        return data

    @server.tool(description=DESCRIPTIONS["get_recall"])
    def get_recall(recall_id: str, kb: str = DEFAULT_KB) -> dict[str, Any]:
        data: dict[str, Any] = guard(service.recall, caller, kb, recall_id)
        return data

    @server.tool(description=DESCRIPTIONS["ask"])
    def ask(
        question: str,
        kb: str = DEFAULT_KB,
        conditions: dict[str, str] | None = None,
        lineage: dict[str, str] | None = None,
        revision: int | None = None,
        lang: str | None = None,
    ) -> dict[str, Any]:
        answer = guard(
            service.ask,
            caller,
            kb,
            question,
            conditions=conditions,
            lineage=lineage,
            revision=revision,
            lang=lang,
        )
        data: dict[str, Any] = answer.to_json()
        return data

    @server.tool(description=DESCRIPTIONS["add_source"])
    def add_source(
        name: str, content: str, kb: str = DEFAULT_KB, metadata: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        upload = Upload(name, io.BytesIO(content.encode("utf-8")))
        report = guard(service.upload, caller, kb, [upload], "", metadata)
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

    @server.tool(description=DESCRIPTIONS["get_note"])
    def get_note(topic: str, kb: str = DEFAULT_KB) -> dict[str, Any]:
        data: dict[str, Any] = guard(service.note, caller, kb, topic)
        return data

    @server.tool(description=DESCRIPTIONS["resolve_citation"])
    def resolve_citation(citation_id: str) -> dict[str, Any]:
        data: dict[str, Any] = to_jsonable(guard(service.resolve, caller, citation_id))
        return data

    return server


def _scope(
    path_prefixes: list[str] | None, tags: list[str] | None, filters: dict[str, str] | None
) -> Scope:
    """The narrowing scope: ``filters`` keys ``path`` and ``tag`` join ``path_prefixes``
    and ``tags``; any other key is a metadata filter."""
    f = dict(filters or {})
    paths = [*(path_prefixes or ()), *([f.pop("path")] if "path" in f else [])]
    tag_list = [*(tags or ()), *([f.pop("tag")] if "tag" in f else [])]
    return Scope(tuple(paths), tuple(tag_list), tuple(sorted(f.items())))


def run_stdio(home: Path | None, key: str | None, *, store: str | None = None) -> None:
    """Serve over stdio until the client disconnects (on ``store`` when given, else the
    home's own database)."""
    with Home.open(home, store=store) as h:
        try:
            caller = KeyStore(h.settings.home).authenticate(key)
        except CitewiseError as exc:
            raise SystemExit(f"error [{exc.code}]: {exc}") from None
        build_server(Service(h), caller).run("stdio")
