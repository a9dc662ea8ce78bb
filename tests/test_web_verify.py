"""Dual-source verification end to end: a real knowledge base, a SearXNG stand-in and web
hosts speaking real HTTP on 127.0.0.1 (reached as ``regs.test`` through an injected
resolver; loopback is permitted only by the test policy). Every verification state is
reached by a scenario, and the ledger replays each verification offline.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from citewise.answer.models import Answer
from citewise.errors import WebNotConfigured
from citewise.kb import KnowledgeBase
from citewise.web.attach import EVENT
from citewise.web.fetcher import FetchPolicy, SafeFetcher
from citewise.web.refs import MetadataEditions
from citewise.web.replay import replay_states
from citewise.web.search import SearxngSearch
from citewise.web.snapshot import SnapshotStore
from citewise.web.verify import WebVerifier, support_by_number
from tests._web_hosts import Raw, Route, WebHost, html_page, searx_route, web_host

REG_B = """---
title: Regulation B (12 CFR Part 1002)
regulation: 12 CFR 1002
edition: "2017"
---
# 12 CFR Part 1002 Equal Credit Opportunity

## § 1002.4 General rules

(a) Discrimination. A creditor shall not discriminate against an applicant on a prohibited \
basis regarding any aspect of a credit transaction.

(b) Discouragement. A creditor shall not make any oral or written statement, in advertising \
or otherwise, to applicants or prospective applicants that would discourage on a prohibited \
basis a reasonable person from making or pursuing an application.
"""
ISO = """---
title: Medical devices quality management (ISO 13485)
---
# ISO 13485 Medical devices

## 7.3.2 Design and development planning

The organization shall document procedures for design and development of the sterile \
barrier packaging, including review, verification, validation and transfer activities.
"""
HANDBOOK = """# Kitchen handbook

