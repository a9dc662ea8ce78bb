"""Web snapshots follow the takedown and retention rules (issue 38).

A real verification fetches a regulation page from a local HTTP host into the home's
snapshot store; then the address is taken down (or the snapshot expires by the policy's
``retention.web_days``) and the snapshot's text must leave replay, export and the
verifier, while its url, sha256 and fetch time stay, and the ledger says who, when and why
without any page text.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.audit.bundle import export_bundle, replay
from citewise.errors import SnapshotWithheld, UsageError
from citewise.governance.web_withhold import (
    expire_snapshots,
    lift_url_takedown,
    take_down_url,
)
from citewise.web.refs import MetadataEditions
from citewise.web.replay import replay_states
from citewise.web.verify import support_by_number
from citewise.web.withheld import address_key, load_marks, withhold_refs
from tests import test_web_verify as verify_tests
from tests._web_hosts import Route
from tests.test_web_verify import AMENDED_B, Rig, reg_page

rig = verify_tests.rig  # the fixture of the verification tests, used through ``web``


@pytest.fixture
def web(request: pytest.FixtureRequest) -> Rig:
    """A base holding Regulation B, a local page host and search engine, the snapshots."""
    got: Rig = request.getfixturevalue("rig")
    return got


#: Words of the clause that only the fetched page holds (the KB holds CLAUSE_B).
PAGE_ONLY = "or small business"


def _verified(web: Rig) -> tuple[Any, dict[str, Any]]:
    web.pages.routes["/p"] = Route(reg_page("2017", AMENDED_B))
    web.results("/p")
    answer = web.ask()
    return answer, web.event()


def _home(web: Rig) -> Any:
    return web.kb.home.settings.home


def _replay(web: Rig, answer: Any, record: dict[str, Any], live: Any = None) -> list[Any]:
    editions = MetadataEditions(web.kb.store, "default")
    return replay_states(record, web.snapshots, answer.citations,
                         support_by_number(answer.claims), editions, live)  # fmt: skip


def _events(web: Rig, kind: str) -> list[dict[str, Any]]:
    entries = web.kb.store.ledger.iter_ledger()
    return [dict(e.payload) | {"principal": e.principal} for e in entries if e.type == kind]


def test_address_key_matches_spellings_of_one_address() -> None:
    assert address_key("HTTP://Regs.Test:80/p?q=1#part") == address_key("http://regs.test/p?q=1")
    assert address_key("https://regs.test/p") != address_key("http://regs.test/p")
    assert address_key("not a url") == "not a url"


def test_takedown_withholds_replay_export_and_fetching_then_lift_restores(web: Rig) -> None:
    answer, record = _verified(web)
    (fetch,) = record["fetches"]
    sha = fetch["sha256"]
    assert PAGE_ONLY in json.dumps(export_bundle(web.kb.home, answer.trace_id))
    # Another spelling of the same address (host case, fragment) finds it.
    url = fetch["url"].replace("regs.test", "REGS.test") + "#frag"
    done = take_down_url(web.kb.store, _home(web), url, "publisher's request", by="ada")
    assert done.changed and [s["sha256"] for s in done.snapshots] == [sha]
    again = take_down_url(web.kb.store, _home(web), url, "twice", by="ada")
    assert not again.changed

    with pytest.raises(SnapshotWithheld, match="publisher's request"):
        web.snapshots.get(sha)
    with pytest.raises(SnapshotWithheld, match="taken down"):
        _replay(web, answer, record)
    bundle = export_bundle(web.kb.home, answer.trace_id)
    text = json.dumps(bundle)
    assert PAGE_ONLY not in text
    ref = bundle["citations"][0]["verification"]["web_evidence"]
    assert ref["sha256"] == sha and ref["fetched_at"] and ref["url"]
    assert ref["withheld"] == {"kind": "taken down", "reason": "publisher's request"}
    report = replay(web.kb.home, bundle)
    assert report["unchecked_stages"] == ["second_source"]
    assert "publisher's request" in report["second_source_note"]

    (event,) = _events(web, "web_takedown")
    assert event["principal"] == "ada" and event["reason"] == "publisher's request"
    assert [s["sha256"] for s in event["snapshots"]] == [sha]
    assert PAGE_ONLY not in json.dumps(event)

    # A new verification does not fetch the taken-down address: unverified, with why.
    seen = len(web.pages.seen)
    fresh = web.ask()
    assert len(web.pages.seen) == seen
    check = fresh.citations[0].verification or {}
    assert check["state"] == "degraded" and PAGE_ONLY not in json.dumps(check)
    assert "taken down: publisher's request" in check["reason"]
    assert "publisher's request" in json.dumps(web.event()["fetches"])

    lifted = lift_url_takedown(web.kb.store, _home(web), url, "licence renewed", by="ada")
    assert lifted.changed and lifted.kind == "lifted"
    assert not lift_url_takedown(web.kb.store, _home(web), url, "again", by="ada").changed
    assert [r for _, r, s in _replay(web, answer, record) if r == s]
    assert PAGE_ONLY in json.dumps(export_bundle(web.kb.home, answer.trace_id))
    assert [e["reason"] for e in _events(web, "web_untakedown")] == ["licence renewed"]


def test_takedown_needs_a_reason_and_a_web_address(web: Rig) -> None:
    with pytest.raises(UsageError, match="reason"):
        take_down_url(web.kb.store, _home(web), "http://regs.test/p", "  ", by=None)
    with pytest.raises(UsageError, match="not a web address"):
        take_down_url(web.kb.store, _home(web), "docs/a.md", "why", by=None)


def _policy(web: Rig, text: str) -> None:
    path = _home(web) / "kbs" / "default" / "policy.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_retention_expires_old_snapshots_and_a_fresh_fetch_renews(web: Rig) -> None:
    answer, record = _verified(web)
    sha = record["fetches"][0]["sha256"]
    today = datetime.now(UTC).date()
    assert expire_snapshots(web.kb.store, _home(web), "default", today + timedelta(9)) is None
    _policy(web, "retention:\n  web_days: 7\n")
    assert expire_snapshots(web.kb.store, _home(web), "default", today + timedelta(7)) is None
    done = expire_snapshots(web.kb.store, _home(web), "default", today + timedelta(8))
    assert done is not None and [s["sha256"] for s in done.snapshots] == [sha]
    assert expire_snapshots(web.kb.store, _home(web), "default", today + timedelta(9)) is None
    (event,) = _events(web, "web_expired")
    assert event["principal"] == "retention policy" and "web_days" in event["reason"]

    with pytest.raises(SnapshotWithheld, match="expired"):
        _replay(web, answer, record)
    assert PAGE_ONLY not in json.dumps(export_bundle(web.kb.home, answer.trace_id))
    # With the second source configured the replay fetches the page again, never reusing
    # the expired snapshot; the fresh fetch renews the snapshot.
    seen = len(web.pages.seen)
    got = _replay(web, answer, record, live=web.verifier().fetcher)
    assert len(web.pages.seen) == seen + 1
    assert [r for _, r, _ in got] == [s for _, _, s in got]
    assert sha not in load_marks(web.snapshots.root)["snapshots"]
    assert web.snapshots.get(sha).fetched_at >= record["fetches"][0]["fetched_at"]


def test_policy_rejects_a_bad_web_retention(web: Rig) -> None:
    from citewise.errors import BadPolicy

    _policy(web, "retention:\n  web_days: 0\n")
    with pytest.raises(BadPolicy, match=r"retention\.web_days"):
        expire_snapshots(web.kb.store, _home(web), "default", date.today())


def test_withhold_refs_keeps_identity_and_drops_text() -> None:
    marks = {"addresses": {"http://a.test/p": {"kind": "taken down", "reason": "r"}},
             "snapshots": {"f" * 64: {"kind": "expired", "reason": "old"}}}  # fmt: skip
    old = {"url": "http://b.test/q", "sha256": "f" * 64, "text": "old words",
           "fetched_at": "2026-01-01T00:00:00+00:00"}  # fmt: skip
    kept = {"url": "http://c.test/", "sha256": "e" * 64, "text": "kept"}
    value = {"hits": [{"url": "http://A.test/p", "snippet": "secret words"}],
             "fetches": [old, kept]}  # fmt: skip
    got = withhold_refs(value, marks)
    text = json.dumps(got)
    assert "secret words" not in text and "old words" not in text and "kept" in text
    assert got["fetches"][0]["sha256"] == "f" * 64
    assert got["fetches"][0]["withheld"] == {"kind": "expired", "reason": "old"}


def test_audit_log_and_cli_export_withhold_the_page_text(web: Rig) -> None:
    from typer.testing import CliRunner

    from citewise.cli.root import app

    answer, record = _verified(web)
    home = ["--home", str(_home(web))]
    log = ["audit", "log", "--type", "web_verification", *home]
    run = CliRunner()
    assert PAGE_ONLY in run.invoke(app, [*log, "--json"]).output
    take_down_url(web.kb.store, _home(web), record["fetches"][0]["url"], "r 9", by=None)
    for args in ([*log, "--json"], log, ["export", answer.trace_id, *home]):
        got = run.invoke(app, args)
        assert got.exit_code == 0, got.output
        assert PAGE_ONLY not in got.output, args
        assert "r 9" in got.output or args == log  # the text line is cut at 200 characters


_SECRET = "zq-withheld-words"
_held_ref = st.fixed_dictionaries(
    {"url": st.sampled_from(["http://a.test/p", "HTTP://A.TEST:80/p#x"]),
     "sha256": st.text("0123456789abcdef", min_size=64, max_size=64),
     "text": st.just(_SECRET), "snippet": st.just(_SECRET)}
)  # fmt: skip
_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | _held_ref,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=4),
    max_leaves=12,
)  # fmt: skip


@given(_values)
def test_withhold_refs_never_lets_a_withheld_text_through(value: Any) -> None:
    marks = {"addresses": {address_key("http://a.test/p"): {"kind": "taken down",
                                                             "reason": "r"}},
             "snapshots": {}}  # fmt: skip
    assert _SECRET not in json.dumps(withhold_refs(value, marks))


@given(
    st.sampled_from(["http", "https", "HTTP"]),
    st.from_regex(r"[a-z]{1,8}\.test", fullmatch=True),
    st.sampled_from(["", ":80", ":443", ":8080"]),
    st.from_regex(r"(/[a-z0-9]{0,5}){0,3}", fullmatch=True),
)
def test_address_key_is_stable(scheme: str, host: str, port: str, path: str) -> None:
    key = address_key(f"{scheme}://{host.upper()}{port}{path}#frag")
    assert address_key(key) == key and "#" not in key and key.startswith(scheme.lower())
