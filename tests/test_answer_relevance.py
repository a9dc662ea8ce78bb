"""Relevance by meaning (issue 15): answer units are scored by the dense encoder as well as
term overlap, and the score degrades to term overlap when the dense route is off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.candidate import Candidate
from citewise.answer.composition.compose import ROLE_WEIGHT
from citewise.answer.ranking import unit_candidates, units_reader
from citewise.answer.relevance import DenseScorer, blend
from citewise.evidence.models import Fragment
from citewise.evidence.whole import node_fragment
from citewise.kb import Home, KnowledgeBase

FIXTURES = Path(__file__).parent / "fixtures" / "answers"
#: Shares "session" with the badge sentence only; means the sign-out sentence.
QUESTION = "How long can a session stay idle before it ends?"


def _kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dense: str) -> KnowledgeBase:
    monkeypatch.setenv("CITEWISE_DENSE", dense)
    shutil.copytree(FIXTURES, tmp_path / "corpus")
    kb = Home.open(tmp_path / "home").kb()
    assert kb.add([tmp_path / "corpus"]).ok
    return kb


def _section(kb: KnowledgeBase) -> Fragment:
    doc = kb.document("sessions.md")
    sec = next(n for n in kb.nodes("sessions.md") if n.kind == "section")
    return node_fragment(
        sec,
        role="direct_support",
        doc_id=doc.doc_id,
        path="sessions.md",
        revision=kb.info().revision,
        version_id=doc.version_id,
        reason="test",
    )


def _scores(kb: KnowledgeBase, scorer: DenseScorer | None) -> dict[str, float]:
    reader = units_reader(lambda path, vid: kb.store.nodes_of_version(kb.name, path, vid))
    found: list[Candidate] = unit_candidates(
        analyse(QUESTION), [_section(kb)], reader, scorer, ROLE_WEIGHT
    )
    return {c.clean.split()[0]: c.score for c in found}


@pytest.mark.model
def test_meaning_outranks_a_shared_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kb = _kb(tmp_path, monkeypatch, "on")
    lexical = _scores(kb, None)
    assert lexical["A"] > lexical["Users"]  # term overlap alone prefers the badge sentence
    dense = _scores(kb, DenseScorer(kb.home.index(kb.name)))
    assert dense["Users"] > dense["A"]  # the encoder finds the sign-out sentence
    # and the same question scores the same units the same way again (cached vectors)
    assert _scores(kb, DenseScorer(kb.home.index(kb.name))) == dense


def test_dense_off_degrades_to_term_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _kb(tmp_path, monkeypatch, "off")
    scorer = DenseScorer(kb.home.index(kb.name))
    assert scorer(analyse(QUESTION), ["anything"]) is None
    assert _scores(kb, scorer) == _scores(kb, None)
    assert blend(0.4, None) == 0.4