The espresso grinder is cleaned every Friday with the soft brush from the drawer.
"""
CLAUSE_B = (
    "(b) Discouragement. A creditor shall not make any oral or written statement, in "
    "advertising or otherwise, to applicants or prospective applicants that would discourage "
    "on a prohibited basis a reasonable person from making or pursuing an application."
)
AMENDED_B = CLAUSE_B.replace("shall not make", "shall not make or publish").replace(
    "a reasonable person", "a reasonable person or small business"
)
Q_B = "What must a creditor not do to discourage applicants?"
LOOPBACK = (ipaddress.ip_network("127.0.0.1/32"),)


def reg_page(edition: str | None, clause: str, *, extra: str = "") -> bytes:
    ed = f" ({edition} edition)" if edition else ""
    return (
        f"<html><head><title>12 CFR Part 1002{ed}</title></head><body>"
        f"<h1>12 CFR Part 1002 Equal Credit Opportunity Act{ed}</h1>"
        f"<h2>&sect; 1002.4 General rules.</h2><p>(a) <em>Discrimination.</em> A creditor shall "
        f"not discriminate against an applicant on a prohibited basis regarding any aspect of a "
        f"credit transaction.</p><p>{clause}</p>{extra}</body></html>"
    ).encode()


@dataclass
class Rig:
    kb: KnowledgeBase
    pages: WebHost
    engine: WebHost
    snapshots: SnapshotStore

    def results(self, *paths: str, snippet: str = "", others: tuple[str, ...] = ()) -> None:
        hits = [
            {"url": f"http://regs.test:{self.pages.port}{p}", "title": p, "content": snippet}
            for p in paths
        ] + [{"url": u, "title": "elsewhere", "content": ""} for u in others]
        self.engine.routes["/search"] = searx_route(hits)

    def verifier(self, engine_url: str | None = None, **policy: Any) -> WebVerifier:
        resolve = {"regs.test": ["127.0.0.1"], "evil.test": ["10.0.0.8"]}
        fetcher = SafeFetcher(
            FetchPolicy(permit=LOOPBACK, **({"timeout": 5.0} | policy)),
            resolver=lambda host, port: resolve[host],
        )
        search = SearxngSearch(engine_url or self.engine.base, ["regs.test"], timeout=5.0)
        return WebVerifier(search, fetcher, self.snapshots)

    def ask(self, question: str = Q_B, **kw: Any) -> Answer:
        return self.kb.ask(question, web=self.verifier(**kw))

    def event(self) -> dict[str, Any]:
        entry = self.kb.store.ledger.last_event(EVENT, self.kb.name)
        assert entry is not None
        return dict(entry.payload)


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    from citewise.kb import Home

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "reg-b.md").write_text(REG_B)
    (docs / "iso-13485.md").write_text(ISO)
    (docs / "handbook.md").write_text(HANDBOOK)
    with Home.open(tmp_path / "home") as home, web_host() as pages, web_host() as engine:
        kb = home.kb("default")
        kb.add([docs])
        yield Rig(kb, pages, engine, SnapshotStore(tmp_path / "home" / "web" / "snapshots"))


def only(answer: Answer) -> dict[str, Any]:
    assert answer.outcome == "answered", answer.answer
    states = [c.verification for c in answer.citations]
    assert len(states) == 1 and states[0] is not None, states
    return states[0]


def test_verified_same_edition_same_clause_same_text(rig: Rig) -> None:
    rig.pages.routes["/ecfr/1002"] = Route(reg_page("2017", CLAUSE_B.replace("(b) ", "(b) ")))
    rig.results("/ecfr/1002")
    answer = rig.ask()
    v = only(answer)
    assert v["state"] == "verified", v
    assert v["reference"] == {"regulation": "12 CFR 1002", "edition": "2017", "clause": "1002.4(b)"}
    assert v["kb_evidence"]["citation"] == answer.citations[0].id
    assert v["web_evidence"]["edition"] == "2017" and v["web_evidence"]["sha256"]
    assert v["comparison"]["matches"] and v["comparison"]["similarity"] == 1.0
    # the public JSON carries it, and the ledger records search, fetch and comparison
    assert answer.to_json()["citations"][0]["verification"]["state"] == "verified"
    event = rig.event()
    assert event["answer_id"] == answer.trace_id
    assert len(event["searches"]) == 1 and len(rig.engine.seen) == 1  # one search per clause
    assert rig.pages.seen == [("/ecfr/1002", f"regs.test:{rig.pages.port}")]  # Host: the name
    assert event["fetches"][0]["sha256"] == v["web_evidence"]["sha256"]
    assert rig.snapshots.get(v["web_evidence"]["sha256"]).clauses["1002.4(b)"]


def test_outbound_query_is_minimal_and_recorded_as_sent(rig: Rig) -> None:
    from urllib.parse import parse_qs, urlsplit

    rig.results()
    rig.ask()
    sent = parse_qs(urlsplit(rig.engine.seen[0][0]).query)["q"][0]
    assert sent == rig.event()["searches"][0]["query"]
    assert sent.startswith('"12 CFR 1002" "1002.4(b)" 2017 ')
    assert Q_B not in sent and "what" not in sent.lower() and "must" not in sent.lower()
    assert len(sent.split()) <= 8


def test_kb_only_when_no_allowlisted_page(rig: Rig) -> None:
    rig.results(others=("http://evil.test/ecfr/1002", "https://blog.example.com/reg-b"))
    v = only(rig.ask())
    assert v["state"] == "single_source" and v["web_evidence"] is None
    assert rig.event()["searches"][0]["dropped"] == [
        "http://evil.test/ecfr/1002",
        "https://blog.example.com/reg-b",
    ]
    assert rig.event()["fetches"] == []  # nothing off the allowlist is fetched


def test_web_only_when_the_kb_lacks_the_clause(rig: Rig) -> None:
    notice = (
        "(a) Notification of action taken. A creditor shall notify an applicant of action "
        "taken within 30 days."
    )
    page = reg_page("2017", CLAUSE_B, extra=f"<h2>&sect; 1002.9 Notifications.</h2><p>{notice}</p>")
    rig.pages.routes["/ecfr/1002.9"] = Route(page)
    rig.results("/ecfr/1002.9")
    answer = rig.ask("What does 12 CFR 1002.9(a) require for the notification of action taken?")
    assert answer.outcome == "insufficient_evidence" and answer.citations == ()
    (check,) = rig.event()["comparisons"]
    assert check["state"] == "single_source" and check["kb_evidence"] is None
    assert "30 days" in check["web_evidence"]["text"]


def test_degraded_when_the_search_engine_is_down(rig: Rig) -> None:
    with web_host() as gone:
        dead = gone.base
    v = only(rig.kb.ask(Q_B, web=rig.verifier(engine_url=dead)))
    assert v["state"] == "degraded"
    assert rig.event()["searches"][0]["error"] == "SEARCH_UNAVAILABLE"


def test_degraded_when_the_page_is_blocked_or_times_out(rig: Rig) -> None:
    rig.pages.routes["/moved"] = Route(status=302, headers={"Location": "http://169.254.169.254/"})
    rig.results("/moved")
    assert only(rig.ask())["state"] == "degraded"
    assert rig.event()["fetches"][0]["error"] == "ADDRESS_BLOCKED"
    rig.pages.routes["/huge"] = Route(reg_page("2017", CLAUSE_B) * 50)
    rig.results("/huge")
    assert only(rig.ask(max_bytes=5000))["state"] == "degraded"
    assert rig.event()["fetches"][0]["error"] == "FETCH_TOO_LARGE"


def test_degraded_when_the_page_times_out(rig: Rig) -> None:
    import time

    rig.pages.routes["/slow"] = Raw(lambda handler: time.sleep(1.5))
    rig.results("/slow")
    assert only(rig.ask(timeout=0.5))["state"] == "degraded"
    assert rig.event()["fetches"][0]["error"] == "FETCH_TIMEOUT"


def test_edition_unresolved_in_the_kb_asks_nothing(rig: Rig) -> None:
    rig.results()
    v = only(rig.ask("What must the design and development planning procedures document?"))
    assert v["state"] == "edition_unresolved" and v["reference"]["edition"] is None
    assert rig.engine.seen == []


def test_edition_unresolved_on_the_web(rig: Rig) -> None:
    rig.pages.routes["/ecfr/1002"] = Route(reg_page(None, CLAUSE_B))
    rig.results("/ecfr/1002")
    v = only(rig.ask())
    assert v["state"] == "edition_unresolved" and v["web_evidence"]["edition"] is None


def test_mismatched_text_same_edition_is_a_conflict(rig: Rig) -> None:
    rig.pages.routes["/ecfr/1002"] = Route(reg_page("2017", AMENDED_B))
    rig.results("/ecfr/1002")
    v = only(rig.ask())
    assert v["state"] == "conflict" and not v["comparison"]["matches"]
    assert ["", "or publish"] in v["comparison"]["differences"]


def test_amended_edition_on_the_web_is_a_conflict_with_both_kept(rig: Rig) -> None:
    rig.pages.routes["/ecfr/1002-2022"] = Route(reg_page("2022", AMENDED_B))
    rig.results("/ecfr/1002-2022")
    v = only(rig.ask())
    assert v["state"] == "conflict" and "amended" in v["reason"]
    assert v["kb_evidence"]["edition"] == "2017" and "or publish" not in v["kb_evidence"]["text"]
    assert v["web_evidence"]["edition"] == "2022" and "or publish" in v["web_evidence"]["text"]
    assert rig.snapshots.get(v["web_evidence"]["sha256"]).text  # the web side is kept whole


def test_other_edition_with_the_same_text_is_single_source(rig: Rig) -> None:
    rig.pages.routes["/ecfr/1002-2022"] = Route(reg_page("2022", CLAUSE_B))
    rig.results("/ecfr/1002-2022")
    assert only(rig.ask())["state"] == "single_source"


def test_a_snippet_is_not_evidence(rig: Rig) -> None:
    """The engine's snippet quotes the clause word for word; the page itself does not hold
    it. Nothing is verified on the snippet's word."""
    rig.pages.routes["/ecfr/1002"] = Route(html_page("12 CFR Part 1002 (2017 edition)", "Index"))
    rig.results("/ecfr/1002", snippet=CLAUSE_B)
    v = only(rig.ask())
    assert v["state"] == "single_source"
    assert rig.event()["fetches"][0]["snippet_confirmed"] is False


