"""The stage context the facade hands the stages: the KB's name, store, settings and index."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.audit.bundle import export_bundle, replay
from citewise.context import StageContext
from citewise.errors import KBNotFound, UsageError
from citewise.kb import Home


def test_the_context_is_the_facades_own_knowledge_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    with Home.open(tmp_path / "home") as home:
        kb = home.kb()
        ctx = kb.context
        assert isinstance(ctx, StageContext)
        assert (ctx.name, ctx.store, ctx.settings) == (kb.name, home.store, home.settings)
        assert ctx.index is home.index(kb.name)  # the home's one shared index
        assert home.context(kb.name).index is ctx.index
        other = home.context(kb.name, home.settings)  # replay: a fresh index, same store
        assert other.store is home.store and other.index is not ctx.index
        with pytest.raises(KBNotFound):
            home.context("nope")


def test_the_index_is_opened_only_when_a_stage_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An unknown encoder fails when the index is built: the context itself never builds it,
    # so operations that read only the store work.
    monkeypatch.setenv("CITEWISE_ENCODER", "no-such-encoder")
    with Home.open(tmp_path / "home") as home:
        kb = home.kb()
        assert kb.stale_answers() == []
        with pytest.raises(UsageError, match="Unknown encoder"):
            _ = kb.context.index


def test_bundle_replay_takes_a_context_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Cursor\n\nA sync cursor expires after 24 hours.\n")
    with Home.open(tmp_path / "home") as home:
        kb = home.kb()
        assert kb.add([corpus]).ok
        answer = kb.ask("When does a sync cursor expire?")
        bundle = export_bundle(home, answer.trace_id)
        assert replay(home, bundle)["status"] == "reproduced"
