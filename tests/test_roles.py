"""Roles on keys over a real server: each write route x each role gives the documented
status (docs/security.md, "Roles"), a reader key cannot write anywhere (HTTP, and MCP in
its own process), and keys.yaml / ``citewise keys add --role`` keep the role."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from citewise.errors import UsageError
from citewise.facade.caller import ROLES, Role
from citewise.server.auth import KeyStore
from citewise.server.roles import ROUTE_ROLES, SAFE, needed_role
from tests._server import running_server

DOC = b"# Rotation\n\nRotate keys every 90 days.\n"
V2 = b"# Rotation\n\nRotate keys every 30 days.\n"
Call = Callable[[httpx.Client, str], httpx.Response]


def _upload(c: httpx.Client, path: str, body: bytes = DOC) -> httpx.Response:
    return c.post("/kb/default/documents", files=[("files", (path, body, "text/markdown"))])


#: One valid request per write route, given the role's own names (so runs never collide).
WRITES: dict[tuple[str, str], Call] = {
    ("POST", "/kb"): lambda c, r: c.post("/kb", json={"name": f"made-{r}"}),
    ("PATCH", "/kb/{kb}"): lambda c, r: c.patch("/kb/default", json={"description": r}),
    ("DELETE", "/kb/{kb}"): lambda c, r: c.delete(f"/kb/gone-{r}"),
    ("POST", "/kb/{kb}/documents"): lambda c, r: _upload(c, f"{r}/new.md"),
    ("POST", "/kb/{kb}/documents/{doc:path}/revert"): lambda c, r: c.post(
        f"/kb/default/documents/{r}/doc.md/revert", json={"version": 1}
    ),
    ("DELETE", "/kb/{kb}/documents/{doc:path}"): lambda c, r: c.delete(
        f"/kb/default/documents/{r}/old.md"
    ),
    ("POST", "/kb/{kb}/sync"): lambda c, r: c.post(
        "/kb/default/sync", json={"folder": "", "dry_run": True}
    ),
    # The review queue (issue 38): past the role check an unknown id is 404 (the queue's
    # own states are tested in tests/test_review_http.py).
    ("POST", "/kb/{kb}/review/{ref}/approve"): lambda c, r: c.post(
        f"/kb/default/review/c_{r}/approve"
    ),
    ("POST", "/kb/{kb}/review/{ref}/release"): lambda c, r: c.post(
        f"/kb/default/review/q_{r}/release"
    ),
    ("POST", "/kb/{kb}/review/{ref}/reject"): lambda c, r: c.post(
        f"/kb/default/review/c_{r}/reject", json={"reason": r}
    ),
    # Takedown (issue 38; its states are tested in tests/test_takedown_http.py).
    ("POST", "/kb/{kb}/takedown"): lambda c, r: c.post(
        "/kb/default/takedown", json={"path": f"{r}/down.md", "reason": r}
    ),
    # Lifting a takedown (tests/test_takedown_lift.py): nothing to lift still answers 200.
    ("POST", "/kb/{kb}/untakedown"): lambda c, r: c.post(
        "/kb/default/untakedown", json={"path": f"{r}/down.md", "reason": r}
    ),
    ("POST", "/kb/{kb}/retention/apply"): lambda c, r: c.post(
        "/kb/default/retention/apply", json={"today": "2000-01-01"}
    ),
    # A web address's takedown (issue 38; its states: tests/test_web_takedown*.py).
    ("POST", "/web/takedown"): lambda c, r: c.post(
        "/web/takedown", json={"url": f"http://regs.test/{r}", "reason": r}
    ),
    ("POST", "/web/untakedown"): lambda c, r: c.post(
        "/web/untakedown", json={"url": f"http://regs.test/{r}", "reason": r}
    ),
    # The conflict queue (issue 38): an unknown id is 404 past the role check (its states
    # are tested in tests/test_conflict_review_http.py).
    ("POST", "/kb/{kb}/conflicts/{cid}/resolve"): lambda c, r: c.post(
        "/kb/default/conflicts/k_0000000000000000/resolve", json={"governs": "a", "note": r}
    ),
}
SUCCESS = {
    ("POST", "/kb"): 201,
    ("POST", "/kb/{kb}/documents"): 201,
    ("POST", "/kb/{kb}/sync"): 200,
    ("POST", "/kb/{kb}/review/{ref}/approve"): 404,
    ("POST", "/kb/{kb}/review/{ref}/release"): 404,
    ("POST", "/kb/{kb}/review/{ref}/reject"): 404,
    ("POST", "/kb/{kb}/conflicts/{cid}/resolve"): 404,
}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("roles")
    home, root = base / "home", base / "root"
    root.mkdir()
    (root / "synced.md").write_bytes(DOC)
    store = KeyStore(home)
    keys = {role: store.add(role, role, ["*"], role) for role in ROLES}
    keys["narrow"] = store.add("narrow", "narrow", ["legal"], "editor")
    with running_server(home, sync_roots=[root]) as url:
        clients = {
            name: httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {k}"})
            for name, k in keys.items()
        }
        admin = clients["admin"]
        for role in ROLES:  # what each role's own write will act on
            assert _upload(admin, f"{role}/doc.md").status_code == 201
            assert _upload(admin, f"{role}/doc.md", V2).status_code == 201
            assert _upload(admin, f"{role}/old.md").status_code == 201
            assert _upload(admin, f"{role}/down.md").status_code == 201
            assert admin.post("/kb", json={"name": f"gone-{role}"}).status_code == 201
        yield {"url": url, "c": clients}
        for c in clients.values():
            c.close()


def _routes(routes: list[Any]) -> Iterator[Any]:
    """Every route of an app, through included routers (kept apart by newer FastAPI)."""
    for r in routes:
        inner = getattr(r, "original_router", None)
        yield from _routes(inner.routes) if inner is not None else [r]


def test_every_route_that_writes_names_its_role(tmp_path: Path) -> None:
    """The app's own routes: each one a POST/PATCH/PUT/DELETE reaches is in ROUTE_ROLES
    (one missing would be admin-only, fail closed), and each write has a request here."""
    from citewise.kb import Home
    from citewise.server.app import create_app

    with Home.open(tmp_path / "home") as home:
        app = create_app(home)
        found = {(m, r.path) for r in _routes(app.routes) for m in getattr(r, "methods", ()) or ()}
    writes = {k for k in found if k[0] not in SAFE}
    assert writes and writes <= set(ROUTE_ROLES), writes - set(ROUTE_ROLES)
    assert {k for k, (role, _) in ROUTE_ROLES.items() if role != "reader"} == set(WRITES)
    assert needed_role("GET", "/anything") == ("reader", "reading")
    assert needed_role("PUT", "/kb/{kb}/new")[0] == "admin"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("route", sorted(WRITES))
def test_route_by_role(env: dict[str, Any], route: tuple[str, str], role: Role) -> None:
    needed, _ = ROUTE_ROLES[route]
    r = WRITES[route](env["c"][role], role)
    if ROLES.index(role) < ROLES.index(needed):
        assert r.status_code == 403, r.text
        error = r.json()["error"]
        assert error["code"] == "FORBIDDEN"
        assert f"needs the {needed} role" in error["message"]
        assert f"--role {needed}" in error["message"]
    else:
        assert r.status_code == SUCCESS.get(route, 200), r.text


_CHAT = {"model": "default", "messages": [{"role": "user", "content": "rotate keys?"}]}
#: One valid request per reading route: every role gets it answered.
READS: dict[tuple[str, str], Call] = {
    ("GET", "/kb"): lambda c, r: c.get("/kb"),
    ("GET", "/kb/{kb}"): lambda c, r: c.get("/kb/default"),
    ("GET", "/kb/{kb}/documents"): lambda c, r: c.get("/kb/default/documents"),
    ("GET", "/kb/{kb}/documents/{doc:path}"): lambda c, r: c.get(
        f"/kb/default/documents/{r}/doc.md"
    ),
    ("GET", "/kb/{kb}/documents/{doc:path}/versions"): lambda c, r: c.get(
        f"/kb/default/documents/{r}/doc.md/versions"
    ),
    ("POST", "/kb/{kb}/search"): lambda c, r: c.post("/kb/default/search", json={"query": "keys"}),
    ("POST", "/kb/{kb}/evidence"): lambda c, r: c.post(
        "/kb/default/evidence", json={"query": "rotate keys"}
    ),
    ("POST", "/kb/{kb}/ask"): lambda c, r: c.post(
        "/kb/default/ask", json={"question": "How often are keys rotated?"}
    ),
    ("POST", "/kb/{kb}/conversations"): lambda c, r: c.post(
        "/kb/default/conversations", json={"question": "rotate keys?"}
    ),
    ("GET", "/health/models"): lambda c, r: c.get("/health/models"),
    ("GET", "/v1/models"): lambda c, r: c.get("/v1/models"),
    ("POST", "/v1/chat/completions"): lambda c, r: c.post("/v1/chat/completions", json=_CHAT),
    ("GET", "/metrics"): lambda c, r: c.get("/metrics"),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("route", sorted(READS))
def test_reading_route_by_role(env: dict[str, Any], route: tuple[str, str], role: Role) -> None:
    assert needed_role(*route)[0] == "reader"
    r = READS[route](env["c"][role], role)
    assert r.status_code == 200, r.text


def test_reader_reads_and_asks(env: dict[str, Any]) -> None:
    c = env["c"]["reader"]
    assert c.get("/kb").status_code == 200
    assert c.get("/kb/default/documents").status_code == 200
    assert c.post("/kb/default/search", json={"query": "rotate keys"}).status_code == 200
    r = c.post("/kb/default/ask", json={"question": "How often are keys rotated?"})
    assert r.status_code == 200 and r.json()["outcome"] == "answered"
    chat = {"model": "default", "messages": [{"role": "user", "content": "rotate keys?"}]}
    assert c.post("/v1/chat/completions", json=chat).status_code == 200
    assert c.post("/kb/default/conversations", json={"question": "rotate keys?"}).is_success


def test_reader_cannot_write_anywhere(env: dict[str, Any]) -> None:
    c = env["c"]["reader"]
    for route, call in WRITES.items():
        assert call(c, "reader").status_code == 403, route
    with httpx.Client(base_url=env["url"]) as anon:  # and no key at all is 401, not 403
        assert anon.post("/kb", json={"name": "x"}).status_code == 401


def test_a_base_the_key_may_not_use_is_404_not_403(env: dict[str, Any]) -> None:
    c = env["c"]["narrow"]  # an editor of 'legal' only
    r = _upload(c, "x.md")
    assert r.status_code == 404 and r.json()["error"]["code"] == "BASE_NOT_FOUND"


def test_roles_are_stored_and_checked(tmp_path: Path) -> None:
    store = KeyStore(tmp_path)
    token = store.add("r", "r", ["*"], "Reader")
    assert store.authenticate(token).role == "reader"
    with pytest.raises(UsageError, match="reader, editor, admin"):
        store.add("x", "x", ["*"], "owner")
    data = yaml.safe_load((tmp_path / "keys.yaml").read_text("utf-8"))
    assert data["keys"][0]["role"] == "reader"
    del data["keys"][0]["role"]  # a key from before roles keeps every right
    (tmp_path / "keys.yaml").write_text(yaml.safe_dump(data), "utf-8")
    assert KeyStore(tmp_path).authenticate(token).role == "admin"
    data["keys"][0]["role"] = "root"
    (tmp_path / "keys.yaml").write_text(yaml.safe_dump(data), "utf-8")
    with pytest.raises(UsageError, match="entry 1"):
        KeyStore(tmp_path).records()


def test_safe_methods_never_need_more_than_reader() -> None:
    """A read route may be listed (the notes routes name their action) but only as reader."""
    assert all(role == "reader" for (m, _), (role, _) in ROUTE_ROLES.items() if m in SAFE)
    assert needed_role("GET", "/kb/{kb}/notes/{topic}") == ("reader", "reading a note")


@pytest.mark.subprocess
def test_a_reader_key_cannot_write_over_mcp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_mcp import _data, _run

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    home = tmp_path / "home"
    store = KeyStore(home)
    reader, editor = store.add("r", "r", ["*"], "reader"), store.add("e", "e", ["*"], "editor")

    async def add(s: Any) -> Any:
        return await s.call_tool("add_source", {"name": "ops/new.md", "content": DOC.decode()})

    refused = _run(home, reader, add)
    assert refused.is_error and "FORBIDDEN" in refused.content[0].text
    assert "--role editor" in refused.content[0].text
    assert _data(_run(home, editor, add))["ok"]

    async def listed(s: Any) -> Any:
        return _data(await s.call_tool("list_documents", {}))

    paths = [d["path"] for d in _run(home, reader, listed)["documents"]]
    assert paths == ["ops/new.md"]  # the reader reads what the editor wrote, and only that


@pytest.mark.subprocess
def test_keys_add_role_on_the_command_line(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    home = tmp_path / "home"
    made = run_cli(
        "keys", "add", "ro", "--principal", "ro", "--kbs", "*", "--role", "reader", home=home
    )
    assert made.returncode == 0 and made.stdout.strip().startswith("cw_"), made.stderr
    assert "(reader)" in made.stderr
    listed = run_cli("keys", "list", "--json", home=home, check=True)
    assert [(k["name"], k["role"]) for k in json.loads(listed.stdout)] == [("ro", "reader")]
    bad = run_cli(
        "keys", "add", "x", "--principal", "x", "--kbs", "*", "--role", "owner", home=home
    )
    assert bad.returncode != 0
    assert "unknown role 'owner'" in bad.stderr and "reader, editor, admin" in bad.stderr
    assert KeyStore(home).authenticate(made.stdout.strip()).role == "reader"