def test_not_applicable_outside_regulations(rig: Rig) -> None:
    v = only(rig.ask("When is the espresso grinder cleaned?"))
    assert v["state"] == "not_applicable" and rig.engine.seen == []


def test_unverified_when_the_clause_does_not_support_the_claim(rig: Rig) -> None:
    answer = rig.kb.ask(Q_B)  # no web step
    assert answer.citations[0].verification is None
    verifier = rig.verifier()
    run = verifier.verify(answer.citations, {1: False}, MetadataEditions(rig.kb.store, "default"))
    assert run.checks[0].state == "unverified" and rig.engine.seen == []
    assert support_by_number(answer.claims) == {1: True}


@pytest.mark.parametrize("page", ["same", "amended", "down"])
def test_replay_offline_gives_the_same_states(
    rig: Rig, page: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig.pages.routes["/p"] = Route(reg_page("2017", AMENDED_B if page == "amended" else CLAUSE_B))
    rig.results("/p")
    if page == "down":
        rig.pages.routes["/p"] = Route(b"", status=503)
    answer = rig.ask()
    record = rig.event()
    rig.pages.routes.clear()
    rig.engine.routes.clear()
    import socket

    def no_network(*a: object, **k: object) -> None:
        raise AssertionError("replay touched the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    got = replay_states(record, rig.snapshots, answer.citations, support_by_number(answer.claims),
                        MetadataEditions(rig.kb.store, "default"))  # fmt: skip
    assert [(r, s) for _, r, s in got] == [(v, v) for v in [only(answer)["state"]]]


def test_http_api_verifies_with_the_default_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real server the fetcher has the product's default policy: a page on
    127.0.0.1 is refused (the block is lifted only by test code, never by configuration),
    so the citation is degraded; without configuration the request is refused with what to
    set."""
    import httpx

    from citewise.kb import Home
    from tests._server import running_server

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "reg-b.md").write_text(REG_B)
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as home:
        home.kb("default").add([docs])
    with web_host() as pages, web_host() as engine:
        pages.routes["/p"] = Route(reg_page("2017", CLAUSE_B))
        engine.routes["/search"] = searx_route(
            [{"url": pages.url("/p"), "title": "Reg B", "content": ""}]
        )
        with running_server(tmp_path / "home") as url:
            ask = url + "/kb/default/ask"
            refused = httpx.post(ask, json={"question": Q_B, "verify_web": True}, timeout=60)
            assert refused.status_code == 400
            assert "CITEWISE_WEB_SEARCH_URL" in refused.json()["error"]["message"]
            monkeypatch.setenv("CITEWISE_WEB_SEARCH_URL", engine.base)
            monkeypatch.setenv("CITEWISE_WEB_ALLOWED_HOSTS", "127.0.0.1")
            got = httpx.post(ask, json={"question": Q_B, "verify_web": True}, timeout=60).json()
            plain = httpx.post(ask, json={"question": Q_B}, timeout=60).json()
        assert pages.seen == []  # never fetched
    (cite,) = got["citations"]
    assert cite["verification"]["state"] == "degraded"
    assert "verification" not in plain["citations"][0]  # off by default


def test_cli_verify_web_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ask --verify-web``: refused with what to set when unconfigured; otherwise each
    citation shows its second-source line (degraded here: the product policy never fetches
    from 127.0.0.1). Without the flag nothing is asked of the web."""
    from typer.testing import CliRunner

    from citewise.cli.root import app
    from citewise.kb import Home

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "reg-b.md").write_text(REG_B)
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as home:
        home.kb("default").add([docs])
    run = CliRunner()
    args = ["ask", Q_B, "--home", str(tmp_path / "home")]
    with web_host() as pages, web_host() as engine:
        pages.routes["/p"] = Route(reg_page("2017", CLAUSE_B))
        engine.routes["/search"] = searx_route(
            [{"url": pages.url("/p"), "title": "", "content": ""}]
        )
        refused = run.invoke(app, [*args, "--verify-web"])
        # main() turns it into "error [WEB_NOT_CONFIGURED]: ..." and exit status 2
        assert isinstance(refused.exception, WebNotConfigured)
        assert refused.exception.exit_code == 2 and "CITEWISE_WEB_SEARCH_URL" in str(
            refused.exception
        )
        plain = run.invoke(app, args)
        assert plain.exit_code == 0 and "second source" not in plain.output
        assert engine.seen == []
        monkeypatch.setenv("CITEWISE_WEB_SEARCH_URL", engine.base)
        monkeypatch.setenv("CITEWISE_WEB_ALLOWED_HOSTS", "127.0.0.1")
        checked = run.invoke(app, [*args, "--verify-web"])
    assert checked.exit_code == 0, checked.output
    assert "second source: degraded" in checked.output and len(engine.seen) == 1
    assert pages.seen == []


def test_bundle_replay_checks_the_second_source_offline(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exported answer bundle carries the web record; replay re-verifies every citation
    from it and the snapshots (sockets refused) and names the stage when a state differs."""
    import socket

    from citewise.audit.bundle import export_bundle, replay

    rig.pages.routes["/p"] = Route(reg_page("2022", AMENDED_B))
    rig.results("/p")
    answer = rig.ask()
    bundle = export_bundle(rig.kb.home, answer.trace_id)
    assert bundle["web_verification"]["fetches"][0]["sha256"]

    def no_network(*a: object, **k: object) -> None:
        raise AssertionError("replay touched the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    report = replay(rig.kb.home, bundle)
    assert report["status"] == "reproduced", report
    assert "second_source" in report["checked_stages"]
    bundle["answer"]["citations"][0]["verification"]["state"] = "verified"
    assert replay(rig.kb.home, bundle)["first_differing_stage"] == "second_source"
    import shutil

    shutil.rmtree(rig.snapshots.root)  # the snapshots are not in this home
    partial = replay(rig.kb.home, bundle)
    assert partial["status"] == "partial" and partial["unchecked_stages"] == ["second_source"]
