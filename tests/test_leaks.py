"""The leak suite (issue 13): for a principal who may not read a restricted document, every
route's output is the same whether that document exists, existed, or never did.

Real servers on 127.0.0.1 over real SQLite homes (``tests/_leak_corpus.py``): one home
never held ``secret/vault.md``, one holds it (added and changed in batches of their own),
one held it and deleted it. bob may not read it; alice may (her outputs differ, so the
document is really there). HTTP here; CLI ``--as`` below; MCP in ``test_leaks_mcp.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.kb import Home
from citewise.recall.models import SearchFilters
from citewise.server.auth import KeyStore
from tests._leak_corpus import HIDDEN, QUERIES, TOKEN, build
from tests._leak_diff import diff, normalise, read_routes
from tests._server import running_server
from tests.conftest import run_cli

VARIANTS = ("with", "deleted")


@pytest.fixture(autouse=True)
def _dense_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")


def _home(root: Path, variant: str) -> tuple[Path, dict[str, str]]:
    home = build(root / variant, variant)
    keys = KeyStore(home)
    return home, {p: keys.add(p, p, ["default"]) for p in ("alice", "bob")}


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, str]]]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("leak-homes")
    try:
        return {v: _home(root, v) for v in ("without", *VARIANTS)}
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def hidden_cid(homes: dict[str, tuple[Path, dict[str, str]]]) -> str:
    """A real citation id into the hidden document (ids are content-derived, so bob could
    guess one): it must look like one that never existed."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")  # no vectors on disk: dense on is its own test
    try:
        with Home.open(homes["with"][0]) as h:
            res = h.kb().search(f"What is {TOKEN}?", filters=SearchFilters(principal="alice"))
    finally:
        mp.undo()
    return next(hit.citation_id for hit in res.hits if hit.path == HIDDEN)


def _reads(home: Path, token: str, cid: str, *, dense: bool = False) -> dict[str, Any]:
    with running_server(home, dense=dense) as url:
        return read_routes(url, token, cid, dense=dense)


@pytest.fixture(scope="module")
def bob_without(homes: dict[str, tuple[Path, dict[str, str]]], hidden_cid: str) -> dict[str, Any]:
    home, keys = homes["without"]
    return _reads(home, keys["bob"], hidden_cid)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_http_read_is_the_same_for_a_principal_who_may_not_read_it(
    homes: dict[str, tuple[Path, dict[str, str]]],
    hidden_cid: str,
    bob_without: dict[str, Any],
    variant: str,
) -> None:
    home, keys = homes[variant]
    got = _reads(home, keys["bob"], hidden_cid)
    assert len(got) > 50
    leaks = diff(got, bob_without)
    assert not leaks, "\n".join(leaks[:40])


def test_alice_sees_it(
    homes: dict[str, tuple[Path, dict[str, str]]], hidden_cid: str, bob_without: dict[str, Any]
) -> None:
    """The suite is live: the reader's outputs do change, and hold the token."""
    home, keys = homes["with"]
    got = _reads(home, keys["alice"], hidden_cid)
    assert TOKEN in json.dumps(got)
    assert len(diff(got, bob_without)) > 20


@pytest.mark.parametrize("variant", VARIANTS)
def test_dense_on_search_evidence_ask_are_the_same(
    homes: dict[str, tuple[Path, dict[str, str]]], hidden_cid: str, variant: str
) -> None:
    """With the real encoder: the vector route, convex fusion, thresholds and MMR."""
    base = _reads(homes["without"][0], homes["without"][1]["bob"], hidden_cid, dense=True)
    routes = {r["route"] for v in base.values() if isinstance(v[1], dict) for r in v[1].get("diagnostics", [])}
    assert "vector" in routes
    got = _reads(homes[variant][0], homes[variant][1]["bob"], hidden_cid, dense=True)
    leaks = diff(got, base)
    assert not leaks, "\n".join(leaks[:40])
