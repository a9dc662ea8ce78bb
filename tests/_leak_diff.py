"""Collect what one principal receives from every route, and normalise the per-run fields.

Only values that are random or clock-based per run are replaced, each by its exact key:
answer trace ids, timestamps and route timings. Everything else (scores, counts, revision
numbers and hashes, ids, error codes and messages) must match exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from tests._leak_corpus import HIDDEN, QUERIES, TOKEN

#: key -> why its value differs between two runs over identical data
PER_RUN = {
    "trace_id": "random per answer",
    "recall_id": "random per recall (secrets.token_hex)",
    "ms": "timing",
    "created_at": "clock",
    "added_at": "clock",
}


def normalise(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<per-run>" if k in PER_RUN else normalise(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    return value


def _body(r: httpx.Response) -> Any:
    try:
        return r.json()
    except ValueError:
        return r.text


#: Documents and graph points every read of the Markdown corpus names.
PATHS = ("guide/rotation.md", "policy/retention.md", HIDDEN, "nope/never.md")
GRAPH_NODES = (
    "guide/rotation.md",
    "policy/retention.md",
    "index.md",
    "Key rotation",
    "Vault internals",
    HIDDEN,
    "Retention policy",
)


#: Topics of the Markdown corpus's notes (issue 40): one every reader has, one only the
#: hidden document's reader has (a heading it shares with a public title), its title.
NOTE_TOPICS = ("Retention policy", "Key rotation", "Vault internals", TOKEN.lower())


def read_routes(
    url: str,
    token: str,
    hidden_cid: str,
    *,
    dense: bool,
    queries: Sequence[str] = QUERIES,
    paths: Sequence[str] = PATHS,
    graph_nodes: Sequence[str] = GRAPH_NODES,
) -> dict[str, Any]:
    """Every read route (no writes), as ``{label: [status, normalised JSON]}``; ``queries``,
    ``paths`` and ``graph_nodes`` default to the Markdown corpus's (``_leak_corpus``)."""
    out: dict[str, Any] = {}
    with httpx.Client(base_url=url, headers={"X-API-Key": token}, timeout=120) as c:

        def get(label: str, path: str, **params: Any) -> Any:
            r = c.get(path, params=params)
            out[label] = [r.status_code, normalise(_body(r))]
            return _body(r)

        def post(label: str, path: str, body: dict[str, Any]) -> Any:
            r = c.post(path, json=body)
            out[label] = [r.status_code, normalise(_body(r))]
            return _body(r)

        modes = ("lexical", "vector", "hybrid") if dense else ("lexical", "hybrid")
        cited: list[str] = []
        for q in queries:
            for mode in modes:
                res = post(f"search {mode} {q}", "/kb/default/search", {"query": q, "mode": mode})
                cited += [h["citation_id"] for h in res.get("hits", [])[:1]]
            post(f"evidence {q}", "/kb/default/evidence", {"query": q})
            post(f"evidence deep {q}", "/kb/default/evidence", {"query": q, "profile": "deep"})
            post(f"ask {q}", "/kb/default/ask", {"question": q, "trace": True})
        for label, filters in (
            ("path", {"path_prefixes": ["secret/"]}),
            ("tag", {"tags": ["ops"]}),
            ("metadata", {"metadata": {"title": "Vault internals"}}),
        ):
            body = {"query": "vault rotation", "filters": filters}
            post(f"search filtered {label}", "/kb/default/search", body)
            post(f"evidence filtered {label}", "/kb/default/evidence", body)
        for cid in sorted(set(cited)):
            get(f"citation {cid}", f"/citations/{cid}")
        get("citation hidden", f"/citations/{hidden_cid}")
        if dense:
            return out
        get("kb list", "/kb")
        get("kb info", "/kb/default")
        get("kb missing", "/kb/nope")
        get("health", "/health")
        get("models", "/health/models")
        get("documents", "/kb/default/documents")
        get("documents query", "/kb/default/documents", query="vault")
        get("documents prefix", "/kb/default/documents", prefix="secret/")
        get("documents page", "/kb/default/documents", limit=1, offset=1)
        for path in paths:
            get(f"document {path}", f"/kb/default/documents/{path}")
            get(f"document nodes {path}", f"/kb/default/documents/{path}", nodes="true")
        for path in paths:
            get(f"versions {path}", f"/kb/default/documents/{path}/versions")
        for node in graph_nodes:
            get(f"graph {node}", f"/kb/default/graph/{node}")
        listed = get("notes", "/kb/default/notes")
        topics = [n["topic"] for n in listed.get("notes", [])] if isinstance(listed, dict) else []
        for topic in [*topics, *NOTE_TOPICS]:
            get(f"note {topic}", f"/kb/default/notes/{topic}")
    return out


def diff(a: Any, b: Any, where: str = "") -> list[str]:
    """Paths of the leaves that differ (``label/key/index``), with both values, so a
    failure names exactly what leaked."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            d
            for k in sorted(a.keys() | b.keys(), key=str)
            for d in diff(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{where}/{k}")
        ]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in diff(x, y, f"{where}/{i}")
        ]
    return [] if a == b else [f"{where}: {str(a)[:200]!r} != {str(b)[:200]!r}"]


def write_routes(url: str, token: str) -> dict[str, Any]:
    """A public upload, the reads that show its revision, then a delete (all by bob)."""
    out: dict[str, Any] = {}
    new = "# Field notes\n\nThe vault rotation drill runs on Fridays.\n"
    with httpx.Client(base_url=url, headers={"X-API-Key": token}, timeout=120) as c:

        def keep(label: str, r: httpx.Response) -> Any:
            out[label] = [r.status_code, normalise(_body(r))]
            return _body(r)

        keep(
            "upload",
            c.post("/kb/default/documents", files={"files": ("notes/new.md", new.encode())}),
        )
        keep("kb info after upload", c.get("/kb/default"))
        keep("versions after upload", c.get("/kb/default/documents/notes/new.md/versions"))
        keep("search after upload", c.post("/kb/default/search", json={"query": "vault drill"}))
        keep("delete", c.delete("/kb/default/documents/notes/new.md"))
        keep("kb info after delete", c.get("/kb/default"))
    return out


def hidden_path_routes(url: str, token: str, case: str) -> dict[str, Any]:
    """What bob sees when he names the hidden path itself (existence oracles)."""
    out: dict[str, Any] = {}
    doc = f"/kb/default/documents/{HIDDEN}"
    with httpx.Client(base_url=url, headers={"X-API-Key": token}, timeout=120) as c:

        def keep(label: str, r: httpx.Response) -> None:
            out[label] = [r.status_code, normalise(_body(r))]

        if case == "read":
            keep("versions", c.get(doc + "/versions"))
            keep("revert", c.post(doc + "/revert", json={"version": 1}))
            keep("delete", c.delete(doc))
        else:  # write: upload to the hidden path, then look at what it became
            body = b"# Mine\n\nBob's own notes.\n"
            keep("upload", c.post("/kb/default/documents", files={"files": (HIDDEN, body)}))
            keep("document", c.get(doc))
            keep("versions", c.get(doc + "/versions"))
            keep("kb info", c.get("/kb/default"))
    return out
