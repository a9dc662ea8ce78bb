"""The leak suite over restricted binary documents (issue 32): a PDF restricted by its
sidecar and a spreadsheet restricted by its folder's ``.citewise.yaml``.

As in ``test_leaks.py``: real servers on 127.0.0.1 over real homes on each store backend;
one home never held the restricted files, one holds them (added, then a second version from
a sidecar change), one held them and deleted them. bob may not read them: every route's
output (search, evidence, ask, citations, documents, versions, graph) is the same in all
three, and the answer bundles he can export hold none of their text. alice may read them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.audit.bundle import export_bundle
from citewise.core.search import SearchFilters
from citewise.kb import Home
from citewise.server.auth import KeyStore
from tests._leak_corpus import PUBLIC
from tests._leak_diff import diff, read_routes
from tests._server import running_server
from tests.backends import Backend
from tests.test_realdocs import tiny_pdf
from tests.test_sidecar_meta import write, xlsx_bytes

PDF_TOKEN = "MARMOTLEDGER"
XLSX_TOKEN = "OCELOTSHEET"
#: Text of each restricted file that no question contains (questions are echoed back).
SECRETS = ("runs hourly on the vault host", f"{XLSX_TOKEN} vault rotation 12")
PDF = "secret/ledger.pdf"
XLSX = "secret/rotation.xlsx"
HIDDEN_FILES: dict[str, bytes | str] = {
    PDF: tiny_pdf(
        [
            (720, f"Vault ledger {PDF_TOKEN}: key rotation runs hourly on the vault host."),
            (700, "The retention period for audit logs is 7 days in the vault ledger."),
        ]
    ),
    f"{PDF}.meta.yaml": "access: [alice]\ntitle: Vault ledger\n",
    XLSX: xlsx_bytes(f"{XLSX_TOKEN} vault rotation"),
    "secret/.citewise.yaml": "files:\n  '*.xlsx': {access: [alice], tags: [ops]}\n",
}
PUBLIC_FILES: dict[str, bytes | str] = {
    **PUBLIC,
    "reports/public.pdf": tiny_pdf([(720, "Public report: key rotation every quarter.")]),
    "reports/public.xlsx": xlsx_bytes("public rotation"),
}
QUERIES = (
    f"What is {PDF_TOKEN}?",
    f"What is {XLSX_TOKEN}?",
    "vault rotation",
    "What is the retention period for audit logs?",
)
PATHS = ("guide/rotation.md", "reports/public.pdf", PDF, XLSX, "nope/never.pdf")
GRAPH_NODES = ("guide/rotation.md", "reports/public.pdf", PDF, XLSX, "Vault ledger")
VARIANTS = ("with", "deleted")


def build(home_dir: Path, variant: str, store: str | None) -> Path:
    src = home_dir.parent / f"src-{home_dir.name}"
    with Home.open(home_dir, store=store) as h:
        kb = h.kb()
        assert kb.add([write(src / "public", PUBLIC_FILES)]).ok
        if variant == "without":
            return home_dir
        hidden = write(src / "hidden", HIDDEN_FILES)
        assert kb.add([hidden]).ok
        if variant == "with":  # a second version of each from a metadata change
            write(hidden, {f"{PDF}.meta.yaml": "access: [alice]\ntitle: Vault ledger\ntags: [x]\n"})
            write(hidden, {"secret/.citewise.yaml": "files:\n  '*.xlsx': {access: [alice]}\n"})
            assert [f.status for f in kb.add([hidden]).files] == ["changed", "changed"]
        else:
            kb.delete(PDF)
            kb.delete(XLSX)
    return home_dir


@pytest.fixture(autouse=True)
def _dense_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


@pytest.fixture(scope="module")
def homes(
    module_backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[Path, dict[str, str]]]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("leak-binary")
    out = {}
    try:
        for variant in ("without", *VARIANTS):
            home = build(root / variant, variant, module_backend.store(root / variant))
            keys = KeyStore(home)
            out[variant] = (home, {p: keys.add(p, p, ["default"]) for p in ("alice", "bob")})
    finally:
        mp.undo()
    return out


@pytest.fixture(scope="module")
def hidden_cid(module_backend: Backend, homes: dict[str, tuple[Path, dict[str, str]]]) -> str:
    """A real citation id into the restricted PDF: to bob it must look like none."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    try:
        with module_backend.open(homes["with"][0]) as h:
            res = h.kb().search(PDF_TOKEN, filters=SearchFilters(principal="alice"))
    finally:
        mp.undo()
    return next(hit.citation_id for hit in res.hits if hit.path == PDF)


def _reads(backend: Backend, home: Path, token: str, cid: str) -> dict[str, Any]:
    """Every read route, then the bundles of the answers the caller's asks saved."""
    with running_server(home, store=backend.store(home)) as url:
        out = read_routes(
            url, token, cid, dense=False, queries=QUERIES, paths=PATHS, graph_nodes=GRAPH_NODES
        )
        with httpx.Client(base_url=url, headers={"X-API-Key": token}, timeout=120) as c:
            ids = [
                c.post("/kb/default/ask", json={"question": q}).json()["trace_id"] for q in QUERIES
            ]
    with backend.open(home) as h:
        bundles = [export_bundle(h, answer_id) for answer_id in ids]
    return {"routes": out, "exported": json.dumps(bundles)}


@pytest.fixture(scope="module")
def bob_without(
    module_backend: Backend, homes: dict[str, tuple[Path, dict[str, str]]], hidden_cid: str
) -> dict[str, Any]:
    home, keys = homes["without"]
    return _reads(module_backend, home, keys["bob"], hidden_cid)


@pytest.mark.parametrize("variant", VARIANTS)
def test_bob_sees_the_same_whether_the_restricted_pdf_and_xlsx_exist(
    module_backend: Backend,
    homes: dict[str, tuple[Path, dict[str, str]]],
    hidden_cid: str,
    bob_without: dict[str, Any],
    variant: str,
) -> None:
    home, keys = homes[variant]
    got = _reads(module_backend, home, keys["bob"], hidden_cid)
    assert len(got["routes"]) > 40
    leaks = diff(got["routes"], bob_without["routes"])
    assert not leaks, "\n".join(leaks[:40])
    for secret in SECRETS:
        assert secret not in json.dumps(got["routes"])
        assert secret not in got["exported"]


def test_alice_reads_them(
    module_backend: Backend,
    homes: dict[str, tuple[Path, dict[str, str]]],
    hidden_cid: str,
    bob_without: dict[str, Any],
) -> None:
    """The suite is live: the reader's outputs change and hold both files' text."""
    home, keys = homes["with"]
    got = _reads(module_backend, home, keys["alice"], hidden_cid)
    routes = json.dumps(got["routes"])
    for secret in SECRETS:
        assert secret in routes
        assert secret in got["exported"]
    assert len(diff(got["routes"], bob_without["routes"])) > 20
    versions = got["routes"][f"versions {PDF}"]
    assert versions[0] == 200 and len(versions[1]) == 2  # both versions are hers to see
