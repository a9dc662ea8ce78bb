"""Uploads whose names clash in one request, and the security headers of every response
(errors and unhandled exceptions included), over a real server on 127.0.0.1 (issue 32)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from citewise.facade.uploads import name_conflicts
from citewise.kb import Home
from tests._server import serving

SECURITY_HEADERS = (
    "content-security-policy",
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
)
MD = "text/markdown"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """A real server whose app also has a route that raises an unexpected error."""
    from citewise.server.app import create_app

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as home:
        app = create_app(home)

        def boom() -> None:
            raise RuntimeError("an internal failure at /srv/secret/path")

        app.add_api_route("/boom", boom, methods=["GET"])
        with serving(app) as url:
            yield url


def test_name_conflicts_pairs_a_path_with_the_one_it_clashes_with() -> None:
    rels = ["x.md", "x.md/y.md", "a.md", "b/c.md", "a.md", "b.md"]
    assert name_conflicts(rels) == {0: "x.md/y.md", 1: "x.md", 2: "a.md", 4: "a.md"}
    assert name_conflicts(["x.md", "x.mdz/y.md", "x/y.md", "x/z.md"]) == {}


def test_clashing_names_fail_alone_naming_both_and_write_nothing(server: str) -> None:
    with httpx.Client(base_url=server, timeout=60) as c:
        files = [
            ("files", ("x.md", b"# X\n\nThe x file.\n", MD)),
            ("files", ("x.md/y.md", b"# Y\n\nThe y file.\n", MD)),
            ("files", ("z.md", b"# Z\n\nThe z file.\n", MD)),
        ]
        r = c.post("/kb/default/documents", files=files)
        assert r.status_code == 207, r.text
        for h in SECURITY_HEADERS:
            assert h in r.headers
        by_path = {f["path"]: f for f in r.json()["files"]}
        assert by_path["z.md"]["status"] == "added"
        for path, other in (("x.md", "x.md/y.md"), ("x.md/y.md", "x.md")):
            assert by_path[path]["status"] == "failed" and by_path[path]["code"] == "BAD_REQUEST"
            assert path in by_path[path]["message"] and other in by_path[path]["message"]
        docs = c.get("/kb/default/documents").json()
        assert sorted(d["path"] for d in docs["documents"]) == ["z.md"]


def test_every_response_carries_the_security_headers(server: str) -> None:
    with httpx.Client(base_url=server, timeout=60) as c:
        responses = {
            "ok": c.get("/health"),
            "not found": c.get("/kb/nope/documents"),
            "no route": c.get("/no/such/route"),
            "invalid": c.post("/kb/default/search", json={"top_k": "many"}),
            "unhandled": c.get("/boom"),
        }
    assert responses["unhandled"].status_code == 500
    body = responses["unhandled"].json()
    assert body == {"error": {"code": "INTERNAL", "message": "Internal error; see the server log."}}
    assert "/srv/secret" not in responses["unhandled"].text
    for what, r in responses.items():
        missing = [h for h in SECURITY_HEADERS if h not in r.headers]
        assert not missing, (what, r.status_code, missing)
        assert r.headers["x-frame-options"] == "DENY", what
