"""Verification routing per policy (issue 38): ``verification: off | regulatory | always``
decides which answers go to the second source. With the web not configured, a routed
answer is still given and says ``unverified`` with the reason; a question that is not
regulatory is not routed under ``regulatory``; ``off`` records nothing (as before).
Questions on two kinds of text: a CFR-style regulation section and a plain how-to note."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.kb import Home, KnowledgeBase
from tests.test_review import set_policy, write

pytestmark = pytest.mark.usefixtures("dense_off")

REG = (
    "# 12 CFR 1002.4 General rules\n\n"
    "A creditor shall not discriminate against an applicant on a prohibited basis "
    "regarding any aspect of a credit transaction.\n"
)
HOWTO = "# Backups\n\nThe backup window opens at 02:00 every night.\n"
REG_Q = "What does 12 CFR 1002.4 say a creditor shall not do?"
PLAIN_Q = "When does the backup window open?"


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    for var in ("CITEWISE_WEB_SEARCH_URL", "CITEWISE_WEB_ALLOWED_HOSTS"):
        monkeypatch.delenv(var, raising=False)
    h = Home.open(tmp_path / "home")
    base = h.kb()
    assert base.add([write(tmp_path / "docs", {"reg.md": REG, "backups.md": HOWTO})]).ok
    return base


def _route(kb: KnowledgeBase, question: str) -> dict[str, object] | None:
    answer = kb.ask(question)
    public = answer.to_json().get("verification_route")
    assert public == answer.trace.get("verification_route")
    return public  # type: ignore[no-any-return]


def test_off_records_nothing(kb: KnowledgeBase) -> None:
    assert _route(kb, REG_Q) is None
    set_policy(kb.home.settings.home, "verification: off\n")
    assert _route(kb, REG_Q) is None


def test_regulatory_routes_regulatory_questions_only(kb: KnowledgeBase) -> None:
    set_policy(kb.home.settings.home, "verification: regulatory\n")
    got = _route(kb, REG_Q)
    assert got is not None and got["routed"] is True and "12 CFR 1002" in str(got["why"])
    # the web is not configured here: answered, and says so (never silently unverified)
    assert got["ran"] is False and got["state"] == "unverified"
    assert "CITEWISE_WEB_SEARCH_URL" in str(got["reason"])
    plain = _route(kb, PLAIN_Q)
    assert plain == {"policy": "regulatory", "routed": False, "why": None, "ran": False}


def test_always_routes_every_answer(kb: KnowledgeBase) -> None:
    set_policy(kb.home.settings.home, "verification: always\n")
    got = _route(kb, PLAIN_Q)
    assert got is not None and got["routed"] is True and got["why"] == "policy: always"
    assert got["state"] == "unverified"


def test_a_malformed_policy_is_named(kb: KnowledgeBase) -> None:
    from citewise.errors import BadPolicy

    set_policy(kb.home.settings.home, "verification: sometimes\n")
    with pytest.raises(BadPolicy, match="verification"):
        kb.ask(REG_Q)
