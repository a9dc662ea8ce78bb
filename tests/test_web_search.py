"""The SearXNG provider against a real local stand-in, and the outbound query."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.errors import SearchUnavailable
from citewise.web.refs import ClauseRef
from citewise.web.search import SearxngSearch, clause_query, key_terms
from tests._web_hosts import Route, searx_route, web_host


def test_results_are_filtered_to_the_allowlist() -> None:
    results = [
        {"url": "https://www.ecfr.gov/current/title-12/part-1002", "title": "eCFR", "content": "s"},
        {"url": "https://ecfr.gov.evil.test/part-1002", "title": "look-alike", "content": ""},
        {"url": "javascript:alert(1)", "title": "x", "content": ""},
        {"url": "http://user:pw@ecfr.gov/p", "title": "creds", "content": ""},
        {"url": "https://federalregister.gov/d/2017-20417", "title": "FR", "content": ""},
    ]
    with web_host({"/search": searx_route(results)}) as engine:
        got = SearxngSearch(engine.base, ["ecfr.gov", "federalregister.gov"]).search(
            '"12 CFR 1002"'
        )
        sent = engine.seen[0][0]
    assert [h.url for h in got.hits] == [results[0]["url"], results[4]["url"]]
    assert len(got.dropped) == 3 and got.query == '"12 CFR 1002"'
    assert "format=json" in sent and got.engine == engine.base + "/search"


def test_engine_credentials_never_reach_the_record() -> None:
    with web_host({"/search": searx_route([])}) as engine:
        url = f"http://ops:s3cret@127.0.0.1:{engine.port}"
        got = SearxngSearch(url, ["ecfr.gov"]).search("q")
    assert "s3cret" not in str(got.to_json()) and got.engine == engine.base + "/search"


@pytest.mark.parametrize(
    "route",
    [
        Route(b"<html>not json</html>"),
        Route(b'{"results": "nope"}', content_type="application/json"),
        Route(b"{}", status=403, content_type="application/json"),
    ],
)
def test_unusable_answers_are_unavailable(route: Route) -> None:
    with web_host({"/search": route}) as engine, pytest.raises(SearchUnavailable):
        SearxngSearch(engine.base, ["ecfr.gov"]).search("q")


def test_query_holds_only_regulatory_terms() -> None:
    clause = (
        "(b) Discouragement. A creditor shall not make any oral or written statement, in "
        "advertising or otherwise, to applicants that would discourage on a prohibited basis."
    )
    terms = key_terms(clause)
    assert len(terms) == 3 and all(t in clause.lower() for t in terms)
    q = clause_query(ClauseRef("12 CFR 1002", "2017", "1002.4(b)"), terms)
    assert q.startswith('"12 CFR 1002" "1002.4(b)" 2017 ') and len(q.split()) == 8
    assert clause_query(ClauseRef("ISO 13485", None, "7.3.2")) == '"ISO 13485" "7.3.2"'


def test_settings_come_from_the_environment_and_never_lift_the_block(tmp_path: Path) -> None:
    from citewise.errors import UsageError, WebNotConfigured
    from citewise.web.fetcher import SafeFetcher
    from citewise.web.settings import WebSettings, open_verifier

    with pytest.raises(WebNotConfigured, match="CITEWISE_WEB_ALLOWED_HOSTS"):
        WebSettings.from_env({"CITEWISE_WEB_SEARCH_URL": "http://searx.internal:8888"})
    with pytest.raises(UsageError, match="CITEWISE_WEB_TIMEOUT"):
        WebSettings.from_env(
            {"CITEWISE_WEB_SEARCH_URL": "http://s", "CITEWISE_WEB_ALLOWED_HOSTS": "a",
             "CITEWISE_WEB_TIMEOUT": "-1"}
        )  # fmt: skip
    env = {
        "CITEWISE_WEB_SEARCH_URL": "http://searx.internal:8888",
        "CITEWISE_WEB_ALLOWED_HOSTS": " ecfr.gov , FederalRegister.gov ",
        "CITEWISE_WEB_PERMIT": "127.0.0.0/8",  # no such setting: ignored
    }
    settings = WebSettings.from_env(env)
    assert settings.allowed_hosts == ("ecfr.gov", "federalregister.gov")
    fetcher = open_verifier(settings, tmp_path).fetcher
    assert isinstance(fetcher, SafeFetcher)
    assert fetcher.policy.permit == () and fetcher.policy.allowed_hosts == settings.allowed_hosts
