"""The verification rules (pure), text comparison, clause references and snapshots."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import get_args

import pytest

from citewise.web.compare import MATCH_THRESHOLD, compare, contains, tokens
from citewise.web.fetcher import FetchedPage
from citewise.web.refs import editions_named, from_metadata, regulation_ids
from citewise.web.snapshot import clause_candidates, snapshot_of, snippet_confirmed
from citewise.web.states import STATES, EditionMatch, Evidence, State, WebOutcome, decide

ALL = [
    Evidence(*combo)
    for combo in itertools.product(
        (True, False),
        (True, False),
        (True, False),
        (True, False),
        get_args(WebOutcome),
        get_args(EditionMatch),
        (True, False),
    )
]


def test_states_are_exactly_the_seven() -> None:
    assert set(STATES) == set(get_args(State)) and len(STATES) == 7
    reached = {decide(e)[0] for e in ALL}
    assert reached == set(STATES)


def test_rules_over_every_combination() -> None:
    for e in ALL:
        _check_rules(e)


def _check_rules(e: Evidence) -> None:
    state, reason = decide(e)
    assert state in STATES and reason
    only_way = (
        e.regulation_clause
        and e.kb_has_clause
        and e.supports_claim
        and e.kb_edition_known
        and e.web == "found"
        and e.web_edition == "same"
        and e.text_matches
    )
    assert (state == "verified") == only_way, e
    kb_usable = not e.kb_has_clause or (e.supports_claim and e.kb_edition_known)
    if e.web == "unavailable" and e.regulation_clause and kb_usable:
        assert state == "degraded", e
    if e.regulation_clause and e.kb_has_clause and not e.supports_claim:
        assert state == "unverified", e  # whatever the sources say
    if not e.regulation_clause:
        assert state == "not_applicable", e
    trusted = e.regulation_clause and e.kb_has_clause and e.supports_claim and e.kb_edition_known
    if trusted and e.web == "found" and e.web_edition == "different":
        assert state == ("single_source" if e.text_matches else "conflict"), e
    if trusted and e.web == "found" and e.web_edition == "unknown":
        assert state == "edition_unresolved", e


def test_normalisation_ignores_format_only() -> None:
    kb = "(b) Discouragement. A creditor shall not make any “oral” statement."
    web = (
        "<p>(b) <em>Discouragement</em>.\u00a0A creditor shall not make any "
        '"oral"[1] state-\nment.</p>'
    )
    assert tokens(kb) == tokens(web)
    assert compare(kb, web).similarity == 1.0
    assert compare(kb, "Preamble. " + web + " More text follows.").matches  # a quote inside
    assert contains(web, "shall NOT make") and not contains(web, "shall make")


def test_one_word_changes_do_not_match() -> None:
    kb = "A creditor shall not make any oral or written statement to applicants."
    for web in (
        kb.replace("shall not", "shall"),
        kb.replace("oral or written", "written"),
        kb.replace("applicants", "applicants or guarantors"),
        kb.replace("any", "every"),
    ):
        c = compare(kb, web)
        assert not c.matches and c.similarity < MATCH_THRESHOLD and c.differences


def test_cjk_text_compares_by_character() -> None:
    kb = "第十二条 网络运营者应当制定网络安全事件应急预案。"
    assert compare(kb, "第十二条  网络运营者应当制定网络安全事件应急预案。 第十三条").matches
    assert not compare(kb, "第十二条 网络运营者可以制定网络安全事件应急预案。").matches


def test_regulation_ids_and_editions() -> None:
    assert regulation_ids("See ISO 13485:2016 and 12 CFR Part 1002.") == [
        ("12 CFR 1002", None),
        ("ISO 13485", "2016"),
    ]
    assert regulation_ids("GB 50016-2014 code for fire protection") == [("GB 50016", "2014")]
    assert editions_named("12 CFR Part 1002 (2017 edition)", "12 CFR 1002") == {"2017"}
    assert editions_named("ISO 13485:2016 replaces ISO 13485:2003", "ISO 13485") == {"2016", "2003"}
    assert from_metadata({"regulation": "12 CFR 1002", "edition": 2017}, "x") == (
        "12 CFR 1002",
        "2017",
    )
    assert from_metadata({}, "ISO 13485:2016 Medical devices") == ("ISO 13485", "2016")
    assert from_metadata({}, "Kitchen handbook") == (None, None)


def test_clause_candidates_include_sub_paragraphs() -> None:
    got = clause_candidates(
        [("1002.4", "1002.4 General rules (a) one (b) two (1) three"), ("1002.4(a)", "(a) one"),
         ("1002.4(b)", "(b) two"), ("1002.4(b)(1)", "(1) three"), (None, "preamble")]
    )  # fmt: skip
    assert got["1002.4(b)"] == "(b) two\n(1) three"
    assert got["1002.4"] == "1002.4 General rules (a) one (b) two (1) three"


def _page(body: bytes, ctype: str = "text/html") -> FetchedPage:
    return FetchedPage("http://x.test/", "http://x.test/", 200, ctype, None, body, "t", "1.2.3.4")


def test_snapshot_text_clauses_and_snippets() -> None:
    html = b"<title>12 CFR 1002</title><h2>&sect; 1002.4 Rules</h2><p>(b) A creditor shall not.</p>"
    snap = snapshot_of(_page(html))
    assert snap.clauses["1002.4(b)"] == "(b) A creditor shall not."
    assert "A creditor shall not." in snap.text and len(snap.sha256) == 64 and snap.scope == "web"
    assert snippet_confirmed("a creditor SHALL not …", snap)
    assert not snippet_confirmed("a creditor shall always", snap)
    assert not snippet_confirmed("", snap)
    plain = snapshot_of(_page(b"\xff\xfe\x00garbage", "text/plain"))
    assert plain.clauses == {}


def test_snapshot_store_round_trip_and_refusals(tmp_path: Path) -> None:
    from citewise.errors import CorruptContent, NotFoundError, UsageError
    from citewise.web.snapshot import SnapshotStore

    body = b"<title>12 CFR 1002</title><p>text</p>"
    snap = snapshot_of(_page(body))
    store = SnapshotStore(tmp_path / "snaps")
    store.put(snap, body)
    assert store.get(snap.sha256) == snap and store.body(snap.sha256) == body
    with pytest.raises(UsageError):
        store.get("../../etc/passwd")
    with pytest.raises(NotFoundError):
        store.get("0" * 64)
    (tmp_path / "snaps" / snap.sha256[:2] / f"{snap.sha256}.body").write_bytes(b"changed")
    with pytest.raises(CorruptContent):
        store.get(snap.sha256)
