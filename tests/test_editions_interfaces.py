"""Editions through the HTTP API (a real server on 127.0.0.1) and the real CLI:
``current_only`` / ``as_of`` switches, and the edition on every hit and citation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._server import running_server
from tests.conftest import run_cli

FIXTURES = Path(__file__).parent / "fixtures" / "editions"
Q = "What does 12 CFR 1002.4(b) say about discouragement?"
DOCS = ("reg-b-2011.md", "reg-b-2017-20417.xml", "reg-b-2030.md")


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("edsrv") / "home"
    with running_server(home) as base:
        files = [("files", (name, (FIXTURES / name).read_bytes())) for name in DOCS]
        r = httpx.post(base + "/kb/default/documents", files=files, timeout=120)
        assert r.status_code == 201, r.text
        yield base


def _search(url: str, **filters: object) -> dict[str, object]:
    r = httpx.post(url + "/kb/default/search", json={"query": Q, "filters": filters}, timeout=60)
    assert r.status_code == 200, r.text
    body: dict[str, object] = r.json()
    return body


def test_http_current_only_by_default_and_switchable(url: str) -> None:
    default = _search(url)
    hits = default["hits"]
    assert isinstance(hits, list) and hits
    assert {h["path"] for h in hits} == {"reg-b-2017-20417.xml"}
    assert hits[0]["regulation"]["effective_date"] == "2022-01-01"
    every = _search(url, current_only=False)
    assert isinstance(every["hits"], list)
    assert "reg-b-2011.md" in {h["path"] for h in every["hits"]}


def test_http_as_of_and_a_bad_date(url: str) -> None:
    body = _search(url, as_of="2015-06-01")
    assert isinstance(body["hits"], list)
    assert {h["path"] for h in body["hits"]} == {"reg-b-2011.md"}
    r = httpx.post(
        url + "/kb/default/search",
        json={"query": Q, "filters": {"as_of": "someday"}},
        timeout=60,
    )
    assert r.status_code == 400 and "YYYY-MM-DD" in r.text


def test_http_answer_citations_carry_the_edition(url: str) -> None:
    r = httpx.post(url + "/kb/default/ask", json={"question": Q}, timeout=120)
    assert r.status_code == 200, r.text
    cites = r.json()["citations"]
    assert cites and all(c["regulation"]["edition"] == "2017-20417" for c in cites)


@pytest.mark.subprocess
def test_cli_as_of_and_all_editions(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in DOCS:
        (docs / name).write_bytes((FIXTURES / name).read_bytes())
    home = tmp_path / "home"
    run_cli("add", str(docs), home=home, check=True)
    asof = run_cli("search", Q, "--as-of", "2015-06-01", "--json", home=home, check=True)
    hits = json.loads(asof.stdout)["hits"]
    assert {h["path"] for h in hits} == {"reg-b-2011.md"}
    every = run_cli("search", Q, "--all-editions", "--json", home=home, check=True)
    assert "reg-b-2011.md" in {h["path"] for h in json.loads(every.stdout)["hits"]}
    named = run_cli("search", "§ 1002.4(b) of the 2011 edition", home=home, check=True).stdout
    assert "lookup found: the 2011 edition is reg-b-2011.md" in named
    text = run_cli("ask", Q, home=home, check=True).stdout
    assert "12 CFR 1002, edition 2017-20417, clause 1002.4(b), effective 2022-01-01" in text
    bad = run_cli("search", Q, "--as-of", "someday", home=home)
    assert bad.returncode != 0 and "YYYY-MM-DD" in bad.stderr


@pytest.mark.subprocess
def test_an_as_of_answer_replays_with_its_date(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in DOCS:
        (docs / name).write_bytes((FIXTURES / name).read_bytes())
    home = tmp_path / "home"
    run_cli("add", str(docs), home=home, check=True)
    asked = run_cli("ask", Q, "--as-of", "2015-06-01", "--json", home=home, check=True)
    answer = json.loads(asked.stdout)
    assert {c["path"] for c in answer["citations"]} == {"reg-b-2011.md"}
    bundle = tmp_path / "bundle.json"
    run_cli("export", answer["trace_id"], "--out", str(bundle), home=home, check=True)
    assert json.loads(bundle.read_text())["conditions"]["filters"]["as_of"] == "2015-06-01"
    report = json.loads(run_cli("replay", str(bundle), "--json", home=home).stdout)
    assert report["status"] == "reproduced" and report["same_answer"], report
