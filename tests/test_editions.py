"""Editions: regulation identity, status on a date, current-only and --as-of before ranking,
a named edition's clause (exists / does not exist), the edition on every hit, fragment and
citation, and summaries that are never cited. Fixtures: tests/fixtures/editions (SOURCE.md).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from citewise.analysis.asof import as_of_in_question, parse_as_of
from citewise.core.access import parse_filters
from citewise.core.search import SearchFilters
from citewise.errors import UsageError
from citewise.evidence import assemble
from citewise.ingest.editions import Edition, edition_status
from citewise.ingest.regulation import from_metadata
from citewise.ingest.xml_meta import regulation_metadata
from citewise.kb import Home, KnowledgeBase

FIXTURES = Path(__file__).parent / "fixtures" / "editions"
Q = "What does 12 CFR 1002.4(b) say about discouragement?"
OLD, NEW, FUTURE = "reg-b-2011.md", "reg-b-2017-20417.xml", "reg-b-2030.md"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CITEWISE_DENSE", "off")
    root = tmp_path_factory.mktemp("editions")
    docs = root / "docs"
    shutil.copytree(FIXTURES, docs, ignore=shutil.ignore_patterns("SOURCE.md"))
    with Home.open(root / "home") as home:
        kb = home.kb("default")
        kb.add([docs])
        yield kb
    mp.undo()


def paths(kb: KnowledgeBase, query: str, **filters: object) -> list[str]:
    return [h.path for h in kb.search(query, filters=SearchFilters(**filters), top_k=10).hits]  # type: ignore[arg-type]


# -- the model -------------------------------------------------------------------------
def ed(
    path: str, eff: str | None, *, declared: str = "", sup: frozenset[str] = frozenset()
) -> Edition:
    return Edition(
        path, "12 CFR 1002", path, date.fromisoformat(eff) if eff else None, declared, sup
    )


def test_status_on_a_date_current_superseded_future_withdrawn() -> None:
    eds = [
        ed("a", "2011-12-30"),
        ed("b", "2022-01-01"),
        ed("c", "2030-01-01"),
        ed("w", None, declared="withdrawn"),
    ]
    assert edition_status(eds, date(2026, 12, 1), today=True) == {
        "a": "superseded", "b": "current", "c": "future", "w": "withdrawn",
    }  # fmt: skip
    assert edition_status(eds, date(2015, 6, 1), today=False) == {
        "a": "current", "b": "future", "c": "future", "w": "withdrawn",
    }  # fmt: skip


def test_supersedes_relation_counts_only_once_the_new_edition_is_in_force() -> None:
    old = ed("old.md", None)
    new = ed("new.md", "2020-01-01", sup=frozenset({"old.md"}))
    assert edition_status([old, new], date(2021, 1, 1), today=True)["old.md"] == "superseded"
    assert edition_status([old, new], date(2019, 1, 1), today=False)["old.md"] == "current"


def test_declared_stale_status_counts_today_not_for_a_dated_past() -> None:
    marked = ed("m", "2011-01-01", declared="superseded")
    assert edition_status([marked], date(2026, 1, 1), today=True)["m"] == "superseded"
    assert edition_status([marked], date(2012, 1, 1), today=False)["m"] == "current"


def test_identity_and_edition_from_regml_preamble() -> None:
    meta = regulation_metadata((FIXTURES / NEW).read_text(encoding="utf-8"))
    assert meta == {
        "regulation": "12 CFR 1002",
        "edition": "2017-20417",
        "effective_date": "2022-01-01",
    }


def test_identity_from_gpo_annual_edition() -> None:
    head = (
        "<CFRDOC><FMTR><TITLEPG><TITLENUM>Title 14</TITLENUM><PARTS>Part 1200 to End</PARTS>"
        "<REVISED>Revised as of January 1, 2015</REVISED></TITLEPG></FMTR></CFRDOC>"
    )
    assert regulation_metadata(head) == {
        "regulation": "14 CFR 1200-End", "edition": "2015", "effective_date": "2015-01-01",
    }  # fmt: skip


def test_identity_from_titles() -> None:
    assert from_metadata({}, "ISO 13485:2016 Medical devices") == ("ISO 13485", "2016")
    assert from_metadata({}, "中华人民共和国网络安全法") == ("中华人民共和国网络安全法", None)
    assert from_metadata({}, "Kitchen handbook") == (None, None)
    assert from_metadata({"regulation": "GB 50016", "edition": "2014"}, "x") == ("GB 50016", "2014")


def test_as_of_dates() -> None:
    assert parse_as_of("2019-06-01") == date(2019, 6, 1)
    assert parse_as_of("2019") == date(2019, 12, 31)
    assert parse_as_of("2019-02") == date(2019, 2, 28)
    assert as_of_in_question("What did § 1002.4 require as of 1 June 2015?") == date(2015, 6, 1)
    assert as_of_in_question("截至2018年3月1日，第十条怎么规定？") == date(2018, 3, 1)
    assert as_of_in_question("What does § 1002.4 require?") is None
    assert as_of_in_question("关于2019年的规定第十条怎么说？") is None  # a year is not a cue
    with pytest.raises(UsageError, match="YYYY-MM-DD"):
        parse_as_of("next tuesday")
    with pytest.raises(UsageError):
        parse_filters([], as_of="2019-13-01")


# -- current-only and as-of, before ranking ---------------------------------------------
def test_current_only_question_never_cites_a_superseded_edition(kb: KnowledgeBase) -> None:
    # without the filter the old and the future editions are found: the filter removes them
    assert {OLD, FUTURE} <= set(paths(kb, Q, current_only=False))
    for filters in (SearchFilters(), SearchFilters(current_only=True)):
        answer = kb.ask(Q, filters=filters)
        assert answer.outcome == "answered"
        assert answer.citations and {c.path for c in answer.citations} == {NEW}
        assert all(c.regulation and c.regulation["status"] == "current" for c in answer.citations)
    result = kb.search(Q)
    assert result.editions is not None
    left_out = {e["path"]: e["status"] for e in result.editions["excluded"]}
    assert left_out[OLD] == "superseded" and left_out[FUTURE] == "future"


def test_as_of_picks_the_edition_in_force(kb: KnowledgeBase) -> None:
    assert set(paths(kb, Q, as_of="2015-06-01")) == {OLD}  # 2017-20417 took effect 2022
    assert set(paths(kb, Q, as_of="2023-01-01")) == {NEW}
    assert set(paths(kb, Q, as_of="2031-01-01")) == {FUTURE}
    answer = kb.ask(Q, filters=SearchFilters(as_of="2015-06-01"))
    assert {c.path for c in answer.citations} == {OLD}
    assert answer.citations[0].regulation is not None
    assert answer.citations[0].regulation["edition"] == "2011"


def test_as_of_stated_in_the_question(kb: KnowledgeBase) -> None:
    result = kb.search(Q + " as of 1 June 2015")
    assert {h.path for h in result.hits} == {OLD}
    assert result.editions is not None and result.editions["as_of_source"] == "question"


def test_as_of_before_a_law_took_effect_finds_nothing(kb: KnowledgeBase) -> None:
    q = "网络安全法 第十条 网络运营"
    assert paths(kb, q, as_of="2017-07-01")[0] == "cybersecurity-law-2016.md"
    assert "cybersecurity-law-2016.md" not in paths(kb, q, as_of="2017-01-01")


# -- a named edition's clause ----------------------------------------------------------
def test_named_edition_clause_exists(kb: KnowledgeBase) -> None:
    result = kb.search("§ 1002.4(b) of the 2011 edition")
    assert result.editions is not None
    lookup = result.editions["lookup"]
    assert lookup["outcome"] == "found" and lookup["regulation"] == "12 CFR 1002"
    assert [h.path for h in result.hits] == [OLD]
    why = {e["path"]: e["reason"] for e in result.editions["excluded"]}
    assert why[NEW] == "another edition is named" and why[FUTURE] == "future"
    assert result.hits[0].regulation == {
        "regulation": "12 CFR 1002", "edition": "2011", "clause": "1002.4(b)",
        "effective_date": "2011-12-30", "status": "superseded",
    }  # fmt: skip


def test_named_standard_edition_clause(kb: KnowledgeBase) -> None:
    result = kb.search("ISO 13485:2016 clause 7.3.2")
    top = result.hits[0]
    assert top.path == "iso-13485-2016.md" and top.regulation is not None
    assert (top.regulation["edition"], top.regulation["clause"]) == ("2016", "7.3.2")
    assert "iso-13485-2003.md" not in {h.path for h in result.hits}
    # the superseded 2003 edition is read when named (default mode) ...
    old = kb.search("ISO 13485:2003 clause 7.3.2")
    assert old.hits[0].path == "iso-13485-2003.md"
    # ... but not under an explicit current-only, which says why
    strict = kb.search("ISO 13485:2003 clause 7.3.2", filters=SearchFilters(current_only=True))
    assert strict.outcome == "insufficient_evidence" and strict.abstention is not None
    assert strict.abstention.criterion == "edition_excluded"
    assert "superseded" in strict.abstention.reason


@pytest.mark.parametrize(
    ("query", "outcome", "words"),
    [
        ("§ 1002.4(e) of the 2011 edition", "clause_not_in_edition", "1002.4(e) does not exist"),
        ("ISO 13485:2003 clause 7.3.10", "clause_not_in_edition", "7.3.10 does not exist"),
        ("ISO 13485:2012 clause 7.3.2", "edition_not_found", "no 2012 edition"),
    ],
)
def test_named_edition_clause_does_not_exist(
    kb: KnowledgeBase, query: str, outcome: str, words: str
) -> None:
    result = kb.search(query)
    assert result.outcome == "insufficient_evidence" and not result.hits
    assert result.abstention is not None and result.abstention.criterion == outcome
    assert words in result.abstention.reason
    answer = kb.ask(query)
    assert answer.outcome == "insufficient_evidence" and not answer.citations
    assert words in json.dumps(answer.to_json(with_trace=True))


def test_same_clause_in_the_current_edition_when_no_edition_is_named(kb: KnowledgeBase) -> None:
    result = kb.search("§ 1002.4(e) foreign-language disclosures")
    assert result.hits and result.hits[0].path == NEW


# -- the edition on every hit, fragment and citation ------------------------------------
def test_hits_fragments_and_citations_carry_the_edition(kb: KnowledgeBase) -> None:
    pack = assemble(kb.context, Q)
    frags = [f.to_json() for f in pack.fragments if f.path == NEW]
    assert frags and all(f["regulation"]["effective_date"] == "2022-01-01" for f in frags)
    body = kb.ask(Q).to_json()
    cited = [c["regulation"] for c in body["citations"]]
    assert cited and all(
        r["regulation"] == "12 CFR 1002" and r["edition"] == "2017-20417" and r["clause"]
        for r in cited
    )
    assert "1002.4(b)" in {r["clause"] for r in cited}
    handbook_free = kb.search("ISO 13485:2016 clause 7.3.2").hits
    assert all(h.regulation is not None for h in handbook_free)


# -- summaries -------------------------------------------------------------------------
def test_summary_helps_ranking_but_is_never_quoted_or_cited(kb: KnowledgeBase) -> None:
    q = "Which rule forbids discouraging applicants on a prohibited basis?"
    before = {h.chunk_id: h.score for h in kb.search(q).hits}
    words = "Plain-language gist: creditors may not discourage applicants on a prohibited basis."
    kb.write_summary("12 CFR 1002", words, author="llm:test/fake")
    try:
        result = kb.search(q)
        assert result.editions is not None and result.editions["summaries"]
        boosted = [h for h in result.hits if h.path == NEW and h.chunk_id in before]
        assert boosted and all(h.score > before[h.chunk_id] for h in boosted)
        answer = kb.ask(q)
        assert "gist" not in answer.answer.lower()
        assert all(c.path in {NEW, OLD, FUTURE} for c in answer.citations)
        assert all("gist" not in c.excerpt.lower() for c in answer.citations)
        # stored apart: no search, however worded, finds the summary's own words
        alone = kb.search("plain-language gist", filters=SearchFilters(current_only=False))
        assert all("gist" not in h.excerpt.lower() for h in alone.hits)
        assert (kb.home.settings.home / "summaries" / "default.json").exists()
    finally:
        (kb.home.settings.home / "summaries" / "default.json").unlink()


def test_named_sub_paragraph_is_the_top_hit(kb: KnowledgeBase) -> None:
    # the chunk holding 1002.4(d)(2) also holds 1002.4 and 1002.4(d): it scores by the most
    # specific clause it holds, and the named edition's clause comes first
    result = kb.search("§ 1002.4(d)(2) of the 2017 edition")
    assert result.hits[0].path == NEW and result.hits[0].regulation is not None
    assert result.hits[0].regulation["clause"] == "1002.4(d)(2)"
    assert result.editions is not None and result.editions["lookup"]["regulation"] == "12 CFR 1002"
