"""The access-scoped facade (``citewise.facade``) below every interface: ``citewise
evidence`` records what the HTTP evidence route and the library record.

A real home on SQLite with one open and one restricted document (front-matter ``access:``),
a real server on 127.0.0.1 (``tests/_server.py``), the CLI in-process through typer's
``CliRunner``, and the library's ``KnowledgeBase.evidence``; each asks the same question and
the ledger entries each one appended are compared field by field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from citewise.cli.root import app
from citewise.core.search import SearchFilters
from citewise.kb import Home
from citewise.server.auth import KeyStore
from tests._server import running_server

pytestmark = pytest.mark.usefixtures("dense_off")

QUESTION = "How do I rotate keys?"
OPEN = "---\ntitle: Rotation guide\n---\n# Key rotation\n\nTo rotate keys, run the rotate tool.\n"
CLOSED = (
    "---\ntitle: Vault runbook\naccess: [alice]\n---\n# Vault keys\n\n"
    "Rotate keys of the vault every 30 days with the vault tool.\n"
)

Entry = tuple[str, str | None, str, dict[str, str], dict[str, Any]]


def _home(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(OPEN, encoding="utf-8")
    (docs / "vault.md").write_text(CLOSED, encoding="utf-8")
    home = tmp_path / "home"
    with Home.open(home) as h:
        assert h.kb().add([docs]).ok
    return home


def _appended(home: Path, step: Callable[[], object]) -> list[Entry]:
    """The ledger entries ``step`` appends, without their sequence numbers and times (an
    access entry's ``event`` becomes its distance back to the entry it decides on)."""
    with Home.open(home) as h:
        before = max((e.seq for e in h.store.ledger.query_ledger()), default=0)
    step()
    with Home.open(home) as h:
        new = [e for e in h.store.ledger.query_ledger() if e.seq > before]
    out: list[Entry] = []
    for e in new:
        payload = dict(e.payload)
        if "event" in payload:
            payload["event"] = e.seq - int(payload["event"])
        out.append((e.type, e.kb, e.principal, e.lineage, payload))
    return out


def _cli(home: Path, *extra: str) -> dict[str, Any]:
    got = CliRunner().invoke(app, ["evidence", QUESTION, "--home", str(home), "--json", *extra])
    assert got.exit_code == 0, got.output
    pack: dict[str, Any] = json.loads(got.output)
    return pack


def _library(home: Path, principal: str | None) -> None:
    with Home.open(home) as h:
        h.kb().evidence(QUESTION, filters=SearchFilters(principal=principal))


def _http(url: str, token: str | None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.post(f"{url}/kb/default/evidence", json={"query": QUESTION}, headers=headers)
    assert r.status_code == 200, r.text
    pack: dict[str, Any] = r.json()
    return pack


def test_cli_evidence_records_what_http_and_the_library_record(tmp_path: Path) -> None:
    home = _home(tmp_path)
    packs: list[dict[str, Any]] = []
    with running_server(home) as url:  # no keys: the anonymous local caller
        http = _appended(home, lambda: packs.append(_http(url, None)))
        cli = _appended(home, lambda: packs.append(_cli(home)))
    library = _appended(home, lambda: _library(home, None))
    assert [e[0] for e in http] == ["evidence", "access"]  # vault.md withheld: recorded
    assert http[1][4]["denied"] == ["vault.md"]
    assert cli == http == library
    assert packs[0]["replay_id"] == packs[1]["replay_id"]


def test_cli_as_a_principal_records_what_that_key_records(tmp_path: Path) -> None:
    home = _home(tmp_path)
    token = KeyStore(home).add("alice", "alice", ["default"])
    with running_server(home) as url:
        http = _appended(home, lambda: _http(url, token))
        cli = _appended(home, lambda: _cli(home, "--as", "alice"))
    library = _appended(home, lambda: _library(home, "alice"))
    assert [e[0] for e in http] == ["evidence", "access"]
    assert http[0][2] == "alice" and http[1][4]["denied"] == []  # alice may read vault.md
    assert cli == http == library
